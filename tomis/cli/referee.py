"""``tomis referee``: the play-by-email server's commands ``init``, ``new``, ``deliver``
and ``tick`` (docs/REFEREE.md). The work is :mod:`tomis.referee.service`'s; this module
reads options, prints, and keeps ``deliver``'s exit codes to 0 and 75 (EX_TEMPFAIL), the
two a mail server understands as "taken" and "try again later"."""

from __future__ import annotations

import sys

import click

from .correspondence import parse_now

EX_TEMPFAIL = 75


def _now_option(command):
    return click.option("--now", "now", metavar="TIME",
                        help="The referee's clock: a UTC time like 2026-11-23T10:15Z "
                             "(default: the host's clock).")(command)


@click.group()
def referee():
    """A play-by-email server: keeps games, stamps the clocks, mails both players.

    One host runs it; players only reply to its mail (docs/REFEREE.md).
    """


@referee.command()
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--address", required=True, metavar="ADDR",
              help="The referee's own address; players reply to ADDR's LOCAL+TOKEN form.")
@click.option("--name", metavar="NAME", help="The name on the referee's messages.")
@click.option("--send-by", "send_by", default="sendmail", show_default=True,
              metavar="smtp|sendmail[:PATH]|outbox:DIR",
              help="How messages leave: the SMTP settings of --config, a sendmail program, "
                   "or one .eml file each in DIR.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True),
              help="The mail settings file (as TOMIS_MAIL_CONFIG), for --send-by smtp.")
def init(db, address, name, send_by, config_file):
    """Create the referee's store DB (refuses an existing file)."""
    from ..referee import service

    if send_by == "smtp" and config_file is None:
        raise click.UsageError("--send-by smtp needs --config FILE, the mail settings file")
    service.init(db, address, name, send_by, config_file)
    click.echo(f"created {db}: the referee {address}, sending by {send_by}", err=True)


@referee.command()
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--white", required=True, metavar='"NAME <ADDR>"', help="White's name and address.")
@click.option("--black", required=True, metavar='"NAME <ADDR>"', help="Black's name and address.")
@click.option("--time-control", "time_control", metavar="TC",
              help="The clocks, like 30d+3d, bank:240h+36h or 10/30d (default: no clocks).")
@click.option("--leave-days", "leave_days", type=click.IntRange(0, 366), default=45,
              show_default=True, help="Leave each player may take per calendar year.")
@click.option("--event", metavar="TEXT", help="The Event tag.")
@click.option("--rules", type=click.Choice(["manual", "readme"]), default="manual",
              show_default=True, help="The edition of the rules.")
@_now_option
def new(db, white, black, time_control, leave_days, event, rules, now):
    """Start a game, mail both players, and print its number."""
    from ..referee import service

    at = parse_now(now)
    players = (service.parse_player(white, "--white"), service.parse_player(black, "--black"))
    number, failures = service.new_game(db, *players, time_control=time_control,
                                        leave_days=leave_days, event=event, rules=rules, now=at)
    click.echo(number)
    _say_unsent(failures)


def _say_unsent(failures: list[str]) -> None:
    from ..errors import visible

    for failure in failures:
        click.echo(f"not sent yet (tick tries again): {visible(failure)}", err=True)


@referee.command()
@click.argument("db", type=click.Path(dir_okay=False))
@click.option("--recipient", metavar="ADDR", help="The envelope recipient the mail server gives.")
@_now_option
@click.pass_context
def deliver(ctx, db, recipient, now):
    """Take one message on stdin (from a mail server's pipe, procmail or .forward).

    Exit 0 once the message is stored, whatever it held (refused ones are kept with the
    reason); 75 when it could not be stored, so that the mail server tries again.
    """
    at = parse_now(now) if now is not None else None
    code = run_deliver(db, recipient, at)
    ctx.exit(code)


def run_deliver(db: str, recipient: str | None, at: int | None) -> int:
    import time

    from ..errors import visible
    from ..referee import inbound, service

    try:
        raw = sys.stdin.buffer.read(inbound.MAX_MESSAGE_BYTES + 1)
        oversized = len(raw) > inbound.MAX_MESSAGE_BYTES
        if oversized:
            raw = raw[:inbound.MAX_MESSAGE_BYTES]
            while sys.stdin.buffer.read(1 << 20):       # let the mail server finish writing
                pass
        connection, config = service.connect(db)
        stored = service.store_message(connection, raw, oversized,
                                       recipient, int(time.time()) if at is None else at)
    except Exception as error:  # noqa: BLE001 -- anything before the commit: try again later
        click.echo(f"tomis referee deliver: not stored, try again later: {visible(str(error))}",
                   err=True)
        return EX_TEMPFAIL
    try:
        _say_unsent(service.after_storing(connection, config))
    except Exception as error:  # noqa: BLE001 -- stored: tick finishes the rest
        click.echo(f"tomis referee deliver: stored; the rest is left to tick: "
                   f"{visible(str(error))}", err=True)
    return 0


@referee.command()
@click.argument("db", type=click.Path(dir_okay=False))
@_now_option
def tick(db, now):
    """Send due reminders, end games whose time ran out, retry mail not yet sent."""
    from ..referee import service

    report = service.tick(db, parse_now(now))
    _say_unsent(report.failures or [])
    click.echo(f"processed {report.processed}, reminders {report.reminders}, "
               f"time-outs {report.forfeits}, unsent {len(report.failures or [])}", err=True)
