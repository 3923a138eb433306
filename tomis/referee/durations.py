"""One form for every duration the referee takes: ``90m``, ``6h``, ``2d``, ``1d12h``, the
record's own (:func:`tomis.notation.clock.parse_duration`), and ``off`` where a setting
can be off. Options and settings read their durations here, and nowhere else."""

from __future__ import annotations

from ..errors import TomisError
from ..notation import clock

OFF = "off"


class DurationError(TomisError):
    """A duration the referee cannot take: one line that names the option and the form."""


def parse_setting_duration(text: str, can_be_off: bool, what: str = "a duration") -> int | None:
    """Seconds in ``text`` (``90m``, ``6h``, ``2d``, ``1d12h``; at least 1m); None for
    ``off`` when ``can_be_off``. ``what`` names the option in the error.

    >>> parse_setting_duration("1d12h", False), parse_setting_duration("off", True)
    (129600, None)
    """
    text = text.strip()
    forms = "like 90m, 6h, 2d or 1d12h" + (", or off" if can_be_off else "")
    if can_be_off and text == OFF:
        return None
    try:
        seconds = clock.parse_duration(text)
    except TomisError:
        raise DurationError(f"{what} {text!r}: a duration is written {forms}") from None
    if seconds == 0:
        raise DurationError(f"{what} {text!r}: a duration of at least 1m, written {forms}")
    return seconds


def format_setting_duration(seconds: int | None) -> str:
    """The form :func:`parse_setting_duration` reads: ``1d12h``, or ``off`` for None."""
    return OFF if seconds is None else clock.format_duration(seconds)
