"""Messages shaped as real mail programs write them, around a record: mutt, neomutt with
format=flowed, s-nail with quoted-printable, GNU mail with base64, Thunderbird's forward
as attachment, and HTML-only replies from Outlook and Gmail.

Written here from what those programs put in a message (headers, attribution lines,
quoting, transfer encodings, HTML markup); not copies of anyone's mail. Not a test
module: the tests import it.
"""

from __future__ import annotations

import base64
import html
import quopri


def quoted(record: str, mark: str = "> ") -> str:
    return "".join(f"{mark}{line}".rstrip() + "\n" for line in record.splitlines())


def _headers(sender: str, agent: str, content_type: str, encoding: str, number: int = 1,
             to: str = "Ana <ana@example.org>") -> str:
    return (f"From: {sender}\nTo: {to}\nSubject: Re: Club ladder\n"
            f"Date: Sun, 22 Nov 2026 12:0{number}:00 +0000\n"
            f"Message-ID: <bo-{number}@example.org>\n"
            f"In-Reply-To: <ana-1@example.org>\nReferences: <ana-1@example.org>\n"
            f"{agent}\nMIME-Version: 1.0\nContent-Type: {content_type}\n"
            f"Content-Transfer-Encoding: {encoding}\n\n")


def mutt(old: str, new: str) -> bytes:
    """mutt, bottom-posted under its attribution line, a prose line starting with the
    action, a signature."""
    body = ("On Sat, Nov 21, 2026 at 11:00:00AM +0000, Ana wrote:\n" + quoted(old) +
            "\nG@b1. Draw?\n\n" + new + "\n-- \nBo\n")
    return (_headers("Bo <bo@example.org>", "User-Agent: Mutt/2.2.12 (2023-09-09)",
                     "text/plain; charset=utf-8\nContent-Disposition: inline", "8bit")
            + body).encode("utf-8")


def neomutt_flowed(old: str, new: str) -> bytes:
    """neomutt with text_flowed: soft line breaks end in a space; the prose above the
    record starts with the action."""
    body = ("* Ana <ana@example.org> [2026-11-21 11:00]:\n" + quoted(old, "> ") +
            "\nG@b1, and I offer a draw if you would rather spend the winter on \n"
            "something else than this ladder game. \nBo\n\n" + new)
    return (_headers("Bo <bo@example.org>", "User-Agent: NeoMutt/20231103",
                     "text/plain; charset=utf-8; format=flowed", "8bit", 2)
            + body).encode("utf-8")


def snail_qp(old: str, new: str) -> bytes:
    """s-nail: quoted-printable UTF-8 (the record holds a non-ASCII name), top-posted."""
    body = ("G@b1 (=) — à toi, Zoë.\n\n" + new + "\nZoë <zoe@example.org> wrote in\n"
            " <ana-1@example.org>:\n\n" + quoted(old) + "\n--steffen\n")
    encoded = quopri.encodestring(body.encode("utf-8")).decode("ascii")
    return (_headers("Bo <bo@example.org>", "User-Agent: s-nail v14.9.24",
                     "text/plain; charset=utf-8", "quoted-printable", 3) + encoded).encode("ascii")


def gnu_mail_base64(old: str, new: str) -> bytes:
    """GNU Mailutils' mail: a base64 body, 76 characters a line, the old record quoted."""
    body = ("Here is my move.\n\n" + new + "\n" + quoted(old)).encode("utf-8")
    encoded = base64.encodebytes(body).decode("ascii")
    return (_headers("Bo <bo@example.org>", "X-Mailer: mail (GNU Mailutils 3.17)",
                     "text/plain; charset=UTF-8", "base64", 4) + encoded).encode("ascii")


def thunderbird_forward(inner: bytes) -> bytes:
    """Thunderbird's default "forward as attachment": an empty text part and an .eml."""
    return (b"From: Ana <ana@example.org>\nTo: Carl <carl@example.net>\n"
            b"Subject: Fwd: Re: Club ladder\nMessage-ID: <tb-fwd@example.org>\n"
            b"Date: Mon, 23 Nov 2026 11:30:00 +0000\nUser-Agent: Mozilla Thunderbird\n"
            b"MIME-Version: 1.0\n"
            b"Content-Type: multipart/mixed;\n boundary=\"------------tb0123\"\n\n"
            b"This is a multi-part message in MIME format.\n"
            b"--------------tb0123\nContent-Type: text/plain; charset=UTF-8; format=flowed\n"
            b"Content-Transfer-Encoding: 7bit\n\n\n"
            b"--------------tb0123\nContent-Type: message/rfc822; charset=UTF-8;\n"
            b" name=\"Re Club ladder.eml\"\nContent-Disposition: attachment;\n"
            b" filename=\"Re Club ladder.eml\"\n\n" + inner + b"\n--------------tb0123--\n")


def mutt_forward(inner: bytes, forwarder: str = "Ana <ana@example.org>") -> bytes:
    """mutt with mime_forward=yes: the forwarder's text, then the message inline."""
    return (f"From: {forwarder}\nTo: Carl <carl@example.net>\nSubject: Fwd: Re: Club ladder\n"
            "Message-ID: <fwd-1@example.org>\nDate: Mon, 23 Nov 2026 11:00:00 +0000\n"
            "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"mutt-b1\"\n"
            "Content-Disposition: inline\n\n"
            "--mutt-b1\nContent-Type: text/plain; charset=us-ascii\nContent-Disposition: inline\n\n"
            "Carl, could you take over this game for me?\n\n"
            "--mutt-b1\nContent-Type: message/rfc822\nContent-Disposition: inline\n\n"
            ).encode("ascii") + inner + b"\n--mutt-b1--\n"


def _html_lines(text: str, tag: str = "p", attributes: str = "") -> str:
    return "".join(f"<{tag}{attributes}>{html.escape(line) or '&nbsp;'}</{tag}>\n"
                   for line in text.splitlines())


def outlook_html(old: str, new: str) -> bytes:
    """Outlook: HTML only, a paragraph a line, the old record unquoted below its header
    block."""
    page = ("<html xmlns:o=\"urn:schemas-microsoft-com:office:office\"><head>"
            "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">"
            "<style><!-- p.MsoNormal {margin:0cm;} --></style></head>"
            "<body lang=\"EN-GB\"><div class=\"WordSection1\">\n"
            "<p class=\"MsoNormal\">G@b1. Draw?</p>\n<p class=\"MsoNormal\">&nbsp;</p>\n"
            + _html_lines(new, "p", " class=\"MsoNormal\"") +
            "<div style=\"border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm\">"
            "<p class=\"MsoNormal\"><b>From:</b> Ana &lt;ana@example.org&gt;<br>"
            "<b>Sent:</b> Saturday, 21 November 2026 11:00<br><b>To:</b> Bo<br>"
            "<b>Subject:</b> Club ladder</p></div>\n"
            + _html_lines(old, "p", " class=\"MsoNormal\"") + "</div></body></html>\n")
    return (_headers("Bo <bo@example.org>", "X-Mailer: Microsoft Outlook 16.0",
                     "text/html; charset=\"utf-8\"", "8bit", 5) + page).encode("utf-8")


def gmail_html(old: str, new: str) -> bytes:
    """Gmail's HTML-only reply: <br> line ends, the old record in a gmail_quote
    blockquote."""
    def lines(text: str) -> str:
        return "<br>".join(html.escape(line) for line in text.splitlines()) + "<br>"

    page = ("<div dir=\"ltr\">G@b1. Draw?<br><br>" + lines(new) + "</div><br>"
            "<div class=\"gmail_quote\"><div dir=\"ltr\" class=\"gmail_attr\">On Sat, 21 Nov "
            "2026 at 11:00, Ana &lt;<a href=\"mailto:ana@example.org\">ana@example.org</a>&gt;"
            " wrote:<br></div><blockquote class=\"gmail_quote\" style=\"margin:0px 0px 0px "
            "0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex\">"
            + lines(old) + "</blockquote></div>\n")
    return (_headers("Bo <bo@example.org>", "X-Gm-Message-State: AOJu0Yx",
                     "text/html; charset=\"UTF-8\"", "quoted-printable", 6)
            + quopri.encodestring(page.encode("utf-8")).decode("ascii")).encode("ascii")
