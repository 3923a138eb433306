"""The club's settings the organiser changes after ``init``: one table, :data:`SETTINGS`,
each with its check. ``tomis referee settings DB --NAME VALUE`` changes one, ``init``
takes the same ones, and a later setting is one more entry here (its option follows)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..errors import RecordError
from ..notation.clock import parse_time_control
from . import reminders
from .durations import DurationError, format_setting_duration, parse_setting_duration

if TYPE_CHECKING:          # the CLI reads this table to build its options: no sqlite3 for it
    from .store import Store

_LOCAL = re.compile(r"[A-Za-z0-9._+-]{1,64}")
_DOMAIN = re.compile(r"(?=.{4,253}$)[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")
# What settings prints of the values init fixed, beside the table's (never the secret).
SHOWN_FIXED = (("address", "address"), ("name", "name"), ("send_by", "send-by"),
               ("config", "config"))


class SettingError(ValueError):
    """A value a setting refuses, in words."""


@dataclass(frozen=True)
class Setting:
    """One setting: its key in the store (its option ``--KEY``, ``_`` written ``-``), the
    word for its value, what it does, its check, which gives the value as kept or raises
    :class:`SettingError` (it sees the store's other settings), and what holds while it is
    not set (None: nothing)."""

    key: str
    metavar: str
    help: str
    check: Callable[[str, dict[str, str]], str]
    default: str | None = None

    @property
    def name(self) -> str:
        return self.key.replace("_", "-")

    @property
    def option(self) -> str:
        return f"--{self.name}"


def check_organiser(value: str, settings: dict[str, str]) -> str:
    """A plain address, lowercased, that is not one of the referee's own (its reports
    would come back to it as mail to read)."""
    text = value.strip()
    local, at, domain = text.rpartition("@")
    if not at or not _LOCAL.fullmatch(local) or not _DOMAIN.fullmatch(domain):
        raise SettingError(f"{value!r} is not a plain mail address like organiser@club.example")
    referee_local, _, referee_domain = settings.get("address", "").lower().rpartition("@")
    if domain.lower() == referee_domain and local.lower().partition("+")[0] == referee_local:
        raise SettingError(f"{value!r} is the referee's own address: the organiser's report "
                           f"must go to a person")
    return text.lower()


def check_reminders(value: str, settings: dict[str, str]) -> str:
    """A reminder schedule (:func:`tomis.referee.reminders.parse`), kept as given."""
    try:
        return reminders.parse(value).text
    except reminders.ScheduleError as error:
        raise SettingError(f"--reminders {value[:40]!r}: {error}") from None


def check_outage_after(value: str, settings: dict[str, str]) -> str:
    """A duration (``90m``, ``6h``, ``2d``, ``1d12h``) or ``off``, kept in that form."""
    try:
        return format_setting_duration(parse_setting_duration(value, True, "--outage-after"))
    except DurationError as error:
        raise SettingError(str(error)) from None


# Who may join by mail (``join NAME`` to the bare address, tomis.referee.clubmail).
JOIN, JOIN_MODES = "join", ("open", "approve", "closed")
# The time control of a challenge that names none.
TIME_CONTROL, DEFAULT_TIME_CONTROL = "time_control", "30d+1d"


def check_join(value: str, settings: dict[str, str]) -> str:
    """One of :data:`JOIN_MODES`, whatever its case."""
    mode = value.strip().lower()
    if mode not in JOIN_MODES:
        raise SettingError(f"--join {value[:40]!r}: one of {', '.join(JOIN_MODES)}")
    return mode


def check_time_control(value: str, settings: dict[str, str]) -> str:
    """A time control as a record's TimeControl tag writes it (``30d+1d``)."""
    try:
        parse_time_control(value.strip())
    except RecordError as error:
        raise SettingError(f"--time-control {value[:40]!r}: {error.message}") from None
    return value.strip()


def check_leave_days(value: str, settings: dict[str, str]) -> str:
    """Whole days from 0 to 366, kept as digits without leading zeros."""
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 3 or int(text) > 366:
        raise SettingError(f"--leave-days {value[:40]!r}: a number of days from 0 to 366")
    return str(int(text))


SETTINGS: tuple[Setting, ...] = (
    Setting("organiser", "ADDR", "The organiser's address: mailed once a day at most what "
            "needs a person (tomis referee alerts).", check_organiser),
    # The key and its default are tomis.referee.outages' OUTAGE_AFTER, DEFAULT_OUTAGE_AFTER.
    Setting("outage_after", "DURATION|off", "A longer gap in which the referee took no mail "
            "and did not tick is its own outage, given back to the clocks that ran in it "
            "(like 90m, 6h, 2d; default 1h).", check_outage_after, default="1h"),
    Setting(reminders.SETTING, "LIST", "When a player to act is reminded: shares of the "
            "turn's time used and times before the time-out, like the default "
            f"{reminders.DEFAULT}; 'off' for none.", check_reminders, reminders.DEFAULT),
    Setting(JOIN, "open|approve|closed", "Who joins by mailing 'join NAME' to the referee's "
            "address: anyone (open), anyone once the organiser approves them (approve), or "
            "no one (closed); default open.", check_join, "open"),
    Setting(TIME_CONTROL, "TC", "The time control of a game a challenge by mail starts "
            f"when it names none (default {DEFAULT_TIME_CONTROL}).", check_time_control,
            DEFAULT_TIME_CONTROL),
    # The key is tomis.referee.clubleave's LEAVE_DAYS; each game's own LeaveDays tag is new's.
    Setting("leave_days", "DAYS", "Leave a player may take per calendar year across all "
            "their games at once (mail 'leave FROM TO' to the club; default 45, as ICCF).",
            check_leave_days, default="45"),
)
BY_KEY = {setting.key: setting for setting in SETTINGS}


def checked(values: dict[str, str | None], settings: dict[str, str]) -> dict[str, str]:
    """The given ``values`` (None: not given) each checked by its setting."""
    return {key: BY_KEY[key].check(value, settings)
            for key, value in values.items() if value is not None}


@dataclass(frozen=True)
class Shown:
    """A setting as ``settings`` prints it: its name and value (None: not set)."""

    name: str
    value: str | None


def change(store: Store, values: dict[str, str | None]) -> list[Shown]:
    """Keep the given ``values`` (checked) in one transaction; every setting as it now is."""
    with store.transaction():
        kept = checked(values, store.settings())
        for key, value in kept.items():
            store.set_setting(key, value)
        if reminders.SETTING in kept:
            # Each game in play keeps when tick next looks at it, from the old schedule:
            # the next tick looks at every one once and sets it anew.
            store.games.look_again()
    return shown(store.settings())


def shown(settings: dict[str, str]) -> list[Shown]:
    return ([Shown(name, settings.get(key)) for key, name in SHOWN_FIXED]
            + [Shown(setting.name, settings.get(setting.key, setting.default))
               for setting in SETTINGS])
