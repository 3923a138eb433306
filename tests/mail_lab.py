"""The ``mail_lab`` fixture: the loopback postfix + dovecot that ``.ci/mail-lab start``
runs, described by its lab.json (users and passwords, the CA file, the ports).

Without lab.json the tests that use it skip, unless the environment variable CI is set:
then they fail, so CI can never pass by skipping them.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

LAB_FILE = Path(os.environ.get("TOMIS_MAIL_LAB_DIR", "/run/tomis-mail-lab")) / "lab.json"


@dataclass(frozen=True)
class LabUser:
    name: str
    address: str
    password: str
    home: Path

    @property
    def maildir(self) -> Path:
        return self.home / "Maildir"


@dataclass(frozen=True)
class Lab:
    host: str
    cafile: str
    smtp: dict
    imap: dict
    users: dict


def read_lab() -> Lab:
    """The running lab as lab.json tells it; without one the test is skipped (failed in
    CI, which starts the lab)."""
    try:
        data = json.loads(LAB_FILE.read_text(encoding="utf-8"))
    except OSError as exc:
        message = f"no mail lab ({LAB_FILE}: {exc.strerror}); start one with .ci/mail-lab start"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    users = {name: LabUser(name, user["address"], user["password"], Path(user["home"]))
             for name, user in data["users"].items()}
    return Lab(data["host"], data["cafile"], data["smtp"], data["imap"], users)


@pytest.fixture
def mail_lab() -> Lab:
    return read_lab()
