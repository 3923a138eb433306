"""The mail commands: ``send``, ``inbox``, ``extract``, and what ``move --mail --to --send``
does after the move (:class:`MoveMail`).

The move is always written before any mail is composed or sent: a failure here leaves
the record saved and says how to send it again (``tomis send``). Only click (and the
standard library's os and sys) at module level; tomis.mail and tomis.mailout load inside
the commands.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import click

from .base import EXIT_INVALID, EXIT_USAGE, Failure
from .files import (
    OUTPUT_PATH, imap_password, is_mailbox, load_game, load_games, located, message_option, no_game_error,
    pinned_and_locked, read_record, refuse_a_non_file, refuse_unless_earlier, shown, write_over,
)
from .output import echo_json, echo_record, is_terminal

SECURITY_MODES = ("starttls", "tls", "none")     # as tomis.mailout, which loads on use


# --------------------------------------------------------------------------- after a move

class MoveMail:
    """``move --mail OUT --to ADDR --send``: checked before the move, done after it."""

    def __init__(self, file: str, mail_out: str | None, to: str | None, send: bool,
                 dry_run: bool, check_sidecar: bool = True):
        self.file, self.mail_out, self.to, self.send = file, mail_out, to, send
        wanted = mail_out is not None or send
        if wanted and dry_run:
            raise click.UsageError("--dry-run writes nothing, so it cannot go with --mail or --send")
        if to is not None and not wanted:
            raise click.BadParameter("--to is the address for --mail or --send", param_hint="--to")
        if mail_out is not None and file != "-" and _same_file(mail_out, file):
            raise click.BadParameter("the message would be written over FILE, which keeps the "
                                     "record; name another file", param_hint="--mail")
        self.wanted = wanted
        if wanted:
            self._check_before_the_move(check_sidecar)

    def _check_before_the_move(self, check_sidecar: bool) -> None:
        """What can be known wrong before the move is refused before it, so that a typo in
        --to or a missing folder never leaves a saved move and no message."""
        from ..outgoing import headers
        from ..outgoing import sending
        from ..outgoing.sidecar import Sidecar

        if self.to is not None:
            try:
                headers.addresses(self.to, "the address to send to")
            except headers.MailError as error:
                raise click.BadParameter(error.message, param_hint="--to") from None
        if self.file != "-" and check_sidecar:
            # Anyone may have written the remembered facts: refused before the move, so
            # that a crafted file leaves the record as it was.
            Sidecar.load(self.file)
        if self.mail_out is not None:
            folder = os.path.dirname(os.path.abspath(self.mail_out))
            if not os.path.isdir(folder):
                raise click.BadParameter(f"no folder {shown(folder)} to write the message in",
                                         param_hint="--mail")
        settings = sending.smtp_settings()
        if settings.sender is None:     # the settings, not the command line: no usage block
            error = headers.MailError(f"no sender address for --mail/--send: set "
                                      f"{sending.ENV['from']} or from = in [smtp] of "
                                      f"{settings.source}")
            raise Failure(located(error, shown(self.file)), EXIT_USAGE)

    def after(self, step) -> None:
        if step.target != step.file and not step.dry_run:
            # Written elsewhere than FILE: the sidecar goes beside the record written.
            self.file = step.target
            if not self.wanted:
                remember_reply(step.target, step.origin)
        if not self.wanted:
            return
        from ..errors import TomisError

        try:
            message, address = compose_reply(self.file, step.game.record, step.new_text,
                                             step.origin, self.to)
        except TomisError as error:
            raise _not_sent(self.file, error, "no message was written",
                            f"tomis send {self.file} --to ADDRESS") from None
        if self.mail_out is not None:
            try:
                write_message(self.mail_out, message)
            except TomisError as error:
                raise _not_sent(self.file, error, "the message was not written",
                                f"tomis send {self.file} --to ADDRESS") from None
            click.echo(f"{shown(self.mail_out)}: message to {address} written", err=True)
        if self.send:
            again = self.mail_out if self.mail_out is not None else self.file
            send_now(message, lambda error: _not_sent(
                self.file, error, "the message was not sent", f"tomis send {again}"))


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:             # one of them does not exist yet
        return os.path.abspath(one) == os.path.abspath(other)


def _not_sent(file: str, error, what: str, again: str) -> Failure:
    """The move is saved; say so, why the mail part failed, and the command that retries."""
    from ..errors import TomisError

    saved = "the move is saved" if file != "-" else "the move was written to stdout"
    wrapped = TomisError(f"{saved}, but {what}: {error.message} -- once that is fixed: {again}")
    wrapped.path = error.path or shown(file)
    return Failure(wrapped, EXIT_INVALID)


def compose_reply(record_path: str, game, record_text: str, origin, to: str | None):
    """The message for ``game`` and its address; remembers the address and thread beside
    the record (not for stdin). Raises MailError when no address or sender is known, or
    the message's Reply-To (else From) is not one address; says in a note which ids of
    the message's thread were left out."""
    from ..outgoing import reply
    from ..outgoing import headers
    from ..outgoing import sending
    from ..outgoing.sidecar import Sidecar

    settings = sending.smtp_settings()
    sidecar = Sidecar() if record_path == "-" else Sidecar.load(record_path)
    address = to or sidecar.to or _origin_address(origin)
    if address is None:
        raise headers.MailError("no address to send to: give --to ADDRESS (it is remembered "
                                "for this game)")
    if settings.sender is None:
        raise headers.MailError(f"no sender address: set {sending.ENV['from']} or from = in "
                                f"[smtp] of {settings.source}")
    if origin is not None and origin.message_id:
        thread = headers.thread_of(origin.message_id, origin.references)
        _say_what_was_dropped(record_path, thread)
        sidecar.in_reply_to, sidecar.references = thread.in_reply_to, list(thread.references)
    sidecar.to = address
    message = reply.compose(game, record_text, sender=settings.sender, to=address,
                              attachment_name=reply.attachment_name(record_path),
                              in_reply_to=sidecar.in_reply_to,
                              references=tuple(sidecar.references))
    if record_path != "-":
        sidecar.save(record_path)
    return message, address


def remember_reply(record_path: str, origin) -> None:
    """Keep the address and thread of the message ``origin`` beside the record written from
    it (``RECORD.mail.json``), so that the next ``move --mail`` or ``send`` answers its
    sender. A message without a usable address leaves the file as it was, with a note."""
    from ..outgoing import headers
    from ..outgoing.sidecar import Sidecar
    from ..errors import TomisError, visible

    if origin is None or record_path == "-":
        return
    try:
        sidecar = Sidecar.load(record_path)
        address = _origin_address(origin)
        if address is None:
            return
        sidecar.to = address
        if origin.message_id:
            thread = headers.thread_of(origin.message_id, origin.references)
            sidecar.in_reply_to, sidecar.references = thread.in_reply_to, list(thread.references)
        sidecar.save(record_path)
    except TomisError as error:
        click.echo(visible(f"{shown(record_path)}: note: the reply address was not kept: "
                           f"{error.message}"), err=True)
        return
    click.echo(visible(f"{shown(Sidecar.path_for(record_path))}: replies go to "
                       f"{address}"), err=True)


def _origin_address(origin) -> str | None:
    from ..outgoing import headers

    if origin is None or origin.reply_to is None:
        return None
    return headers.one_address(origin.reply_to, "the Reply-To of the message")


def _say_what_was_dropped(record_path: str, thread) -> None:
    if thread.dropped_id is not None:
        click.echo(f"{shown(record_path)}: note: the message's Message-ID {thread.dropped_id!r} "
                   "is not a message id (RFC 5322); the reply is written without In-Reply-To "
                   "and References", err=True)
    if thread.dropped_references:
        click.echo(f"{shown(record_path)}: note: {thread.dropped_references} item(s) of the "
                   "message's References are not message ids (RFC 5322) and were left out "
                   "of the reply's", err=True)


def write_message(path: str, message) -> None:
    """Atomically, like a record. The message is 7-bit ASCII (non-ASCII text is encoded by
    the email package), so safefile's UTF-8 text writer stores exactly its bytes."""
    from ..outgoing import headers
    from ..util import safefile

    safefile.atomic_write(path, headers.message_bytes(message).decode("ascii"))


def send_now(message, failed, security: str | None = None, data: bytes | None = None) -> None:
    """Send with the configured server or program, to the message's own To and Cc;
    ``failed(error)`` gives the Failure to raise; ``security`` overrides the settings
    when not None. ``data``: the message's bytes as saved, sent as they are (``message``
    is those bytes read)."""
    from ..outgoing import headers
    from ..outgoing import sending
    from ..errors import visible

    try:
        settings = sending.smtp_settings(security=security)
        sending.envelope(message)          # a message that cannot be sent asks no password
        recipients = sending.send(message if data is None else data, settings,
                                  smtp_password(settings))
    except headers.MailError as error:
        raise failed(error) from None
    click.echo(visible(f"sent to {', '.join(recipients)}: {message['Subject']}"), err=True)


def smtp_password(settings) -> str | None:
    """From TOMIS_SMTP_PASSWORD, else asked on the terminal; never from argv or a file."""
    from ..outgoing import headers
    from ..outgoing import sending

    if not settings.user or settings.sendmail:     # a local program logs in by itself
        return None
    password = os.environ.get(sending.PASSWORD_ENV)
    if password is not None:
        return password
    if not is_terminal(sys.stdin):
        raise headers.MailError(f"no password for {settings.user}: set "
                                f"{sending.PASSWORD_ENV} or run tomis on a terminal")
    return click.prompt(f"SMTP password for {settings.user} at {settings.host}",
                        hide_input=True, err=True)


# --------------------------------------------------------------------------- commands

@click.command()
@click.argument("file", type=click.Path())
@click.option("--to", "to", metavar="ADDR",
              help="The address, for a record (remembered for this game).")
@click.option("--security", "security", type=click.Choice(SECURITY_MODES), default=None,
              help="Override the setting: starttls (port 587, the default), tls (TLS from "
                   "the first byte, port 465) or none (only for a server on this machine).")
@click.option("--starttls/--no-starttls", "starttls", default=None,
              help="The same as --security starttls / --security none.")
def send(file, to, security, starttls):
    """Send FILE: a message written by move --mail, or a record (composed again, to --to or
    the address remembered for its game). SMTP settings: TOMIS_SMTP_* or the config file
    (docs/MAIL.md); with sendmail = PATH set, the message goes to that program instead."""
    if starttls is not None:
        alias = "starttls" if starttls else "none"
        if security not in (None, alias):
            raise click.UsageError(f"--{'' if starttls else 'no-'}starttls means --security "
                                   f"{alias}, not {security}; give one")
        security = alias
    if is_mailbox(file):
        # A mailbox holds the opponent's messages: what is sent is a reply, made by move.
        raise click.UsageError(f"{shown(file)} is a mailbox; send takes a message written "
                               "by move --mail, or a record: to answer a message of it, "
                               "tomis move MAILBOX --message ID ACTION --send")
    saved = _saved_message(file)
    message = None if saved is None else saved.message
    if saved is None:
        from ..errors import TomisError

        source = read_record(file)
        game = load_game(source)           # a tomis.Game; the composer reads its record
        try:
            message, _address = compose_reply(file, game.record, str(game), source.origin, to)
        except TomisError as error:
            raise Failure(located(error, shown(file)), EXIT_INVALID) from None
    elif to is not None:
        raise click.BadParameter("a written message keeps its own To: header", param_hint="--to")
    # A message move --mail saved goes as its bytes are: written again, a header the
    # email package folded once may fold elsewhere, and what was read would not be sent.
    send_now(message, lambda error: Failure(located(_said_not_sent(error), shown(file)),
                                            EXIT_INVALID), security,
             None if saved is None else saved.data)


def _said_not_sent(error):
    """The failure as ``send`` says it: the words ``not sent`` first, then why."""
    from ..errors import TomisError

    wrapped = TomisError(f"not sent: {error.message}")
    wrapped.path = error.path
    return wrapped


@dataclass(frozen=True)
class SavedMessage:
    """A message ``move --mail`` saved: as read, and its bytes."""

    message: object
    data: bytes


def _saved_message(path: str) -> SavedMessage | None:
    """The message in ``path`` when tomis wrote it (``move --mail``), None for a record.

    A message some mail program wrote (the opponent's reply, say) is refused: sending it
    as it is would send someone else's mail again.
    """
    from ..outgoing import headers
    from ..mail import mime
    from ..util import textio
    from ..errors import FileError

    try:
        data = textio.read_bytes(path)
        message = mime.parse_message(data)
    except FileError as error:      # unreadable, or a message past a MIME limit
        raise Failure(located(error, shown(path)), EXIT_USAGE) from None
    if message is None:
        return None
    if str(message.get("X-Mailer", "")) != headers.MAILER:
        raise click.UsageError(f"{shown(path)} is a message tomis did not write; send a "
                               "record (tomis send RECORD) or a message from move --mail")
    return SavedMessage(message, data)


@click.command()
@click.argument("places", nargs=-1, required=True, type=click.Path(), metavar="PLACE...")
@click.option("--me", "me", required=True, metavar="NAME", help="Your name as on the White or Black tag.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"me": NAME, "waiting": [...]} and nothing else on stdout.')
@click.option("--now", "now", hidden=True, help="ISO time to measure waiting from (tests).")
def inbox(places, me, as_json, now):
    """Games waiting for you in PLACE... (folders of records or saved messages, mboxes,
    Maildirs, IMAP folders imaps://USER@HOST/FOLDER, all read-only): the oldest waiting
    first, with the opponent, the action count, how long the action has waited, and
    what to give move (a path, or a mailbox and --message ID). The newest record of each
    game counts, wherever it is: name your Sent folder or your record files too, and the
    games you answered are not listed."""
    from ..errors import visible

    moment = _moment(now)
    newest: dict = {}
    skipped = 0
    for place in places:
        for item in _place_items(place):
            game = _one_game(item)
            if game is None:
                skipped += 1
                continue
            key = _identity(game)
            if key not in newest or _later(game, item, *newest[key]):
                newest[key] = (game, item)
    waiting = [(game, item) for game, item in newest.values() if _my_turn(game, me)]
    waiting.sort(key=lambda pair: pair[1].when or moment)
    if as_json:
        echo_json({"me": me, "waiting": [_inbox_row(game, item, moment) for game, item in waiting]})
    else:
        click.echo(visible(f"{len(waiting)} game(s) waiting for {me}") + (", oldest first" if waiting else ""))
        for game, item in waiting:
            click.echo(visible(_inbox_line(game, item, moment)))      # tags of others' records
    if skipped:
        where = shown(places[0]) if len(places) == 1 else "inbox"
        click.echo(f"{where}: note: {skipped} file(s) or message(s) without a "
                   "readable record were passed over", err=True)


def _place_items(place: str) -> list:
    """Every item of one PLACE; a place that cannot be read at all exits 2."""
    from ..mail import sniff
    from .. import sources
    from ..errors import FileError, TomisError

    if not sniff.is_place(place) and not os.path.lexists(place):   # said as for every missing path
        error = FileError("no such file or folder")
        raise Failure(located(error, shown(place)), EXIT_USAGE)
    try:
        return list(sources.place_items(place, password=imap_password))
    except TomisError as error:
        raise Failure(located(error, shown(place)), EXIT_USAGE) from None


def _moment(now: str | None):
    from datetime import datetime, timezone

    if now is None:
        return datetime.now(timezone.utc)
    try:
        moment = datetime.fromisoformat(now)
    except ValueError:
        raise click.BadParameter(f"{now!r} is not an ISO time", param_hint="--now") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _one_game(item):
    from ..notation import record

    if item.found is None:
        return None
    checked = record.read(str(item.found.text))
    if len(checked) != 1 or checked[0].error is not None:
        return None
    return checked[0].game


def _identity(game) -> tuple:
    from ..rules.position import to_string

    tags = tuple(game.tags.get(name) for name in ("White", "Black", "Event", "Site", "Round", "Date"))
    return tags + (to_string(game.start),)


def _later(game, item, best_game, best_item) -> bool:
    """Is (game, item) a newer record of the game than the best so far?"""
    from datetime import datetime, timezone

    if len(game.nodes) != len(best_game.nodes):
        return len(game.nodes) > len(best_game.nodes)
    return (item.when or datetime.min.replace(tzinfo=timezone.utc)) > (
        best_item.when or datetime.min.replace(tzinfo=timezone.utc))


def _my_turn(game, me: str) -> bool:
    side = game.final.to_move
    if side is None or game.result != "*":
        return False
    tag = ("White", "Black")[side]
    return game.tags.get(tag, "").strip().casefold() == me.strip().casefold()


def _inbox_line(game, item, moment) -> str:
    from ..outgoing import reply

    side = game.final.to_move
    opponent = reply.players(game)[1 - side]
    event = game.tags.get("Event")
    about = f" ({event})" if event not in (None, "", "?") else ""
    waited = _duration(moment - item.when) if item.when else "since an unknown time"
    played = len(game.nodes)
    return (f"  {_for_move(item)}: vs {opponent}{about}, you play "
            f"{('White', 'Black')[side]}, action {played + 1} after {played}, waiting {waited}")


def _for_move(item) -> str:
    """What ``tomis move`` takes for the item: its path, or the mailbox and ``--message``
    (shell-quoted, since a Message-ID may hold any printable character)."""
    import shlex

    if item.message is None:
        return shown(item.path or item.label)
    return f"{shown(item.path)} --message {shlex.quote(item.message)}"


def _inbox_row(game, item, moment) -> dict:
    from ..outgoing import reply

    side = game.final.to_move
    event = game.tags.get("Event")
    return {
        "file": item.path, "message": item.message,
        "white": game.tags.get("White"), "black": game.tags.get("Black"),
        "event": event if event not in ("", "?") else None,
        "you_play": ("white", "black")[side], "opponent": reply.players(game)[1 - side],
        "actions": len(game.nodes),
        "since": item.when.isoformat() if item.when else None,
        "waiting_minutes": max(0, int((moment - item.when).total_seconds() // 60))
        if item.when else None,
    }


def _duration(delta) -> str:
    minutes = max(0, int(delta.total_seconds() // 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min"


@message_option
@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("-o", "--output", "output", type=OUTPUT_PATH, callback=refuse_a_non_file,
              metavar="FILE",
              help="Write the record to this file (new, or an earlier record of the same "
                   "game) and the address to answer beside it (FILE.mail.json), instead of "
                   "printing it.")
def extract(file, output):
    """Print the record found in FILE (a saved message, a mailbox message, pasted mail) in
    canonical form, or keep it with -o game.tgn, which also remembers whom to answer."""
    from ..notation import record

    source = read_record(file)
    checked = load_games(source)
    if not checked:
        raise source.failure(no_game_error())
    for item in checked:
        if item.error is not None:
            raise source.failure(item.error)
    text = record.write_all([item.game for item in checked])
    if output is None or output == "-":
        echo_record(text)
        return
    if len(checked) != 1:
        raise click.BadParameter(f"{source.name} holds {len(checked)} games; -o keeps the "
                                 "record of one game", param_hint="-o")
    with pinned_and_locked(output) as pinned:
        refuse_unless_earlier(output, pinned, checked[0].game)
        write_over(output, text, pinned)
    click.echo(f"{shown(output)}: record written", err=True)
    remember_reply(output, source.origin)


COMMANDS = (send, inbox, extract)     # added to the group in tomis/cli/__init__.py
