"""One message's MIME: measured before it is parsed, the part a record is read from, the
headers a reply needs.

MIME is left to the standard :mod:`email` package (its modern policy), on a message within
:func:`check_bounds` (parts, nesting, header fields, comments; docs/SECURITY.md): a
``.tgn`` attachment is preferred, then the text/plain body, then text derived from
text/html; quoted-printable, base64 and declared charsets are decoded by it, and
``format=flowed`` (RFC 3676) is undone here (:func:`unflow`), since :mod:`email` keeps the
wrapping. :func:`origin_of` keeps the headers a reply needs, as written.

email and html.parser are imported where they are needed: a record file with a letter
outside ASCII comes through here without being a message, and must not pay for them
(docs/PERFORMANCE.md, start-up).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from dataclasses import dataclass, field
from typing import Callable

from ..errors import FileError
from ..util import textio
from .quotes import record_start_line
from .sniff import MAIL_HEADERS, starts_like_a_message

RECORD_SUFFIX = ".tgn"


_VERBATIM = ("7bit", "8bit", "binary")


# --------------------------------------------------------------------------- results

@dataclass(frozen=True)
class Origin:
    """The message a record came from, as far as a reply needs it."""

    message_id: str | None = None
    references: tuple[str, ...] = ()
    reply_to: str | None = None        # Reply-To, else From, as written: where an answer goes
    sender: str | None = None          # From
    subject: str | None = None
    date: datetime | None = None


@dataclass
class Body:
    """The text a record is looked for in, and where it came from."""

    text: str
    what: str                      # for notes: "the text/plain part", "the attachment a.tgn"
    first_line: int | None         # the saved file's line holding text line 1; None if decoded
    notes: list[str] = field(default_factory=list)
    attachment: bool = False       # a .tgn file, which may hold several games


def parse_message(data: bytes):
    """``data`` as an :class:`email.message.EmailMessage` when it starts with mail
    headers, else None (a record, or pasted text)."""
    return _as_message(data)


def _as_message(data: bytes):
    if not starts_like_a_message(data):
        return None
    msg = parse_bounded(data)
    if not any(key.lower() in MAIL_HEADERS for key in msg.keys()):
        return None
    return msg


def parse_bounded(data: bytes):
    """The standard library's parser, with the modern policy (EmailMessage, get_body), on
    a message within :func:`check_bounds`; a parameter list the email package's RFC 2231
    reader cannot parse reads as absent (:func:`reading_policy`)."""
    import email        # 25 ms with its parser and policy: only a message pays it

    check_bounds(data)
    return email.message_from_bytes(data, policy=reading_policy())


_READING_POLICY = None


def reading_policy():
    """``email.policy.default`` whose header parser, where it fails on a value (e.g.
    ``Content-Type: text/plain; a*`` raised IndexError while the message was being
    parsed), reads the value without its parameters, else as empty: the parameters are
    absent, never an internal error. Built on first use (email stays unimported)."""
    global _READING_POLICY
    if _READING_POLICY is None:
        from email import headerregistry, policy    # with the parser: see parse_bounded

        class _Forgiving(headerregistry.HeaderRegistry):
            def __call__(self, name, value):
                try:
                    return super().__call__(name, value)
                except _PARAMETER_FAULTS:
                    pass
                try:
                    return super().__call__(name, str(value).split(";", 1)[0])
                except _PARAMETER_FAULTS:
                    return super().__call__(name, "")

        _READING_POLICY = policy.default.clone(header_factory=_Forgiving())
    return _READING_POLICY


# The shape of a message tomis reads (issues 23 and 38). The standard library parses nesting
# and nested comments by recursion, and a structured header field (addresses, Content-Type,
# ...) in time that grows with the square of its length, so a message is measured on its
# bytes, by regular expressions, before it is parsed; a real reply is far inside every
# bound. Beyond one: a one-line FileError (exit 2).
MAX_PARTS = 1_000              # lines starting "--" and a word: every MIME part has one
MAX_CONTAINERS = 50            # multipart/* and message/* parts (nesting is at most this deep)
MAX_HEADER_LINES = 10_000      # lines of one header field, folds included
MAX_HEADER_BYTES = 256 * 1024  # bytes of one header field, folds included
MAX_COMMENT_DEPTH = 20         # ( ) nested in one header field
# Structured fields (issue 38): on this project's 2-core box the email package took 0.27 s
# for 1,000 '"' after "Content-Type: text/plain;" and 100 s for 60,000, 0.4 s for a 4 KiB
# address field of short words; at these bounds no shape measured took more than 0.1 s.
MAX_MIME_FIELD_BYTES = 1_024   # a Content-Type, -Disposition, -Transfer-Encoding, MIME-Version
MAX_STRUCTURED_BYTES = 2_048   # an address field (about 50 addresses)
MAX_BLANKS = 100               # spaces and tabs in a MIME field, or a Message-ID or Date
MAX_STRUCTURED_TOTAL = 64 * 1024   # all structured fields of a message, parts included
MAX_QUOTES = 100               # '"' in one structured field (50 quoted names)
MAX_ANGLES = 100               # '<' and '>' together in one structured field
MAX_COMMENTS = 20              # '(' in one structured field
MAX_PARAMETERS = 40            # ';' in one MIME field

# The fields the email package (policy.default) parses by their grammar, and those tomis
# reads as addresses; every other field is unstructured text, read in linear time. An id
# or a date is parsed quickly however long (a 20,000-character Message-ID is read, and
# dropped) unless it holds many words: it is bounded by its blanks, not its length.
MIME_FIELDS = frozenset({"content-type", "content-disposition", "content-transfer-encoding",
                         "mime-version"})
ID_FIELDS = frozenset({"message-id", "date", "resent-date", "orig-date"})
STRUCTURED_FIELDS = MIME_FIELDS | ID_FIELDS | frozenset({
    "from", "sender", "reply-to", "to", "cc", "bcc", "resent-from", "resent-sender",
    "resent-to", "resent-cc", "resent-bcc", "delivered-to", "x-original-to"})

_BOUNDARY_LINE = re.compile(rb"^--[^\s-]", re.MULTILINE)
_FIELD = re.compile(rb"^[!-9;-~]+:[^\n]*(?:\n[ \t][^\n]*)*", re.MULTILINE)
_CONTENT_TYPE = re.compile(rb"^content-type:[^\n]*(?:\n[ \t][^\n]*)*", re.MULTILINE | re.IGNORECASE)
_CONTAINER = re.compile(rb"multipart|message", re.IGNORECASE)


def check_bounds(data: bytes) -> None:
    """Refuse, with a :class:`FileError`, a message beyond the limits above."""
    if len(data) > textio.MAX_FILE_BYTES:
        raise FileError(f"this message is larger than {textio.MAX_FILE_BYTES // 2**20} MiB; "
                        "a game record is never that big")
    if len(_BOUNDARY_LINE.findall(data)) > MAX_PARTS:
        raise _beyond(f"more than {MAX_PARTS:,} MIME parts")
    containers = sum(1 for header in _CONTENT_TYPE.finditer(data)
                     if _CONTAINER.search(header.group()))
    if containers > MAX_CONTAINERS:
        raise _beyond(f"more than {MAX_CONTAINERS} multipart or message parts (nested mail)")
    structured = 0
    for header in _FIELD.finditer(data):
        text = header.group()
        name = text[:text.index(b":")].decode("ascii")
        if len(text) > MAX_HEADER_BYTES or text.count(b"\n") >= MAX_HEADER_LINES:
            raise _beyond(f"a header field ({name[:40]}) longer than "
                          f"{MAX_HEADER_BYTES // 1024} KiB or {MAX_HEADER_LINES:,} lines")
        if text.count(b"(") > MAX_COMMENT_DEPTH and _comment_depth(text) > MAX_COMMENT_DEPTH:
            raise _beyond(f"comments nested more than {MAX_COMMENT_DEPTH} deep in a header field")
        if name.lower() in STRUCTURED_FIELDS:
            _check_structured(name, text)
            structured += len(text)
    if structured > MAX_STRUCTURED_TOTAL:
        raise _beyond(f"more than {MAX_STRUCTURED_TOTAL // 1024} KiB of address and MIME "
                      f"header fields")


def _check_structured(name: str, text: bytes) -> None:
    """One structured field within the bounds that keep its parse quick."""
    kind = name.lower()
    mime, ids = kind in MIME_FIELDS, kind in ID_FIELDS
    shown = name[:40]
    most = MAX_MIME_FIELD_BYTES if mime else MAX_STRUCTURED_BYTES
    if len(text) > most and not ids:
        raise _beyond(f"a {shown} header field longer than {most:,} bytes")
    blanks = text.count(b" ") + text.count(b"\t") if ids or mime else 0
    counts = (("blanks", blanks, MAX_BLANKS),
              ("double quotes", text.count(b'"'), MAX_QUOTES),
              ("angle brackets", text.count(b"<") + text.count(b">"), MAX_ANGLES),
              ("comments", text.count(b"("), MAX_COMMENTS),
              ("parameters", text.count(b";") if mime else 0, MAX_PARAMETERS))
    for what, count, limit in counts:
        if count > limit:
            raise _beyond(f"more than {limit} {what} in a {shown} header field")


def _comment_depth(field: bytes) -> int:
    depth = deepest = 0
    for byte in field:
        if byte == 0x28:                       # (
            depth += 1
            deepest = max(deepest, depth)
        elif byte == 0x29 and depth:           # )
            depth -= 1
    return deepest


def _beyond(what: str) -> FileError:
    return FileError(f"this message has {what}; tomis reads no message of that shape "
                     "(docs/SECURITY.md, limits)")


def aware(when: datetime) -> datetime:
    """A Date header without a zone ("-0000") is taken as UTC, so all times compare."""
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def origin_of(msg) -> Origin:
    """The headers a reply needs; a malformed header is simply absent.

    The ids and the address to answer are the sender's words as written (unfolded),
    before the email package decodes any encoded word (a message id never holds one);
    tomis.mailout checks each before it reaches a header.
    """
    def header(name: str):
        try:
            return msg.get(name)
        except Exception:      # a header the email package cannot parse at all
            return None

    def address(name: str) -> str | None:
        value = header(name)
        addresses = getattr(value, "addresses", ()) if value is not None else ()
        return addresses[0].addr_spec if addresses else None

    def written(name: str) -> str | None:
        for key, value in msg.raw_items():
            if key.lower() == name.lower():
                return " ".join(str(value).split()) or None
        return None

    date = getattr(header("Date"), "datetime", None)
    references = tuple((written("References") or "").split())
    subject = str(header("Subject") or "").strip() or None
    reply_to = written("Reply-To") or written("From")
    return Origin(written("Message-ID"), references, reply_to, address("From"), subject, date)


def body_and_origin(msg, name: str, data: bytes | None) -> tuple[Body, Origin]:
    """The part to read and the message a reply answers.

    A forwarded message (a ``message/rfc822`` part: mutt's mime_forward, Thunderbird's
    "forward as attachment") is read, nested ones included, when the forwarder's own
    text holds no record; an inline forward's header block ("Forwarded message", then
    ``From:``) above the record names the sender. Either way the reply goes to the one
    who wrote the record, not to the forwarder. The nesting is bounded by
    :data:`MAX_CONTAINERS` (:func:`check_bounds`, on the outer message's bytes).
    """
    forwarded = _forwarded_part(msg)
    try:
        body = message_body(msg, name, data)
    except FileError:
        if forwarded is None:
            raise
        body = None
    if forwarded is not None and (body is None or (
            not body.attachment and record_start_line(body.text) is None)):
        inner = forwarded.get_content()
        body, origin = body_and_origin(inner, name, None)
        sender = origin.sender or "an unknown sender"
        body.notes.insert(0, f"read the message from {sender} forwarded in this one "
                             f"(the reply goes to its sender)")
        return body, origin
    origin = origin_of(msg)
    inline = _inline_forward(body, origin)
    if inline is not None:
        body.notes.insert(0, f"read the message from {inline.sender} forwarded inline in "
                             f"this one (the reply goes to its sender)")
        return body, inline
    return body, origin


def _forwarded_part(msg):
    """The first ``message/rfc822`` part among the message's own parts, or None."""
    if not msg.is_multipart():
        return None
    try:
        for part in msg.iter_parts():
            if part.get_content_type() == "message/rfc822":
                return part
    except _PARAMETER_FAULTS:
        return None
    return None


# The line each client writes above an inline forward's header block.
_FORWARD_MARK = re.compile(r"^(?:>\s?)*(?:-+ ?Forwarded [Mm]essage\b.*|Begin forwarded message:)\s*$")
_FORWARD_FIELD = re.compile(r"^(?:>\s?)*(From|Reply-To|Subject|Date|To|Cc|Sent):\s*(.*)$",
                            re.IGNORECASE)
_FORWARD_BLOCK_LINES = 12      # a forwarded header block is a handful of lines


def _inline_forward(body: Body, outer: Origin) -> Origin | None:
    """The forwarded message's sender when ``body`` forwards a message inline above the
    record ("---------- Forwarded message ---------", "Begin forwarded message:", mutt's
    "----- Forwarded message from ... -----") and its header block names a ``From``."""
    if body.attachment:
        return None
    start = record_start_line(body.text)
    if start is None:
        return None
    lines = body.text.split("\n")[:start - 1]
    marks = [index for index, line in enumerate(lines) if _FORWARD_MARK.match(line)]
    if not marks:
        return None
    fields: dict[str, str] = {}
    for line in lines[marks[-1] + 1:marks[-1] + 1 + _FORWARD_BLOCK_LINES]:
        field = _FORWARD_FIELD.match(line)
        if field:
            fields.setdefault(field[1].lower(), " ".join(field[2].split()))
    address = fields.get("reply-to") or fields.get("from")
    if not address or "@" not in address:
        return None
    # No thread: the forwarded message's id is not in the text. Its date is the forward's,
    # when the game reached this mailbox.
    return Origin(None, (), address, _address_of(fields.get("from") or address),
                  fields.get("subject") or None, outer.date)


def _address_of(written: str) -> str | None:
    """The addr-spec of ``Name <addr>`` or a bare address, as written."""
    from email.utils import parseaddr    # loaded with the parser by then; kept out of the text path

    return parseaddr(written)[1] or None


def message_body(msg, name: str, data: bytes | None = None) -> Body:
    """The part to read: a ``.tgn`` attachment, else the text/plain body, else the HTML one."""
    try:
        return _record_attachment(msg, name, data) or text_body(msg, name, data)
    except _PARAMETER_FAULTS:
        # The email package's own parser fails on some malformed MIME headers while it
        # chooses parts (issue 23): say so in one line.
        raise FileError("a Content-Type or Content-Disposition header of the message does not "
                        "parse (RFC 2045, 2183, 2231); save the record as a file") from None


def _record_attachment(msg, name: str, data: bytes | None) -> Body | None:
    attachments = [part for part in msg.iter_attachments()
                   if (filename_of(part) or "").lower().endswith(RECORD_SUFFIX)]
    if not attachments:
        return None
    part = attachments[0]
    notes = [f"took the record from the attachment {filename_of(part)}"]
    if len(attachments) > 1:
        notes[0] += f" (the first of {len(attachments)} .tgn attachments)"
    return Body(_part_text(part, name), f"the attachment {filename_of(part)}",
                _verbatim_line(part, data), notes, attachment=True)


def text_body(msg, name: str, data: bytes | None = None,
              read: Callable[[object], str] | None = None) -> Body:
    """The text/plain body, else the text of the HTML one (a line per block, quoted blocks
    marked ``> ``), ``format=flowed`` undone: what a person wrote, as lines.

    ``read(part)`` gives a part's decoded text; by default it is strict, as for a record
    (an undeclared byte that is not UTF-8, a NUL or an overlong line is a
    :class:`FileError`). A reader of replies passes a forgiving one, which may also cut
    the text before the HTML is taken apart. No text part is a :class:`FileError`; a
    MIME header the email package cannot parse raises what it raises (see
    :func:`message_body`).
    """
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        raise FileError("the message has no text part and no .tgn attachment")
    first_line = _verbatim_line(part, data)
    text = _part_text(part, name, first_line) if read is None else read(part)
    notes = []
    kind = part.get_content_subtype()
    if kind == "html":
        text = html_to_text(text)
        notes.append("the message has no text/plain part; read the text of its HTML part "
                     "(line numbers count lines of that text)")
        first_line = None
    elif str(param_of(part, "format", "")).lower() == "flowed":
        text = unflow(text, str(param_of(part, "delsp", "")).lower() == "yes")
        notes.append("undid format=flowed line wrapping (RFC 3676); line numbers count "
                     "lines of the unwrapped text")
        first_line = None
    elif first_line is None:
        notes.append("line numbers count lines of the message's text/plain part, "
                     "not of the saved file")
    if "\ufffd" in text:
        notes.append(f"some bytes of the message do not fit its declared charset "
                     f"{param_of(part, 'charset')!r} and were replaced by U+FFFD")
    return Body(text, f"the text/{kind} part", first_line, notes)


# What the email package's parameter parser (RFC 2231 continuations) raises on some
# malformed values, e.g. ``Content-Disposition: =;filename*0*;filename*`` (issue 23).
_PARAMETER_FAULTS = (IndexError, ValueError, TypeError, LookupError, AttributeError)


def filename_of(part) -> str | None:
    """A part's file name, or None when it has none or its parameters do not parse."""
    try:
        return part.get_filename()
    except _PARAMETER_FAULTS:
        return None


def param_of(part, name: str, default=None):
    """A ``Content-Type`` parameter, or ``default`` when absent or unreadable."""
    try:
        return part.get_param(name, default)
    except _PARAMETER_FAULTS:
        return default


def _part_text(part, name: str, first_line: int | None = None) -> str:
    """A part's decoded text: its declared charset, or strict UTF-8 when it declares none
    (RFC 2045 says US-ASCII then; UTF-8 is its superset and what clients mean)."""
    charset = param_of(part, "charset")
    if charset is None or part.get_content_maintype() != "text":
        data = part.get_payload(decode=True) or b""
        try:
            return textio.decode(data, name)
        except FileError as error:
            if error.line is None or not data or data[:1] == b"\x00":
                raise
            raise _undeclared(error, first_line) from None
    try:
        text = part.get_content()
    except LookupError:
        raise FileError(f"the message declares the charset {str(charset)!r}, which is not "
                        f"known; save the message as UTF-8 text") from None
    # The same limits and line ends as a file: long lines, NUL bytes, CRLF.
    return textio.decode(text.encode("utf-8", "surrogateescape"), name)


def _undeclared(error: FileError, first_line: int | None) -> FileError:
    """A byte that is not UTF-8 in a part without a charset, placed in the saved file."""
    shift = (first_line or 1) - 1
    line = error.line + shift
    what = error.message.split(" at line ")[0]
    return FileError(f"{what} at line {line}, column {error.column} is not UTF-8 and the "
                     f"message declares no charset; save the message as UTF-8",
                     line, error.column)


def _verbatim_line(part, data: bytes | None) -> int | None:
    """The saved file's line where a part stored as-is starts, or None (encoded, or unknown)."""
    if data is None:
        return None
    encoding = str(part.get("Content-Transfer-Encoding", "7bit")).strip().lower()
    if encoding not in _VERBATIM or part.is_multipart():
        return None
    # For a part stored as-is, the "decoded" payload is exactly the bytes in the file.
    stored = part.get_payload(decode=True)
    if not stored or not stored.strip():
        return None
    at = data.find(stored)
    return None if at < 0 else data.count(b"\n", 0, at) + 1


def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 ``format=flowed``: a line ending in a space continues on the next line
    of the same quote depth; space-stuffing is removed; ``-- `` (a signature) never flows.
    Quote marks are written back as ``>`` per level and one space."""
    out: list[str] = []
    # The open paragraph as its pieces, joined once: adding each line to one string made a
    # long flowed body quadratic (issue 23).
    paragraph: list[str] = []
    depth_open = 0

    def flush():
        if paragraph:
            out.append((">" * depth_open + " " if depth_open else "") + "".join(paragraph))
            paragraph.clear()

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        if paragraph and depth != depth_open:
            flush()
        if not paragraph:
            depth_open = depth
        flowed = content.endswith(" ") and content != "-- "
        paragraph.append(content[:-1] if flowed and delsp else content)
        if not flowed:
            flush()
    flush()
    return "\n".join(out)


def html_to_text(html: str) -> str:
    """The text of an HTML body, a line per block, quoted blocks marked ``> ``."""
    parser = _html_text_class()()
    parser.feed(_tags_only(html))
    parser.close()
    parser.end_line()
    return "\n".join(parser.lines) + "\n"


# A "<" that opens no whole tag before the next "<" (issue 23): html.parser took minutes
# on 200 KB of "<p" and raised AssertionError on "<![", so such a "<" is text.
_NOT_A_TAG = re.compile(r"<(?!(?:[A-Za-z/?]|![A-Za-z])[^<>]*>)")


def _tags_only(html: str) -> str:
    """``html`` with complete comments dropped and every other stray ``<`` written ``&lt;``;
    linear: an unclosed comment ends the search for comments."""
    pieces, at = [], 0
    while (start := html.find("<!--", at)) >= 0:
        end = html.find("-->", start + 4)
        if end < 0:
            break
        pieces.append(html[at:start])
        at = end + 3
    pieces.append(html[at:])
    return _NOT_A_TAG.sub("&lt;", "".join(pieces))


def _html_text_class():
    """The HTML-to-text parser, defined on first use (html.parser stays unimported)."""
    from html.parser import HTMLParser

    class _HtmlText(HTMLParser):
        """Text of an HTML mail body: a line per block or <br>, ``> `` per <blockquote> level."""

        BLOCKS = frozenset({"p", "div", "tr", "li", "ul", "ol", "table", "pre", "blockquote",
                            "h1", "h2", "h3", "h4", "h5", "h6", "hr"})
        HIDDEN = frozenset({"style", "script", "head", "title"})

        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.lines: list[str] = []
            self.buffer: list[str] = []
            self.depth = self.pre = self.hidden = 0

        def handle_starttag(self, tag, attrs):
            if tag in self.HIDDEN:
                self.hidden += 1
            elif tag == "br":
                self.end_line(always=True)
            elif tag in self.BLOCKS:
                self.end_line()
                self.depth += tag == "blockquote"
                self.pre += tag == "pre"

        def handle_endtag(self, tag):
            if tag in self.HIDDEN:
                self.hidden = max(0, self.hidden - 1)
            elif tag in self.BLOCKS:
                self.end_line()
                if tag == "blockquote":
                    self.depth = max(0, self.depth - 1)
                if tag == "pre":
                    self.pre = max(0, self.pre - 1)

        def handle_data(self, data):
            if self.hidden:
                return
            if not self.pre:
                self.buffer.append(re.sub(r"[ \t\r\n\f]+", " ", data))
                return
            pieces = data.replace("\r\n", "\n").split("\n")
            for index, piece in enumerate(pieces):
                if index:
                    self.end_line(always=True)
                self.buffer.append(piece)

        def end_line(self, always: bool = False):
            line = "".join(self.buffer)
            if not self.pre:
                line = line.strip(" ")
            self.buffer = []
            if line or always:
                self.lines.append(("> " * self.depth) + line)

    return _HtmlText
