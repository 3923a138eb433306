"""What tests/test_mail.py and tests/test_mail_send.py share: running the CLI, the corpus.

Not a test module (no test_ prefix); pytest puts tests/ on sys.path, so both import it.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tomis.cli import cli

MAIL = Path(__file__).resolve().parent / "data" / "mail"
RECORDS = MAIL / "records"


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:           # click 8.2 keeps stderr apart by itself
        return CliRunner()


def run(*args, env=None, input=None):
    """The main `tomis` group (what a player runs)."""
    return runner().invoke(cli, [str(a) for a in args], env=env, input=input,
                           catch_exceptions=False)
