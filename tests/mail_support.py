"""What tests/test_mail.py and tests/test_mail_send.py share: the corpus, and running the
CLI with an environment (the SMTP settings live in environment variables).

Not a test module (no test_ prefix); pytest puts tests/ on sys.path, so both import it.
"""

from __future__ import annotations

from pathlib import Path

from conftest import cli_runner

MAIL = Path(__file__).resolve().parent / "data" / "mail"
RECORDS = MAIL / "records"


def run(*args, env=None, input=None):
    """``tomis ARGS`` in process, with ``env`` added to the environment (None unsets)."""
    from tomis.cli import cli

    return cli_runner().invoke(cli, [str(a) for a in args], env=env, input=input,
                               catch_exceptions=False)
