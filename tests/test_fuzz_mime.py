"""Fuzz shapes of issue 23, findings 2 and 3: messages built from the pieces that broke the
reader (nesting, multipart and message/rfc822 parts, odd dispositions and charsets,
nested comments, folds, encoded words, many records).

Whatever the message, reading it ends with the record or a TomisError (a one-line error
in the CLI), never another exception.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tomis import mail
from tomis.errors import TomisError

FEW = settings(max_examples=int(__import__("os").environ.get("TOMIS_FUZZ_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

RECORD = '[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n\n1. B@e1 *\n'
HEAD = "From: ana@example.org\nTo: bo@example.net\nSubject: game\nMIME-Version: 1.0\n"

DISPOSITIONS = ["attachment", "inline", "attachment; filename=g.tgn", "=;filename*0*;filename*",
                "attachment; filename*=''", "attachment; filename*0*=utf-8''g; filename*1=.tgn",
                'attachment; filename="', "attachment;;;", "(((x", "attachment; filename==?utf-8?q?g.tgn?="]
CHARSETS = ["utf-8", "latin-1", "x-unknown", '"utf-8"', "(c)utf-8", "((((((((((((((((((((((((x",
            "utf-8'en'", "=?utf-8?q?x?=", ""]
TEXTS = [RECORD, "hello\n", "> " + RECORD.replace("\n", "\n> "), "1. B@e1 *\n", "=C3=A9\n",
         "chat\n" + RECORD + "bye\n" + RECORD, "word \nword \n"]


@st.composite
def leaf(draw):
    headers = f"Content-Type: text/plain; charset={draw(st.sampled_from(CHARSETS))}"
    if draw(st.booleans()):
        headers += "; format=flowed"
    if draw(st.booleans()):
        headers += f"\nContent-Disposition: {draw(st.sampled_from(DISPOSITIONS))}"
    if draw(st.booleans()):
        headers += "\nContent-Transfer-Encoding: " + draw(st.sampled_from(["quoted-printable", "base64", "8bit", "x"]))
    return headers + "\n\n" + draw(st.sampled_from(TEXTS))


def container(children: list[str], kind: str, boundary: str) -> str:
    if kind == "message/rfc822":
        return f"Content-Type: message/rfc822\n\n{HEAD}" + (children[0] if children else "\n")
    body = "".join(f"--{boundary}\n{child}\n" for child in children)
    return f'Content-Type: {kind}; boundary="{boundary}"\n\n{body}--{boundary}--\n'


def parts(depth: int = 0):
    kinds = st.sampled_from(["multipart/mixed", "multipart/alternative", "multipart/digest",
                             "message/rfc822"])
    if depth >= 6:
        return leaf()
    return st.one_of(leaf(), st.builds(
        lambda children, kind: container(children, kind, f"b{depth}"),
        st.lists(st.deferred(lambda: parts(depth + 1)), min_size=0, max_size=3), kinds))


@FEW
@given(body=parts(), fold=st.integers(0, 3), extra_header=st.sampled_from(
    ["", "Message-ID: <x@y>\n", "Message-ID: =?utf-8?b?DQpCY2M6IHhAeQ==?=\n",
     "Reply-To: " + "(" * 30 + "a@b" + ")" * 30 + "\n", "Subject: =?x?q?=00?=\n"]))
def test_any_message_reads_or_is_refused_in_one_line(body, fold, extra_header):
    folded = "X-Long: a" + "\n b" * (10 ** fold) + "\n"
    data = (HEAD + extra_header + folded + body).encode("utf-8")
    try:
        found = mail.read_source("fuzz.eml", stream=_Stream(data))
    except TomisError as error:
        assert "\n" not in error.message
    else:
        assert isinstance(found.text, str)


@FEW
@given(copies=st.integers(1, 150), gap=st.sampled_from(["", "chat\n", "On Mon, Bo wrote:\n> x\n"]))
def test_many_records_in_one_text(copies, gap):
    text = "".join(RECORD + gap for _ in range(copies))
    try:
        regions = mail.find_regions(text)
    except TomisError as error:
        assert copies > mail.MAX_RECORDS_PER_MESSAGE and "more than" in error.message
    else:
        assert 1 <= len(regions) <= mail.MAX_RECORDS_PER_MESSAGE


class _Stream:
    """A binary stream, as stdin is, so read_source reads bytes rather than opening a path."""

    def __init__(self, data: bytes):
        import io

        self.buffer = io.BytesIO(data)

    def read(self, *args):
        return self.buffer.read(*args)
