"""What is remembered about one game's mail, beside its record: ``RECORD.mail.json``.

The opponent's address and the thread, so that the next reply needs no ``--to``. Never a
password, never inside the record. Anyone may have written the file, so it is read as
hostile: bounded, and every value checked as a header value would be.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import FileError, MailError
from ..util import safefile
from .headers import addresses, checked_id, clipped


SIDECAR_SUFFIX = ".mail.json"


MAX_SIDECAR_BYTES = 64 * 1024   # tomis writes a few hundred bytes there


@dataclass
class Sidecar:
    """What is remembered about one game's mail, in ``RECORD.mail.json`` beside it."""

    to: str | None = None
    in_reply_to: str | None = None
    references: list[str] = field(default_factory=list)

    @staticmethod
    def path_for(record_path: str) -> str:
        return record_path + SIDECAR_SUFFIX

    @classmethod
    def load(cls, record_path: str) -> Sidecar:
        """The remembered facts; an absent file is an empty sidecar. Anyone may have
        written the file, so anything tomis would not have written there is a FileError
        naming it: a value that is not an address or a message id, the wrong type, more
        than MAX_SIDECAR_BYTES, JSON nested too deep."""
        path = cls.path_for(record_path)
        try:
            with open(path, "rb") as stream:
                data = stream.read(MAX_SIDECAR_BYTES + 1)
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise _sidecar_error(path, f"cannot read it: {exc.strerror or exc}") from None
        if len(data) > MAX_SIDECAR_BYTES:
            raise _sidecar_error(path, f"it is larger than {MAX_SIDECAR_BYTES // 1024} KiB, "
                                 "which tomis never writes there")
        try:
            facts = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise _sidecar_error(path, f"it is not JSON: {exc}") from None
        try:
            return cls._checked(facts)
        except MailError as exc:
            raise _sidecar_error(path, exc.message) from None

    @classmethod
    def _checked(cls, facts) -> Sidecar:
        if not isinstance(facts, dict):
            raise MailError("it holds no JSON object")
        to, in_reply_to = facts.get("to"), facts.get("in_reply_to")
        refs = facts.get("references", [])
        if to is not None:
            to = addresses(to, '"to"')
        if in_reply_to is not None:
            in_reply_to = checked_id(in_reply_to, '"in_reply_to"')
        if not isinstance(refs, list):
            raise MailError(f'"references" {clipped(refs)!r} is not a list of message ids')
        return cls(to or None, in_reply_to or None,
                   [checked_id(ref, 'an id in "references"') for ref in refs])

    def save(self, record_path: str) -> None:
        text = json.dumps({"to": self.to, "in_reply_to": self.in_reply_to,
                           "references": self.references}, indent=2) + "\n"
        safefile.atomic_write(self.path_for(record_path), text)


def _sidecar_error(path: str, why: str) -> FileError:
    error = FileError(f"what is remembered about this game's mail cannot be used: {why} "
                      "(delete the file, or mend it, and answer with --to ADDRESS)")
    error.path = path
    return error
