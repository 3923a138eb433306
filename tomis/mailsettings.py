"""The one mail settings file: where it is and what one of its sections says.

Sending (``[smtp]``, :mod:`tomis.mailout`) and reading a server (``[imap]``,
:mod:`tomis.imap`) share it: ``TOMIS_MAIL_CONFIG``, else
``$XDG_CONFIG_HOME/tomis/mail.ini``, else ``~/.config/tomis/mail.ini``. A password never
belongs in it: a section that holds one is refused. Prints nothing.
"""

from __future__ import annotations

import configparser
import os

from .errors import TomisError

CONFIG_ENV = "TOMIS_MAIL_CONFIG"
YES = ("1", "yes", "true", "on")
NO = ("0", "no", "false", "off")


def config_path(env=None) -> str:
    env = os.environ if env is None else env
    if env.get(CONFIG_ENV):
        return env[CONFIG_ENV]
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "tomis", "mail.ini")


def section(path: str, name: str, error_class: type[TomisError], password_env: str) -> dict[str, str]:
    """The ``[name]`` section of the file at ``path`` (empty when the file or the section
    is absent); a file that does not read, or a password in the section, raises
    ``error_class`` with its path set."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        read = parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as exc:
        raise _located(error_class(f"cannot read the mail settings: {str(exc).splitlines()[0]}"),
                       path) from None
    if not read or not parser.has_section(name):
        return {}
    if parser.has_option(name, "password"):
        raise _located(error_class(f"a password does not belong in the settings file; remove "
                                   f"it from [{name}] and use {password_env} or the prompt"), path)
    return {key: value.strip() for key, value in parser.items(name)}


def yes_no(value: str, name: str, error_class: type[TomisError]) -> bool:
    if value.lower() in YES:
        return True
    if value.lower() in NO:
        return False
    raise error_class(f"{name} must be yes or no, not {value!r}")


def _located(error: TomisError, path: str) -> TomisError:
    error.path = path
    return error
