"""The reply for an action: what the opponent reads, as one message ready to send.

:func:`compose` builds it with :class:`email.message.EmailMessage` under
``email.policy.SMTP``: the subject ``Tomis: Ana vs Bo — action 3 (G@b1)``; a plain-text
body with the last action and its combat, the board, the clocks (when the game has a
``TimeControl``), an open draw offer, the Digest and the record; the record attached as a
``.tgn`` file; ``In-Reply-To`` and ``References`` when the record came from a message.
Every header value goes through :mod:`.headers`.
"""

from __future__ import annotations

import os
from email.message import EmailMessage
from email.utils import format_datetime, localtime, make_msgid

from ..errors import one_line
from .headers import MAILER, POLICY, addresses, bounded_thread, checked_id, domain_of, put_header


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
    from ..notation import digest
    from ..notation.tags import TERMINATION_TAG
    from ..pictures import render

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
    from ..notation import clock, correspondence
    from ..rules.board import SIDE_TITLES

    control = game.tags.get(clock.TIME_CONTROL_TAG)
    if not control:
        return []
    ran = correspondence.check(game, correspondence.read_facts(game)).clock
    if ran is None:
        return []
    lines = [f"Clocks ({control}) after action {len(game.nodes)}:"]
    for side in (0, 1):
        left = ran.left[side]
        lines.append(f"  {SIDE_TITLES[side]}: "
                     + (f"{clock.describe_duration(left)} left" if left >= 0 else "no time left"))
    to_act = _side_to_act(game)
    if to_act is not None and ran.since is not None and ran.left[to_act] >= 0:
        lines.append(f"  {SIDE_TITLES[to_act]} is to act; its time runs out at "
                     f"{clock.format_stamp(ran.deadline(to_act))}")
    return lines


def draw_offer_lines(game) -> list[str]:
    """The draw the last action offers (R23), while it stands: until the next action."""
    from ..rules.board import SIDE_TITLES

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
    message = EmailMessage(policy=POLICY)
    put_header(message, "From", addresses(sender, "the sender", single=True))
    put_header(message, "To", addresses(to, "the address to send to"))
    put_header(message, "Subject", subject(game))
    put_header(message, "Date", format_datetime(date or localtime()))
    put_header(message, "Message-ID", checked_id(make_msgid(domain=domain_of(sender)), "its own id"))
    if in_reply_to:
        put_header(message, "In-Reply-To", checked_id(in_reply_to, "In-Reply-To"))
        thread = [checked_id(ref, "References") for ref in references if ref != in_reply_to]
        put_header(message, "References", " ".join(bounded_thread(thread + [in_reply_to])))
    put_header(message, "X-Mailer", MAILER)
    body = body_text(game, record_text)
    message.set_content(body, cte=_transfer_encoding(body))
    message.add_attachment(record_text, subtype="plain", filename=attachment_name,
                           cte=_transfer_encoding(record_text))
    return message


def _transfer_encoding(text: str) -> str:
    """7bit for ASCII; quoted-printable for accented names, so the message stays 7-bit
    (the email package would choose raw 8bit, which a server may refuse)."""
    return "7bit" if text.isascii() else "quoted-printable"


def attachment_name(record_path: str) -> str:
    """The record's own file name when it is a .tgn file, else ``game.tgn``. A name
    holding an encoded word (``=?``) is not used either: the email package decodes it
    in the Content-Disposition header, and a saved attachment may bear any name."""
    base = os.path.basename(record_path)
    usable = base.lower().endswith(".tgn") and base.isprintable() and "=?" not in base
    return base if usable else "game.tgn"
