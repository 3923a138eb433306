"""``tomis referee``: the play-by-email server's commands ``init``, ``new``, ``deliver``
and ``tick`` (docs/REFEREE.md). The work is :mod:`tomis.referee.service`'s; this module
reads options, prints, and keeps ``deliver``'s exit codes to 0 and 75 (EX_TEMPFAIL), the
two a mail server understands as "taken" and "try again later"."""

from __future__ import annotations

import sys

import click

from ..referee.club import SETTINGS
from .correspondence import parse_now

EX_TEMPFAIL = 75
# The store's path: whether it may be read is the store's to say, in one line naming
# whose it is (click's own check would say only "not readable", as a usage error).
STORE_PATH = click.Path(dir_okay=False, readable=False)


def _club_options(command):
    """An option per club setting (``tomis.referee.club.SETTINGS``): init and settings
    take the same ones."""
    for setting in reversed(SETTINGS):
        command = click.option(setting.option, setting.key, metavar=setting.metavar,
                               help=setting.help)(command)
    return command


def _now_option(command):
    return click.option("--now", "now", metavar="TIME",
                        help="The referee's clock: a UTC time like 2026-11-23T10:15Z "
                             "(default: the host's clock).")(command)


class StoreCommand(click.Command):
    """A referee command: its errors name the store (``club.db: there is no game 3``),
    not ``<input>``, unless they are about a file of their own."""

    def invoke(self, ctx):
        from ..errors import TomisError     # start-up time: the library loads when it runs

        try:
            return super().invoke(ctx)
        except TomisError as error:
            if error.path is None and ctx.params.get("db"):
                error.path = ctx.params["db"]
            raise


class RefereeGroup(click.Group):
    command_class = StoreCommand


@click.group(cls=RefereeGroup)
def referee():
    """A play-by-email server: keeps games, stamps the clocks, mails both players.

    One host runs it; players only reply to its mail (docs/REFEREE.md).
    """


@referee.command()
@click.argument("db", type=STORE_PATH)
@click.option("--address", required=True, metavar="ADDR",
              help="The referee's own address; players reply to ADDR's LOCAL+TOKEN form.")
@click.option("--name", metavar="NAME", help="The name on the referee's messages.")
@click.option("--send-by", "send_by", default="sendmail", show_default=True,
              metavar="smtp|sendmail[:PATH]|outbox:DIR",
              help="How messages leave: the SMTP settings of --config, a sendmail program, "
                   "or one .eml file each in DIR.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True),
              help="The mail settings file (as TOMIS_MAIL_CONFIG), for --send-by smtp.")
@_club_options
@click.option("--received-by", "received_by", multiple=True, metavar="HOST",
              help="A host of the club's mail system whose Received: fields say when a "
                   "message came (repeatable: a backup MX too); deliver stamps actions so.")
def init(db, address, name, send_by, config_file, received_by, **club_settings):
    """Create the referee's store DB (refuses an existing file)."""
    from ..referee import service

    if send_by == "smtp" and config_file is None:
        raise click.UsageError("--send-by smtp needs --config FILE, the mail settings file")
    service.init(db, address, name, send_by, config_file, club_settings, received_by)
    click.echo(f"created {db}: the referee {address}, sending by {send_by}", err=True)


@referee.command()
@click.argument("db", type=STORE_PATH)
@click.option("--white", required=True, metavar='"NAME <ADDR>"',
              help="White: a name and address (a new player is registered), or a player's NAME.")
@click.option("--black", required=True, metavar='"NAME <ADDR>"',
              help="Black: a name and address (a new player is registered), or a player's NAME.")
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

    terms = service.Terms(time_control=time_control, leave_days=leave_days, event=event,
                          rules=rules)
    number, failures = service.new_game(db, white, black, terms, parse_now(now))
    click.echo(number)
    _say_unsent(failures)


def _say_unsent(failures) -> None:
    """One line per message not sent (:class:`tomis.referee.sending.Unsent`): the change
    is stored either way, so the command still exits 0."""
    from ..errors import visible

    for failure in failures:
        click.echo(visible(failure.report()), err=True)


class MailServerCommand(StoreCommand):
    """``deliver``'s command line is written by the mail server, not typed by a person.

    Postfix's pipe passes every recipient of a delivery after ``--recipient`` (``${recipient}``
    becomes one argument each), so ``--recipient A B`` is two recipients, as is
    ``--recipient A --recipient B``. A command line that still cannot be read (an unknown
    option, no DB, a bad ``--now``) is not click's usage text and exit 2, which the mail
    server would bounce to the player with the command line in it: it is one line on
    standard error (the mail server's log) and exit 75, before the message is read, so
    it stays whole in the mail server's queue."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, spread_recipients(args))
        except click.UsageError as error:
            ctx.meta[UNREAD_COMMAND_LINE] = error.format_message()
            return []

    def invoke(self, ctx):
        problem = ctx.meta.get(UNREAD_COMMAND_LINE)
        if problem is None:
            try:
                return super().invoke(ctx)
            except click.UsageError as error:
                problem = error.format_message()
        from ..errors import visible        # start-up time: the library loads when it runs

        click.echo(f"tomis referee deliver: not stored, try again later: the command line: "
                   f"{visible(' '.join(problem.split()))}", err=True)
        ctx.exit(EX_TEMPFAIL)


UNREAD_COMMAND_LINE = "tomis.referee.unread_command_line"   # ctx.meta: why it was not read


def spread_recipients(args: list[str]) -> list[str]:
    """``--recipient A B C`` as ``--recipient A --recipient B --recipient C``: after a
    ``--recipient`` option, every argument holding an ``@`` (and not beginning with
    ``-``) is one more recipient, up to the next option or ``--``. The store comes first,
    as the recipe writes it (``deliver DB --recipient ${recipient}``)."""
    spread, following, value_next = [], False, False
    for arg in args:
        if value_next:                      # the value of the --recipient just before
            value_next = False
        elif following and arg != "--" and not arg.startswith("-") and "@" in arg:
            spread.append("--recipient")
        else:
            value_next = arg == "--recipient"
            following = value_next or arg.startswith("--recipient=")
        spread.append(arg)
    return spread


@referee.command(cls=MailServerCommand)
@click.argument("db", type=STORE_PATH)
@click.option("--recipient", "recipients", metavar="ADDR", multiple=True,
              help="The envelope recipients the mail server gives (Postfix's ${recipient}); "
                   "--recipient A B and --recipient A --recipient B alike.")
@_now_option
@click.pass_context
def deliver(ctx, db, recipients, now):
    """Take one message on stdin (from a mail server's pipe, procmail or .forward).

    Exit 0 once the message is stored, whatever it held (refused ones are kept with the
    reason); 75 when it could not be stored, or the command line could not be read, so
    that the mail server keeps it and tries again.
    """
    at = parse_now(now) if now is not None else None
    code = run_deliver(db, list(recipients), at)
    ctx.exit(code)


def run_deliver(db: str, recipients: list[str], at: int | None) -> int:
    import time

    from ..errors import visible
    from ..referee import inbound, service

    try:
        # The store first: one that cannot be opened leaves the message unread, whole in
        # the mail server's queue.
        store, config = service.connect(db)
    except Exception as error:  # noqa: BLE001 -- anything before the commit: try again later
        _say_not_stored(error)
        return EX_TEMPFAIL
    with store:                 # closed on every path below, errors included
        try:
            raw = sys.stdin.buffer.read(inbound.MAX_MESSAGE_BYTES + 1)
            oversized = len(raw) > inbound.MAX_MESSAGE_BYTES
            if oversized:
                raw = raw[:inbound.MAX_MESSAGE_BYTES]
                while sys.stdin.buffer.read(1 << 20):       # let the mail server finish writing
                    pass
            at = int(time.time()) if at is None else at
            stored = service.delivered(store, raw, oversized, recipients, at)
        except Exception as error:  # noqa: BLE001 -- anything before the commit: try again later
            _say_not_stored(error)
            return EX_TEMPFAIL
        try:
            _say_unsent(service.after_storing(store, config, at))
            note = service.stamp_note(store, stored)
            if note is not None:
                click.echo(f"tomis referee deliver: message {stored.id}: {visible(note)}",
                           err=True)
        except Exception as error:  # noqa: BLE001 -- stored: tick finishes the rest
            click.echo(f"tomis referee deliver: stored; the rest is left to tick: "
                       f"{_said(error)}", err=True)
    return 0


def _say_not_stored(error: Exception) -> None:
    click.echo(f"tomis referee deliver: not stored, try again later: {_said(error)}", err=True)


def _said(error: Exception) -> str:
    """An error in one visible line; a project error with its place (the store's path)."""
    from ..errors import TomisError, visible

    return error.located() if isinstance(error, TomisError) else visible(str(error))


@referee.command()
@click.argument("db", type=STORE_PATH)
@_now_option
def tick(db, now):
    """Send due reminders, end games whose time ran out, retry mail not yet sent."""
    from ..referee import service

    report = service.tick(db, parse_now(now))
    _say_unsent(report.failures or [])
    for failed in report.unsettled:
        click.echo(f"not rated or paired yet (an error, tried again next tick): {failed}",
                   err=True)
    click.echo(f"processed {report.processed}, reminders {report.reminders}, "
               f"time-outs {report.forfeits}, digests {report.digests}, "
               f"unsent {len(report.failures or [])}"
               + (", the organiser's report queued" if report.organiser else ""), err=True)


@referee.command()
@click.argument("db", type=STORE_PATH)
@click.option("--keep-days", "keep_days", default=30, show_default=True, metavar="N",
              type=click.IntRange(0), help="Keep the bodies of messages this many days.")
@_now_option
def prune(db, keep_days, now):
    """Drop old message bodies the referee no longer needs (tick does it once a day).

    Kept: every message's Message-ID or digest and what became of it, the From and
    Subject of refused ones, the newest message each player got in each game, and
    everything of the last N days. The space is given back to the file system."""
    from ..referee import service

    report = service.prune(db, parse_now(now), keep_days)
    click.echo(f"pruned {report.inbox} message(s) in, {report.outbox} out; "
               f"{report.freed} page(s) given back", err=True)


# --------------------------------------------------------------------------- the organiser

def _db(command):
    return click.argument("db", type=STORE_PATH)(command)


def _number(command):
    return click.argument("number", metavar="N", type=click.IntRange(1))(command)


def _reason(command):
    return click.option("--reason", required=True, metavar="TEXT",
                        help="Why, in one line: both players read it, the record keeps it.")(command)


def _clock(now: str | None) -> int:
    import time

    return int(time.time()) if now is None else parse_now(now)


@referee.command()
@_db
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
@click.option("--all", "every", is_flag=True, help="Finished games too, with their results.")
@_now_option
def games(db, as_json, every, now):
    """List the games: number, players, to act, clocks, last action, waiting since."""
    import json

    from ..referee import organiser

    found = organiser.games(db, _clock(now), every=every)
    for summary in found:
        click.echo(json.dumps(summary.to_json()) if as_json else _games_line(summary))
    if not found and not as_json:
        click.echo("no games" + ("" if every else " in play (--all shows finished ones)"),
                   err=True)


def _games_line(summary) -> str:
    from ..errors import visible
    from ..notation.clock import describe_duration, format_stamp

    players = f"{visible(summary.white)} - {visible(summary.black)}"
    if summary.over:
        state = f"ended {summary.result}" + (f" {visible(summary.ended)}" if summary.ended else "")
    else:
        state = f"{summary.to_act} to act"
    clocks = "no clocks" if summary.clocks is None else "clocks " + " / ".join(
        describe_duration(left) if left >= 0 else "none left" for left in summary.clocks)
    last = (f"action {summary.actions} {summary.last_action}" if summary.last_action
            else "no action yet")
    return (f"#{summary.number}  {players}  {state}  {clocks}  {last}  "
            f"since {format_stamp(summary.last_change)}")


@referee.command()
@_db
@_number
@_now_option
def show(db, number, now):
    """The board and clocks of game N."""
    from ..referee import organiser

    click.echo(organiser.show(db, number, _clock(now)))


@referee.command()
@_db
@_number
@click.option("-o", "output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the record to FILE (atomically) instead of standard output.")
def export(db, number, output):
    """The record of game N, without the private conditional lines."""
    from ..referee import organiser

    text = organiser.export(db, number)
    if output is None:
        click.echo(text, nl=False)
    else:
        from ..util import safefile

        safefile.atomic_write(output, text)
        click.echo(f"wrote game {number} to {output}", err=True)


@referee.command()
@_db
@_number
@click.argument("side", type=click.Choice(["white", "black"]))
@click.argument("player", metavar='"NAME <ADDR>"')
@_now_option
def address(db, number, side, player, now):
    """Register a new name and address for one side of game N; that address is told."""
    from ..referee import organiser

    failures = organiser.change_address(db, number, organiser.side_of(side), player, _clock(now))
    click.echo(f"game {number}: {side} is now {player}", err=True)
    _say_unsent(failures)


@referee.command()
@_db
@_number
@click.argument("result", type=click.Choice(["1-0", "0-1", "1/2-1/2"]))
@_reason
@_now_option
def adjudicate(db, number, result, reason, now):
    """End game N with RESULT (Termination adjudication); both players are told."""
    from ..referee import organiser

    _say_unsent(organiser.adjudicate(db, number, result, reason, _clock(now)))
    click.echo(f"game {number}: {result}, adjudicated", err=True)


@referee.command()
@_db
@_number
@click.argument("side", type=click.Choice(["white", "black"]))
@click.argument("duration", metavar="DURATION")
@_reason
@_now_option
def credit(db, number, side, duration, reason, now):
    """Give SIDE of game N more time, DURATION like 90m, 6h, 2d or 1d12h; both players
    are told, the record keeps it ([%credit SIDE DURATION] and the reason)."""
    from ..referee import organiser

    _say_unsent(organiser.credit(db, number, organiser.side_of(side), duration, reason, _clock(now)))
    click.echo(f"game {number}: {side} given {duration}", err=True)


@referee.command()
@_db
@_number
@_reason
@_now_option
def abort(db, number, reason, now):
    """End game N without a result (Termination abandoned); both players are told."""
    from ..referee import organiser

    _say_unsent(organiser.abort(db, number, reason, _clock(now)))
    click.echo(f"game {number}: aborted", err=True)


@referee.command()
@_db
@_number
@_now_option
def resend(db, number, now):
    """Send each player of game N the last message they were sent, again."""
    from ..referee import organiser

    _say_unsent(organiser.resend(db, number, _clock(now)))
    click.echo(f"game {number}: the last messages queued again", err=True)


@referee.command()
@_db
@click.option("--attempts", "every_try", is_flag=True,
              help="Under each message, every try: when, and the server's answer.")
def outbox(db, every_try):
    """The messages not sent: tries, why, the next try or when it was given up."""
    from ..errors import visible
    from ..notation.clock import format_stamp
    from ..referee import organiser

    waiting = organiser.outbox(db)
    for item in waiting:
        why = visible(item.error) if item.error else "not tried yet"
        if item.failed_at is not None:
            when = f"  given up {format_stamp(item.failed_at)}"
        elif item.next_try is not None:
            when = f"  next try {format_stamp(item.next_try)}"
        else:
            when = ""
        click.echo(f"{item.id}  game {item.game}  to {item.to}  queued {format_stamp(item.queued_at)}"
                   f"  tries {item.attempts}{when}  {why}")
        for attempt in item.tries if every_try else ():
            answer = visible(attempt.error) if attempt.error is not None else "sent"
            click.echo(f"    tried {format_stamp(attempt.at)}  {answer}")
    if not waiting:
        click.echo("the outbox is empty: every message was sent", err=True)


@referee.command()
@_db
def rejected(db):
    """The messages refused, and why."""
    from ..notation.clock import format_stamp
    from ..referee import organiser

    refused = organiser.rejected(db)
    for item in refused:
        game = f"game {item.game}" if item.game is not None else "no game"
        click.echo(f"{item.id}  {format_stamp(item.stored_at)}  {game}  from {item.sender or '?'}"
                   f"  {item.subject!s}  -- {item.reason}")
    if not refused:
        click.echo("no message was refused", err=True)


@referee.command()
@_db
@_club_options
def settings(db, **values):
    """Change the club's settings; with no option, print them."""
    from ..errors import visible
    from ..referee import organiser

    for shown in organiser.settings(db, values):
        click.echo(f"{shown.name}: {visible(shown.value) if shown.value else '(not set)'}")


@referee.command()
@_db
@click.option("--json", "as_json", is_flag=True, help="One JSON object, a list for each kind.")
@_now_option
def alerts(db, as_json, now):
    """What needs a person: bounces, stalled games, stuck, refused and dropped messages."""
    import json

    from ..referee import organiser

    found = organiser.alerts(db, _clock(now))
    if as_json:
        click.echo(json.dumps(found.to_json()))
    else:
        click.echo("\n".join(found.lines()))


# --------------------------------------------------------------------------- mailboxes

def _mailbox_options(command):
    command = click.option("--imap", "imap_place", metavar="URL",
                           help="An IMAP folder, imaps://USER@HOST[:PORT]/FOLDER, read-only; "
                                "the password from TOMIS_IMAP_PASSWORD.")(command)
    return click.option("--maildir", type=click.Path(file_okay=False), metavar="DIR",
                         help="A Maildir on this host; each message taken moves to cur/ "
                              "with the S flag.")(command)


def _mailbox(maildir: str | None, imap_place: str | None):
    from ..referee.fetching import Mailbox

    if (maildir is None) == (imap_place is None):
        raise click.UsageError("give one of --maildir DIR or --imap URL")
    if imap_place is not None:
        from ..mail.imap import parse_place

        parse_place(imap_place)          # a bad URL is told before anything is read
    return Mailbox(maildir, imap_place)


def _log_outcome(outcome) -> None:
    click.echo(f"tomis referee: {outcome.log_line()}", err=True)
    note = outcome.note_line()
    if note is not None:
        click.echo(f"tomis referee: {note}", err=True)


@referee.command()
@_db
@_mailbox_options
@_now_option
def fetch(db, maildir, imap_place, now):
    """Take every new message of a Maildir or an IMAP folder once, as deliver would."""
    from ..referee import fetching

    mailbox = _mailbox(maildir, imap_place)
    at = None if now is None else parse_now(now)
    report = fetching.fetch(db, mailbox, fetching.host_clock if at is None else (lambda: at),
                            log=_log_outcome)
    _say_unsent(report.failures or [])
    click.echo(f"taken {report.taken}", err=True)


@referee.command("run")
@_db
@_mailbox_options
@click.option("--every", default="1m", show_default=True, metavar="DURATION",
              help="Time between two rounds of fetch and tick, like 30s, 5m or 1h.")
@click.option("--pages", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the status pages (as tomis referee page) to DIR after every change.")
def run_command(db, maildir, imap_place, every, pages):
    """Fetch and tick in a loop; stop on SIGTERM or SIGINT after the message in hand.

    One line per message on standard error; fit to run under systemd (docs/REFEREE.md).
    """
    from ..referee import daemon
    from ..referee.durations import parse_interval
    from ..referee.service import connect

    every = parse_interval(every, "--every")
    mailbox = _mailbox(maildir, imap_place)
    connect(db)[0].close()                    # a missing store is told at once, not each round
    if maildir is not None:
        from ..referee.fetching import check_maildir

        check_maildir(maildir)
    refresh = None
    if pages is not None:
        from ..referee import pages as status_pages

        refresh = lambda: status_pages.write(db, pages)    # noqa: E731 -- after every change

    stop = daemon.Stopper()
    stop.install()
    say = lambda text: click.echo(f"tomis referee: {text}", err=True)   # noqa: E731
    say(f"running on {db}, every {every:g} s; SIGTERM or SIGINT stops")
    daemon.run(db, mailbox, every, stop, say, _log_outcome, refresh)
    say(f"stopped ({stop.signal_name or 'asked'}); every message taken is stored")


@referee.command()
@_db
@click.option("-o", "output", required=True, type=click.Path(file_okay=False), metavar="DIR",
              help="The folder of the pages (made if missing).")
@_now_option
def page(db, output, now):
    """Write the status pages: index.html (games, standings, crosstable) and game-N.html."""
    from ..referee import pages

    written = pages.write(db, output, None if now is None else parse_now(now))
    click.echo(f"wrote {len(written)} page(s) to {output}", err=True)


# --------------------------------------------------------------------------- players

@referee.command()
@_db
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
@_now_option
def players(db, as_json, now):
    """List the club's players: name, address, rating, games, leave taken this year."""
    import json

    from ..errors import visible
    from ..referee import organiser

    found = organiser.players(db, _clock(now))
    for player in found:
        if as_json:
            click.echo(json.dumps(player.as_json()))
            continue
        waiting = "" if player.approved else "  (waiting for approval)"
        leave = f", leave {player.leave_days_used}d this year" if player.leave_days_used else ""
        click.echo(f"{visible(player.name)} <{visible(player.address)}>  "
                   f"{player.rating:.0f} \u00b1 {2 * player.deviation:.0f}  "
                   f"games {player.games_in_play} in play, {player.games} in all{leave}{waiting}")
    if not found and not as_json:
        click.echo("no players", err=True)


@referee.group(cls=RefereeGroup)
def player():
    """Register and change the club's players."""


@player.command("add")
@_db
@click.argument("player_text", metavar='"NAME <ADDR>"')
@click.option("--rating", type=float, help="Glicko-2 rating (default 1500).")
@click.option("--deviation", type=float, help="Its deviation (default 350).")
@click.option("--volatility", type=float, help="Its volatility (default 0.06).")
@_now_option
def player_add(db, player_text, rating, deviation, volatility, now):
    """Register a player."""
    from ..referee import organiser

    added = organiser.add_player(db, player_text, organiser.Glicko(rating, deviation, volatility),
                                 _clock(now))
    click.echo(f"added {added.name} <{added.address}>")


@player.command("address")
@_db
@click.argument("name")
@click.argument("address")
def player_address(db, name, address):
    """Add ADDRESS to a player's and mail them there from now on (their games too)."""
    from ..referee import organiser

    changed, games = organiser.player_address(db, name, address)
    click.echo(f"{changed.name} is mailed at {changed.address}"
               + (f" (games {', '.join(map(str, games))} too)" if games else ""))


@player.command("rename")
@_db
@click.argument("old")
@click.argument("new")
def player_rename(db, old, new):
    """Call a player by a new name (in their games in play too)."""
    from ..referee import organiser

    click.echo(f"renamed to {organiser.rename_player(db, old, new).name}")


@player.command("approve")
@_db
@click.argument("name")
@_now_option
def player_approve(db, name, now):
    """Approve a player who joined by mail while the club approves new players."""
    from ..referee import organiser

    approved = organiser.approve_player(db, name, _clock(now))
    click.echo(f"approved {approved.name}")
