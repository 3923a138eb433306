"""The reply for an action: what the opponent reads, as one message ready to send.

:func:`compose` builds it with :class:`email.message.EmailMessage` under
``email.policy.SMTP``: the subject ``Tomis: Ana vs Bo — action 3 (G@b1)``; a plain-text
body with the last action and its combat, the board, the clocks (when the game has a
``TimeControl``), an open draw offer, the Digest and the record, and the same as an HTML
alternative with the board in a monospace block; the record attached as a ``.tgn`` file; ``In-Reply-To`` and ``References`` when the record came from a message.
The message is built by :func:`tomis.outgoing.message.build_message`, as the referee's
are; every header value goes through :mod:`.headers`.
"""

from __future__ import annotations

import os
from email.message import EmailMessage
from email.utils import format_datetime, localtime

from ..errors import one_line
from ..notation import clock, correspondence, digest
from ..notation.tags import TERMINATION_TAG
from ..pictures import render, words
from ..rules.board import SIDE_TITLES
from . import message as mail_message
from .headers import MAILER, addresses, domain_of


MAX_NAME_IN_SUBJECT = 100       # characters of a player's name in the Subject


def players(game) -> tuple[str, str]:
    """The names on the White and Black tags, or the side's name when a tag is missing."""
    def name(tag: str) -> str:
        value = game.tags.get(tag)
        return value if value not in (None, "", "?") else tag
    return name("White"), name("Black")


def subject(game) -> str:
    """``Tomis: White vs Black — action N (ACTION)`` for the last action of ``game``.

    The names come from the record, which the opponent wrote. A control character in a
    name is shown escaped (``\\x1d``): a header is one line. ``=?`` is written ``= ?``:
    the email package (and every mail program) would decode an RFC 2047 encoded word
    in the Subject, and one can decode to anything, a line break and a header included.
    A name is cut at :data:`MAX_NAME_IN_SUBJECT` characters.
    """
    white, black = (_subject_name(name) for name in players(game))
    if not game.nodes:
        return f"Tomis: {white} vs {black} — new game"
    return f"Tomis: {white} vs {black} — action {len(game.nodes)} ({game.nodes[-1].action})"


def _subject_name(name: str) -> str:
    shown = one_line(name).replace("=?", "= ?")
    return shown if len(shown) <= MAX_NAME_IN_SUBJECT else shown[:MAX_NAME_IN_SUBJECT - 1] + "…"


def body_text(game, record_text: str) -> str:
    """What the opponent reads: the last action and its combat, the board, the clocks and
    an open draw offer, the Digest, the record. Plain ASCII: it survives every mail client."""
    lines = []
    if game.nodes:
        lines += render.report_lines(game.nodes[-1].report, game.final.ply) + [""]
    lines.append(render.position_text(game.final, color=False, result=game.result,
                                      termination=game.tags.get(TERMINATION_TAG, "")))
    situation = clock_lines(game) + draw_offer_lines(game)
    if situation:
        lines += [""] + situation
    lines += ["", f"Digest after action {len(game.nodes)}: {digest.game_digest(game)}",
              "", record_text.rstrip("\n"), ""]
    return "\n".join(lines)


def clock_lines(game) -> list[str]:
    """Each side's time left after the last action, and when the side to act runs out,
    for a game with a TimeControl tag (else nothing): the opponent learns it without
    running tomis."""
    control = game.tags.get(clock.TIME_CONTROL_TAG)
    if not control:
        return []
    ran = correspondence.check(game, correspondence.read_facts(game)).clock
    if ran is None:
        return []
    return words.clock_lines(f"Clocks ({control}) after action {len(game.nodes)}:", ran,
                             _side_to_act(game), indent="  ")


def draw_offer_lines(game) -> list[str]:
    """The draw the last action offers (R23), while it stands: until the next action."""
    to_act = _side_to_act(game)
    if to_act is None or not game.nodes or not getattr(game.nodes[-1], "offer", False):
        return []
    return [f"{SIDE_TITLES[1 - to_act]} offers a draw with this action (=); any action "
            "declines it.",
            f"{SIDE_TITLES[to_act]} accepts with: tomis draw FILE --accept --as "
            f"{SIDE_TITLES[to_act].lower()}"]


def _side_to_act(game) -> int | None:
    """The side to act, or None once the game is over."""
    if game.result != "*" or game.final.is_over:
        return None
    return game.final.to_move


def compose(game, record_text: str, *, sender: str, to: str, attachment_name: str,
            in_reply_to: str | None = None, references: tuple[str, ...] = (),
            date=None) -> EmailMessage:
    """A complete RFC 5322 message carrying ``game`` (its text ``record_text``).

    Raises :class:`MailError` when ``sender`` is not one address, ``to`` not a list of
    addresses (``Name <local@domain>`` or ``local@domain``), or an id of the thread not
    a message id (:func:`thread_of` drops those before they come here).
    """
    # The thread oldest first, the message answered last.
    thread = [ref for ref in references if ref != in_reply_to] + [in_reply_to]
    headers = [("From", addresses(sender, "the sender", single=True)),
               ("To", addresses(to, "the address to send to")),
               ("Subject", subject(game)),
               ("Date", format_datetime(date or localtime())),
               ("Message-ID", mail_message.new_message_id(domain_of(sender))),
               *(mail_message.thread_headers(thread) if in_reply_to else []),
               ("X-Mailer", MAILER)]
    # The HTML alternative shows the board in a monospace block (no PNG: the record is the
    # message's point, and the opponent's own tomis draws it).
    return mail_message.build_message(headers, body_text(game, record_text),
                                      [mail_message.Attachment(attachment_name, record_text)],
                                      mail_message.BoardView(render.board(game.final)))


def attachment_name(record_path: str) -> str:
    """The record's own file name when it is a .tgn file, else ``game.tgn``. A name
    holding an encoded word (``=?``) is not used either: the email package decodes it
    in the Content-Disposition header, and a saved attachment may bear any name."""
    base = os.path.basename(record_path)
    usable = base.lower().endswith(".tgn") and base.isprintable() and "=?" not in base
    return base if usable else "game.tgn"
