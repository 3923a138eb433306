"""Write the mail corpus beside this script: python tests/data/mail/make_mail_corpus.py STAGES

STAGES is a folder holding the `tomis move` output (``L-out3.txt``) and record (``L-3.tgn``)
of each stage of the corpus games (see README.txt here). Each message below is written
by hand after the RFCs (5322, 2045-2047, 3676) and the habits of the client it is named
after; only the transfer encodings (quoted-printable, base64, format=flowed wrapping) are
computed, with the encoders of the standard library, never with the email package that
tomis reads them with. expected.txt and takes.txt are written by hand; this script never
touches them.
"""

from __future__ import annotations

import base64
import quopri
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAGES = HERE / "stages"        # replaced by the command-line argument in main()


def out(game: str, n) -> str:
    return (STAGES / f"{game}-out{n}.txt").read_text(encoding="utf-8")


def rec(game: str, n) -> str:
    return (STAGES / f"{game}-{n}.tgn").read_text(encoding="utf-8")


def quote(text: str, mark: str = "> ") -> str:
    return "".join((mark + line).rstrip() + "\n" if line else mark.rstrip() + "\n"
                   for line in text.splitlines())


def qp(text: str, charset: str = "utf-8") -> str:
    return quopri.encodestring(text.encode(charset)).decode("ascii")


def b64(text: str, charset: str = "utf-8") -> str:
    return base64.encodebytes(text.encode(charset)).decode("ascii")


def flowed(text: str, width: int = 72, delsp: bool = False) -> str:
    """RFC 3676 as Thunderbird writes it: long lines broken after a space, which stays at
    the end of the broken line (with DelSp=yes a space is added there instead)."""
    lines = []
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip(">"))
        prefix, content = line[:depth], line[depth:].lstrip(" ") if depth else line
        if depth:
            prefix += " "
        elif content.startswith((" ", "From ", ">")):
            content = " " + content          # space-stuffing
        while len(prefix) + len(content) > width and " " in content[: width - len(prefix)]:
            cut = content.rfind(" ", 0, width - len(prefix))
            if cut <= 0:
                break
            # With DelSp=yes a space is added at the break (and deleted on reading).
            lines.append(prefix + content[: cut + 1] + (" " if delsp else ""))
            content = content[cut + 1:]
        if not content:
            prefix = prefix.rstrip(" ")
        lines.append(prefix + (content if content == "-- " else content.rstrip(" ")))
    return "\n".join(lines) + "\n"


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


ANA = "Ana Lee <ana@example.org>"
BO = "Bo Berg <bo@example.net>"


def head(sender, to, subject, msgid, date, extra="", reply_to=None, refs=None):
    lines = [f"From: {sender}", f"To: {to}", f"Subject: {subject}",
             f"Date: {date}", f"Message-ID: <{msgid}>"]
    if refs:
        lines += [f"In-Reply-To: <{refs[-1]}>", "References: " + " ".join(f"<{r}>" for r in refs)]
    lines.append("MIME-Version: 1.0")
    return "\n".join(lines) + "\n" + extra


def webmail(msgid: str, date: str, body: str) -> str:
    """Bo's plain UTF-8 message from a web mail program, stored as-is (8bit)."""
    return head(BO, ANA, "Tomis", msgid, date, "Content-Type: text/plain; charset=utf-8\n"
                "Content-Transfer-Encoding: 8bit\n") + "\n" + "Hi,\n\n" + body


def messages() -> dict[str, str | bytes]:
    m: dict[str, str | bytes] = {}
    L1, L2, L3, L4 = out("L", 1), out("L", 2), out("L", 3), out("L", 4)

    # --- Thunderbird: format=flowed, bottom-posted, long tag wrapped at 72 columns
    body = ("On 22/11/2026 10:00, Ana Lee wrote:\n" + quote(out("C", 2)) +
            "\nMy gate, as promised:\n\n" + out("C", 3) + "\n-- \nAna\n")
    m["thunderbird-bottom-flowed.eml"] = head(
        ANA, BO, "Re: Tomis: Ana vs Bo", "tb1@example.org", "Mon, 23 Nov 2026 08:01:00 +0100",
        "User-Agent: Mozilla Thunderbird\nContent-Type: text/plain; charset=UTF-8; format=flowed\n"
        "Content-Transfer-Encoding: 8bit\n", refs=["tb0@example.net"]) + "\n" + flowed(body)

    # --- Thunderbird: flowed with DelSp=yes, top-posted
    body = "Here is my reply.\n\n" + out("C", 3) + "\nOn 22/11/2026 10:00, Bo wrote:\n" + quote(out("C", 2))
    m["thunderbird-top-delsp.eml"] = head(
        ANA, BO, "Re: Tomis", "tb2@example.org", "Mon, 23 Nov 2026 08:02:00 +0100",
        "Content-Type: text/plain; charset=UTF-8; format=flowed; delsp=yes\n"
        "Content-Transfer-Encoding: 7bit\n") + "\n" + flowed(body, delsp=True)

    # --- Thunderbird: interleaved answer between quoted parts
    quoted = L2.split("\n\n[Event")[0]
    body = ("On 22/11/2026, Bo Berg wrote:\n" + quote("Black played 1... B@d8 (action 2)") +
            "\nNice, the classic reply.\n\n" + quote("\n".join(quoted.splitlines()[1:])) +
            "\nHere is my gate:\n\n" + L3)
    m["thunderbird-interleaved.eml"] = head(
        ANA, BO, "Re: Tomis", "tb3@example.org", "Mon, 23 Nov 2026 08:03:00 +0100",
        "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n") + "\n" + body

    # --- interleaved inside the quoted record itself: the quote no longer reads
    old = quote(L2).split("> 1. ")
    body = ("On 22/11/2026, Bo Berg wrote:\n" + old[0] + "\nWhy d8 and not c8?\n\n> 1. " + old[1]
            + "\nAnyway, my gate:\n\n" + L3)
    m["thunderbird-interleaved-inside-record.eml"] = head(
        ANA, BO, "Re: Tomis", "tb6@example.org", "Mon, 23 Nov 2026 08:06:00 +0100",
        "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n") + "\n" + body

    # --- nested quoting: the newest record quoted once, an older one twice
    body = ("Forwarding our game to the club.\n\nOn 23/11/2026, Ana wrote:\n" +
            quote(L3 + "\nOn 22/11/2026, Bo wrote:\n" + quote(L2, ">")) )
    m["thunderbird-nested.eml"] = head(
        BO, "club@example.com", "Fwd: Tomis", "tb4@example.net", "Mon, 23 Nov 2026 09:00:00 +0100",
        "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n") + "\n" + body

    # --- nested quoting written "> > " by an older client
    body = "See below.\n\n" + quote(quote(L2), "> ")
    m["mutt-double-quoted.eml"] = head(
        BO, ANA, "Re: Re: Tomis", "mutt2@example.net", "Mon, 23 Nov 2026 09:05:00 +0100",
        "User-Agent: Mutt/2.2.12\nContent-Type: text/plain; charset=us-ascii\n") + "\n" + body

    # --- Thunderbird: the record attached (base64), a stale record quoted in the body
    boundary = "------------tb5Boundary0123"
    body = ("On 22/11/2026, Bo wrote:\n" + quote(L2) + "\nMy move is in the attachment.\n")
    m["thunderbird-attachment.eml"] = crlf(head(
        ANA, BO, "Re: Tomis", "tb5@example.org", "Mon, 23 Nov 2026 08:05:00 +0100",
        f'Content-Type: multipart/mixed; boundary="{boundary}"\n') + "\n"
        "This is a multi-part message in MIME format.\n"
        f"--{boundary}\nContent-Type: text/plain; charset=UTF-8; format=flowed\n"
        "Content-Transfer-Encoding: 7bit\n\n" + flowed(body) +
        f"\n--{boundary}\nContent-Type: application/octet-stream; name=\"ladder.tgn\"\n"
        "Content-Disposition: attachment; filename=\"ladder.tgn\"\n"
        "Content-Transfer-Encoding: base64\n\n" + b64(rec("L", 3)) + f"\n--{boundary}--\n")

    # --- Latin-1, 8bit, accented names and event
    body = "Salut Björn,\n\nà toi.\n\n" + out("Z", 3)
    m["thunderbird-latin1.eml"] = (head(
        "=?ISO-8859-1?Q?Zo=EB?= <zoe@example.fr>", "=?ISO-8859-1?Q?Bj=F6rn?= <bjorn@example.se>", "=?ISO-8859-1?Q?=C9checs_spatiaux?=",
        "z3@example.fr", "Fri, 20 Nov 2026 18:00:00 +0100",
        "Content-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: 8bit\n")
        + "\n").encode("ascii") + body.encode("latin-1")

    # --- Gmail: multipart/alternative, quoted-printable text and HTML, top-posted
    boundary = "000000000000a1b2c3d4e5f6"
    text = L4 + "\nOn Sun, Nov 22, 2026 at 10:00 AM Ana Lee <ana@example.org> wrote:\n\n" + quote(L3)
    html = ('<div dir="ltr"><pre>' + L4.replace("&", "&amp;").replace("<", "&lt;") +
            '</pre></div><br><div class="gmail_quote"><div class="gmail_attr">On Sun, Nov 22, 2026'
            ' Ana wrote:<br></div><blockquote class="gmail_quote"><pre>' + L3 +
            "</pre></blockquote></div>\n")
    m["gmail-alternative-qp.eml"] = crlf(head(
        BO, ANA, "Re: Tomis: Ana vs Bo", "CAgmail4@mail.gmail.com", "Sun, 22 Nov 2026 11:00:00 +0000",
        f'Content-Type: multipart/alternative; boundary="{boundary}"\n', refs=["tb3@example.org"])
        + f"\n--{boundary}\nContent-Type: text/plain; charset=\"UTF-8\"\n"
        "Content-Transfer-Encoding: quoted-printable\n\n" + qp(text) +
        f"\n--{boundary}\nContent-Type: text/html; charset=\"UTF-8\"\n"
        "Content-Transfer-Encoding: quoted-printable\n\n" + qp(html) + f"\n--{boundary}--\n")

    # --- Gmail: HTML only, one <div> per line, &nbsp; indentation, quoted in a blockquote
    def divs(text):
        return "".join(f"<div>{line.replace(' ', '&nbsp;') if line.startswith(' ') else line}</div>"
                       if line else "<div><br></div>" for line in text.splitlines())
    html = ('<div dir="ltr">' + divs(L4.replace('"', "&quot;")) +
            '</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Sun, Nov 22, '
            '2026 at 10:00 AM Ana Lee &lt;<a href="mailto:ana@example.org">ana@example.org</a>&gt; '
            'wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">' +
            divs(L3.replace('"', "&quot;")) + "</blockquote></div>\n")
    m["gmail-html-only.eml"] = crlf(head(
        BO, ANA, "Re: Tomis", "CAgmail5@mail.gmail.com", "Sun, 22 Nov 2026 11:05:00 +0000",
        'Content-Type: text/html; charset="UTF-8"\nContent-Transfer-Encoding: quoted-printable\n')
        + "\n" + qp(html))

    # --- Gmail web editor: non-breaking spaces in the pasted record, quoted-printable
    text = "Hi Ana,\n\nmy move:\n\n" + L4.replace("1. B@e1 B@d8", "1.\u00a0B@e1\u00a0B@d8").replace(
        '[Event "Club ladder"]', '[Event\u00a0"Club\u00a0ladder"]')
    m["gmail-nbsp.eml"] = head(
        BO, ANA, "Tomis", "CAgmail6@mail.gmail.com", "Sun, 22 Nov 2026 11:06:00 +0000",
        'Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: quoted-printable\n') + "\n" + qp(text)

    # --- Gmail app: base64 text/plain
    m["gmail-base64.eml"] = crlf(head(
        BO, ANA, "Tomis", "CAgmail7@mail.gmail.com", "Sun, 22 Nov 2026 11:07:00 +0000",
        'Content-Type: text/plain; charset="UTF-8"\nContent-Transfer-Encoding: base64\n') + "\n" + b64(
        "Sent from my phone\n\n" + L4))

    # --- Gmail: alternative plus a .tgn attachment sent as application/octet-stream
    boundary, inner = "000000000000b1", "000000000000b2"
    m["gmail-attachment.eml"] = crlf(head(
        BO, ANA, "Tomis move", "CAgmail8@mail.gmail.com", "Sun, 22 Nov 2026 11:08:00 +0000",
        f'Content-Type: multipart/mixed; boundary="{boundary}"\n') +
        f"\n--{boundary}\nContent-Type: multipart/alternative; boundary=\"{inner}\"\n\n"
        f"--{inner}\nContent-Type: text/plain; charset=\"UTF-8\"\n\nMove attached.\n"
        f"--{inner}\nContent-Type: text/html; charset=\"UTF-8\"\n\n<div>Move attached.</div>\n"
        f"--{inner}--\n--{boundary}\nContent-Type: application/octet-stream; name=\"game.tgn\"\n"
        "Content-Disposition: attachment; filename=\"game.tgn\"\nContent-Transfer-Encoding: base64\n"
        "X-Attachment-Id: f_abc\n\n" + b64(rec("L", 4)) + f"--{boundary}--\n")

    # --- Outlook: top-posted, "-----Original Message-----" without quote marks, cp1252 QP
    text = ("Hi Bo \u2013 here\u2019s my move.\n\n" + L3 + "\n-----Original Message-----\n"
            "From: Bo Berg <bo@example.net>\nSent: Sunday, November 22, 2026 10:00 AM\n"
            "To: Ana Lee <ana@example.org>\nSubject: Tomis\n\n" + L2)
    m["outlook-original-message.eml"] = crlf(head(
        ANA, BO, "RE: Tomis", "DB9PR01MB0001@eurprd01.prod.outlook.com", "Mon, 23 Nov 2026 07:00:00 +0000",
        "X-Mailer: Microsoft Outlook 16.0\nContent-Type: text/plain; charset=\"windows-1252\"\n"
        "Content-Transfer-Encoding: quoted-printable\n") + "\n" + qp(text, "cp1252"))

    # --- Outlook HTML only: MsoNormal paragraphs, smart quotes in the tags, en dashes in moves
    L13 = out("L", 13)
    smart = L13.replace('"', "\u201c", 1)
    lines = []
    for line in L13.splitlines():
        if line.startswith("["):
            name, _, value = line.partition(' "')
            line = f"{name} \u201c{value[:-2]}\u201d]"
        line = line.replace("Fa1-b1", "Fa1\u2013b1")
        lines.append(line)
    html = ("<html><head><style>p.MsoNormal{margin:0cm}</style></head><body lang=EN-GB><div class=WordSection1>"
            + "".join(f"<p class=MsoNormal>{l.replace('&', '&amp;') or '<o:p>&nbsp;</o:p>'}</p>" for l in lines)
            + "</div></body></html>\n")
    del smart
    m["outlook-html-smart-quotes.eml"] = crlf(head(
        ANA, BO, "Tomis", "DB9PR01MB0002@eurprd01.prod.outlook.com", "Mon, 23 Nov 2026 07:10:00 +0000",
        "Content-Type: text/html; charset=\"windows-1252\"\nContent-Transfer-Encoding: quoted-printable\n")
        + "\n" + qp(html, "cp1252"))

    # --- Outlook: 8bit windows-1252, curly quotes in tags typed as bytes 0x93/0x94
    text = "Bo,\n\nmine.\n\n" + L3.replace('[White "Ana"]', "[White \u201cAna\u201d]")
    m["outlook-cp1252-8bit.eml"] = (head(
        ANA, BO, "Tomis", "DB9PR01MB0003@eurprd01.prod.outlook.com", "Mon, 23 Nov 2026 07:20:00 +0000",
        "Content-Type: text/plain; charset=\"windows-1252\"\nContent-Transfer-Encoding: 8bit\n")
        + "\n").encode("ascii") + text.encode("cp1252")

    # --- Apple Mail: top-posted, QP, "On ..., at ..., X wrote:" and quoted blank lines
    text = L4 + "\nSent from my iPad\n\n> On 22 Nov 2026, at 10:00, Ana Lee <ana@example.org> wrote:\n>\n" + quote(L3)
    m["apple-top-qp.eml"] = crlf(head(
        BO, ANA, "Re: Tomis", "ABCD-1234@example.net", "Sun, 22 Nov 2026 12:00:00 +0000",
        "X-Mailer: iPad Mail (21A329)\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: quoted-printable\n") + "\n" + qp(text))

    # --- Apple Mail: alternative, plain is preferred over HTML with a blockquote
    boundary = "Apple-Mail=_0A1B2C3D"
    m["apple-alternative.eml"] = crlf(head(
        BO, ANA, "Re: Tomis", "EFGH-5678@example.net", "Sun, 22 Nov 2026 12:05:00 +0000",
        f'Content-Type: multipart/alternative; boundary="{boundary}"\n') +
        f"\n--{boundary}\nContent-Transfer-Encoding: 7bit\nContent-Type: text/plain;\n\tcharset=us-ascii\n\n"
        + L4 + f"\n--{boundary}\nContent-Transfer-Encoding: 7bit\nContent-Type: text/html;\n\tcharset=us-ascii\n\n"
        "<html><body><div>wrong on purpose: 1. B@e1 B@c8 *</div><blockquote type=\"cite\">"
        + L3.replace("\n", "<br>") + f"</blockquote></body></html>\n--{boundary}--\n")

    # --- Apple Mail with a Japanese input method: full-width letters in the movetext
    fw = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in "7. Fa1-b1")
    text = "Bo,\n\n" + L13.replace("7. Fa1-b1 *", fw + " *")
    m["apple-full-width.eml"] = head(
        ANA, BO, "Tomis", "IJKL-9012@example.org", "Mon, 23 Nov 2026 08:00:00 +0900",
        "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: quoted-printable\n") + "\n" + qp(text)

    # --- mutt: bottom-posted, 8bit UTF-8, mutt's attribution line, PGP-signed
    boundary = "mutt3"
    body = "* Ana Lee <ana@example.org> [2026-11-22 10:00 +0100]:\n" + quote(L3) + "\nok:\n\n" + L4
    m["mutt-bottom-signed.eml"] = head(
        BO, ANA, "Re: Tomis", "mutt3@example.net", "Sun, 22 Nov 2026 13:00:00 +0100",
        f'User-Agent: Mutt/2.2.12\nContent-Type: multipart/signed; micalg=pgp-sha256;\n'
        f'\tprotocol="application/pgp-signature"; boundary="{boundary}"\n') + (
        f"\n--{boundary}\nContent-Type: text/plain; charset=utf-8\nContent-Disposition: inline\n"
        "Content-Transfer-Encoding: 8bit\n\n" + body + f"\n--{boundary}\n"
        "Content-Type: application/pgp-signature; name=\"signature.asc\"\n\n"
        "-----BEGIN PGP SIGNATURE-----\n\niHUEARYIAB0WIQ==\n-----END PGP SIGNATURE-----\n"
        f"\n--{boundary}--\n")

    # --- plain pasted text: the bottom-posted reply of the issue, and a top-posted one
    m["paste-bottom.txt"] = "On Sunday Ana wrote:\n" + quote(L1) + "\nThanks! Mine:\n\n" + L2 + "\nBo\n"
    m["paste-top.txt"] = L2 + "\nOn Sunday Ana wrote:\n" + quote(L1)
    m["paste-with-headers.txt"] = (f"From: {BO}\nTo: {ANA}\nSubject: Re: Tomis\n"
                                   "Date: Sun, 22 Nov 2026 10:00:00 +0100\n\n" + L2)

    # --- hand-typed records without a Digest tag: taken, and the note says so
    m["paste-no-digest.txt"] = ('Hi\n> [White "Ana"]\n> [Black "Bo"]\n>\n> 1. B@e1 *\n\nmine:\n\n'
                                '[White "Ana"]\n[Black "Bo"]\n\n1. B@e1 B@d8 *\n')

    # --- debris
    m["debris-zero-width.eml"] = webmail("zw@example.net", "Sun, 22 Nov 2026 14:00:00 +0000",
                                         L4.replace("G@b1 G@g8", "G@b1\u200b G\u00ad@g8\u2060"))
    m["debris-curly-tags.eml"] = webmail("cq@example.net", "Sun, 22 Nov 2026 14:01:00 +0000",
                                         L4.replace('"', "\u201c").replace("\u201c]", "\u201d]"))
    m["debris-dashes.eml"] = webmail("dash@example.net", "Mon, 23 Nov 2026 14:02:00 +0000", out(
        "L", 16).replace("Fa1-b1", "Fa1\u2013b1").replace("Fh8-g8", "Fh8\u2014g8"))
    m["debris-apostrophe.eml"] = webmail("apos@example.net", "Sun, 22 Nov 2026 14:03:00 +0000",
                                         L4.replace("G@g8 *", "G@g8\u2019 *"))
    m["debris-nbsp-in-action.eml"] = webmail("nbsp2@example.net", "Sun, 22 Nov 2026 14:04:00 +0000",
                                             L4.replace("G@g8 *", "G@\u00a0g8 *"))

    # --- several records
    m["diverging-records.eml"] = head(
        BO, ANA, "Tomis", "div@example.net", "Sun, 22 Nov 2026 15:00:00 +0000",
        "Content-Type: text/plain; charset=utf-8\n") + "\n" + (
        L2 + "\nOn Sunday Bo wrote (from my other computer):\n" + quote(out("L2b", "")))
    m["same-record-twice.eml"] = head(
        BO, ANA, "Tomis", "same@example.net", "Sun, 22 Nov 2026 15:01:00 +0000",
        "Content-Type: text/plain; charset=utf-8\n") + "\n" + (
        "Sorry, I sent this already:\n\n" + L2 + "\nOn Sunday Bo wrote:\n" + quote(L2))
    m["different-games.eml"] = head(
        BO, ANA, "Tomis", "two@example.net", "Sun, 22 Nov 2026 15:02:00 +0000",
        "Content-Type: text/plain; charset=utf-8\n") + "\n" + (
        L2 + "\nAnd my other game:\n\n" + out("K", 2))
    m["bottom-new-record-illegal.eml"] = head(
        BO, ANA, "Tomis", "ill@example.net", "Sun, 22 Nov 2026 15:03:00 +0000",
        "Content-Type: text/plain; charset=utf-8\n") + "\n" + (
        "Ana wrote:\n" + quote(L1) + "\nmine:\n\n" + "".join(
            line + "\n" for line in L2.replace("1. B@e1 B@d8 *", "1. B@e1 B@d7 *").splitlines()
            if not line.startswith("[Digest")))

    # --- what cannot be read
    m["unknown-charset.eml"] = head(
        BO, ANA, "Tomis", "cs@example.net", "Sun, 22 Nov 2026 16:00:00 +0000",
        "Content-Type: text/plain; charset=x-klingon\nContent-Transfer-Encoding: 8bit\n") + "\n" + L2
    m["no-text-part.eml"] = head(
        BO, ANA, "Tomis", "img@example.net", "Sun, 22 Nov 2026 16:01:00 +0000",
        'Content-Type: multipart/mixed; boundary="b"\n') + (
        "\n--b\nContent-Type: image/png\nContent-Disposition: attachment; filename=\"board.png\"\n"
        "Content-Transfer-Encoding: base64\n\niVBORw0KGgo=\n--b--\n")
    m["undeclared-latin1.eml"] = (head(
        "=?UTF-8?B?Wm/Dqw==?= <zoe@example.fr>", "bjorn@example.se", "Tomis", "nodecl@example.fr",
        "Fri, 20 Nov 2026 18:05:00 +0100", "Content-Transfer-Encoding: 8bit\n")
        + "\n").encode("ascii") + ("Salut,\n\n" + out("Z", 3)).encode("latin-1")
    return m


def mailboxes() -> dict[str, bytes]:
    """An mbox of three messages of one thread (mboxrd: a body line "From " is quoted)."""
    parts = []
    for number, (sender, stage, day) in enumerate(
            [(ANA, 1, 20), (BO, 2, 21), (ANA, 3, 22)], 1):
        message = head(sender, BO if sender == ANA else ANA, "Tomis", f"box{number}@example.org",
                       f"{['Fri', 'Sat', 'Sun'][number - 1]}, {day} Nov 2026 10:00:00 +0000",
                       "Content-Type: text/plain; charset=utf-8\n") + "\n" + (
            ">From the club: my move.\n\n" + out("L", stage))
        parts.append(f"From {sender.split('<')[1][:-1]} Sun Nov {day} 10:00:00 2026\n" + message + "\n")
    return {"thread.mbox": "".join(parts).encode("utf-8")}


def maildir(root: Path) -> None:
    """A Maildir of two messages: an older one in cur/, a newer unread one in new/."""
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    first = head(BO, ANA, "Tomis", "md1@example.net", "Sat, 21 Nov 2026 10:00:00 +0000",
                 "Content-Type: text/plain; charset=utf-8\n") + "\n" + out("L", 2)
    second = head(BO, ANA, "Tomis", "md2@example.net", "Sun, 22 Nov 2026 10:00:00 +0000",
                  "Content-Type: text/plain; charset=utf-8\n") + "\n" + out("L", 4)
    (root / "cur" / "1763719200.M1P1.host:2,S").write_text(first, encoding="utf-8")
    (root / "new" / "1763805600.M2P2.host").write_text(second, encoding="utf-8")


def main() -> None:
    global STAGES
    if len(sys.argv) > 1:
        STAGES = Path(sys.argv[1])
    for name, content in {**messages(), **mailboxes()}.items():
        path = HERE / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    maildir(HERE / "maildir")


if __name__ == "__main__":
    main()
