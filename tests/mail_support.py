"""What tests/test_mail.py and tests/test_mail_send.py share: running the CLI, the corpus.

Not a test module (no test_ prefix); pytest puts tests/ on sys.path, so both import it.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tomis import mail_cli
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


def run_mail(*args, env=None):
    """The mail commands (send, inbox, extract), not yet added to the main group."""
    return runner().invoke(mail_cli.group, [str(a) for a in args], env=env,
                           catch_exceptions=False)
