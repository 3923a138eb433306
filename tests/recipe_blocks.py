"""The blocks of docs/REFEREE.md's "A club's host, step by step" that its tests follow:
each is the fenced block after a line ``<!-- recipe: NAME -->``.

Not a test module (no test_ prefix); pytest puts tests/ on sys.path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from conftest import ROOT

DOC = ROOT / "docs" / "REFEREE.md"
_BLOCK = re.compile(r"^<!-- recipe: (?P<name>[\w.-]+) -->\n```\w*\n(?P<text>.*?)^```$",
                    re.MULTILINE | re.DOTALL)

# systemd.exec(5) of systemd 252 (Debian 12), "NoNewPrivileges=": each of these turns it
# on whatever NoNewPrivileges= says, and with it the setgid bit of postfix's postdrop off.
IMPLY_NO_NEW_PRIVILEGES = frozenset({
    "DynamicUser", "LockPersonality", "MemoryDenyWriteExecute", "PrivateDevices",
    "ProtectClock", "ProtectHostname", "ProtectKernelLogs", "ProtectKernelModules",
    "ProtectKernelTunables", "RestrictAddressFamilies", "RestrictNamespaces",
    "RestrictRealtime", "RestrictSUIDSGID", "SystemCallArchitectures", "SystemCallFilter",
    "SystemCallLog"})
# systemd's boolean words for "no" (systemd.syntax(7)).
SYSTEMD_NO = frozenset({"0", "no", "false", "off"})


def blocks() -> dict[str, str]:
    """Every marked block of the doc by its name; a name used twice is an error."""
    found: dict[str, str] = {}
    for match in _BLOCK.finditer(DOC.read_text(encoding="utf-8")):
        assert match["name"] not in found, f"two recipe blocks named {match['name']}"
        found[match["name"]] = match["text"]
    return found


def block(name: str) -> str:
    found = blocks()
    assert name in found, f"docs/REFEREE.md has no block marked <!-- recipe: {name} -->"
    return found[name]


def commands(text: str) -> list[str]:
    """The command lines of a shell block (no comments, no empty lines)."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


@dataclass
class SystemdUnit:
    """A systemd unit file: its settings by section, every value of each (ExecStart may
    come more than once)."""
    sections: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def get(self, section: str, key: str) -> list[str]:
        return self.sections.get(section, {}).get(key, [])

    def one(self, section: str, key: str) -> str | None:
        values = self.get(section, key)
        assert len(values) <= 1, f"{key}= is set {len(values)} times"
        return values[0] if values else None


def unit(text: str) -> SystemdUnit:
    result, section = SystemdUnit(), None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            result.sections.setdefault(section, {})
            continue
        key, equals, value = line.partition("=")
        assert equals and section, f"not a unit file line: {line!r}"
        result.sections[section].setdefault(key.strip(), []).append(value.strip())
    return result


def systemd_unescape(value: str) -> str:
    """``%%`` is a ``%`` in a unit file; no other specifier is used in the doc's units."""
    assert re.search(r"%[^%]", value.replace("%%", "")) is None, value
    return value.replace("%%", "%")


@dataclass(frozen=True)
class CronLine:
    schedule: tuple[str, ...]
    user: str
    command: str


def cron_lines(text: str) -> list[CronLine]:
    """The lines of an /etc/cron.d file: five time fields, the user, the command."""
    lines = []
    for line in commands(text):
        fields = line.split(None, 6)
        assert len(fields) == 7, f"not a cron.d line (time fields, user, command): {line!r}"
        lines.append(CronLine(tuple(fields[:5]), fields[5], fields[6]))
    return lines


@dataclass(frozen=True)
class PipeService:
    name: str
    kind: str
    command: str
    attributes: dict


def master_cf(text: str) -> PipeService:
    """The one service of a master.cf block: its name, type, command and attributes
    (``flags=``, ``user=``, ``argv=`` with the rest of the line)."""
    joined = " ".join(text.split())
    fields = joined.split(" ")
    name, kind, command = fields[0], fields[1], fields[7]
    attributes, rest = {}, fields[8:]
    while rest:
        key, _, value = rest.pop(0).partition("=")
        if key == "argv":
            attributes[key] = " ".join([value, *rest])
            break
        attributes[key] = value
    return PipeService(name, kind, command, attributes)


def main_cf(text: str) -> dict[str, str]:
    settings = {}
    for line in commands(text):
        key, equals, value = line.partition("=")
        assert equals, f"not a main.cf line: {line!r}"
        settings[key.strip()] = value.strip()
    return settings
