"""Issue 23, findings 2 and 3: a message cannot stall or crash the reader.

Finding 2: finding the records in a message was quadratic (a 48 KB message of many small
records took 51 s). Finding 3: deep nesting raised RecursionError, an odd
Content-Disposition raised IndexError, and a huge fold, 100,000 parts or a huge
format=flowed body stalled for minutes. Each shape is a real file read by a real
``python -m tomis`` process; a timeout makes a regression fail instead of hanging (the
tests assert on what is printed and the exit code, never on time).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tomis import mail
from tomis.errors import FileError
from tomis.mail import mime
from tomis.sources import regions

HEAD = "From: ana@example.org\nTo: bo@example.net\nSubject: our game\nMessage-ID: <1@example.org>\n"
RECORD = '[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n\n1. B@e1 *\n'
LIMITS = "tomis reads no message of that shape (docs/SECURITY.md, limits)"


def run(path, *args, timeout=60):
    """``tomis ARGS PATH`` as a process that must finish well within ``timeout``."""
    return subprocess.run([sys.executable, "-m", "tomis", *args, str(path)],
                          capture_output=True, text=True, timeout=timeout)


def nested(depth: int, leaf: str = "Content-Type: text/plain\n\n" + RECORD) -> str:
    opened = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n' for i in range(depth))
    closed = "".join(f"--b{i}--\n" for i in reversed(range(depth)))
    return HEAD + "MIME-Version: 1.0\n" + opened + leaf + closed


def multipart(parts: list[str]) -> str:
    body = "".join(f"--q\n{part}\n" for part in parts)
    return HEAD + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="q"\n\n' + body + "--q--\n"


# --------------------------------------------------------------------------- finding 2

def test_finding2_many_small_records_are_refused_at_once(tmp_path):
    path = tmp_path / "regions.eml"
    path.write_text(HEAD + "\n" + "".join(RECORD + "\nsome words\n" for _ in range(1000)),
                    encoding="utf-8")
    proc = run(path, "validate")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"{path}: this text holds more than {regions.MAX_RECORDS_PER_MESSAGE} records; "
        "a reply never quotes that many: save the one you mean on its own"]


def test_finding2_records_far_apart_are_found_in_one_pass(tmp_path):
    # Two copies of the game far apart, the newer one extending the quoted older one, with
    # a long stretch of mail text between: the window grows until it reaches the second.
    older = RECORD.replace("1. B@e1 *", "1. B@e1 B@d8 *")
    newer = RECORD.replace("1. B@e1 *", "1. B@e1 B@d8 2. G@b1 *")
    filler = "".join(f"a line of chat number {n}\n" for n in range(20_000))
    path = tmp_path / "far.eml"
    path.write_text(HEAD + "\n" + "".join("> " + line + "\n" for line in older.splitlines())
                    + filler + newer, encoding="utf-8")
    proc = run(path, "extract")
    assert proc.returncode == 0, proc.stderr
    assert "2. G@b1" in proc.stdout
    assert "found 2 records of this game" in proc.stderr


def test_finding2_windowed_search_finds_what_the_whole_text_gives(monkeypatch):
    # With a window of one line the search must still give the regions of the whole text:
    # the record that starts at a tag line anywhere, the cut after the first result.
    text = ("chat\n1. B@e1 *\nmore chat\n" + "\n" * 5 + '[White "A"]\n[Black "B"]\n\n'
            "1. B@e1 B@d8 *\nbye\n")
    whole = [(r.first, r.last, r.extracted.text) for r in regions.find_regions(text)]
    monkeypatch.setattr(regions, "_FIRST_WINDOW", 1)
    assert [(r.first, r.last, r.extracted.text) for r in regions.find_regions(text)] == whole
    assert whole[0][0] == 9          # the tag line wins over the earlier "1." line


# --------------------------------------------------------------------------- finding 3

@pytest.mark.parametrize("command", ["validate", "show", "extract"])
def test_finding3_deep_nesting_is_one_line_and_exit_2(tmp_path, command):
    path = tmp_path / "nested.eml"
    path.write_text(nested(3000), encoding="utf-8")
    proc = run(path, command)
    assert proc.returncode == 2
    assert "internal error" not in proc.stderr and "RecursionError" not in proc.stderr
    assert proc.stderr.strip().endswith(LIMITS)
    assert len(proc.stderr.strip().splitlines()) == 1


def test_finding3_nesting_within_the_limit_still_reads(tmp_path):
    path = tmp_path / "nested.eml"
    path.write_text(nested(mail.MAX_CONTAINERS - 1), encoding="utf-8")
    proc = run(path, "extract")
    assert proc.returncode == 0, proc.stderr
    assert "1. B@e1 *" in proc.stdout


def test_finding3_nested_message_rfc822_counts_as_nesting(tmp_path):
    inner = HEAD + "\n" + RECORD
    for _ in range(mail.MAX_CONTAINERS + 5):
        inner = HEAD + "MIME-Version: 1.0\nContent-Type: message/rfc822\n\n" + inner
    path = tmp_path / "forwarded.eml"
    path.write_text(inner, encoding="utf-8")
    proc = run(path, "validate")
    assert proc.returncode == 2
    assert f"more than {mail.MAX_CONTAINERS} multipart or message parts" in proc.stderr


def test_finding3_nested_comments_in_charset(tmp_path):
    path = tmp_path / "charset.eml"
    path.write_text(HEAD + "Content-Type: text/plain; charset=" + "(" * 5000 + ")" * 5000
                    + "utf-8\n\n" + RECORD, encoding="utf-8")
    proc = run(path, "validate")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"{path}: this message has comments nested more than "
                                   f"{mail.MAX_COMMENT_DEPTH} deep in a header field; {LIMITS}")


def test_finding3_odd_content_disposition_is_no_attachment_name(tmp_path):
    path = tmp_path / "disposition.eml"
    path.write_text(multipart(["Content-Type: text/plain\n\n" + RECORD,
                               "Content-Type: application/octet-stream\n"
                               "Content-Disposition: =;filename*0*;filename*\n\nxx"]),
                    encoding="utf-8")
    for command in ("validate", "show", "extract"):
        proc = run(path, command)
        assert proc.returncode == 0, proc.stderr
        assert "internal error" not in proc.stderr


def test_finding3_a_header_folded_over_100000_lines(tmp_path):
    path = tmp_path / "fold.eml"
    path.write_text(HEAD.replace("Subject: our game", "Subject: x" + "\n y" * 100_000)
                    + "\n" + RECORD, encoding="utf-8")
    proc = run(path, "validate")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"{path}: this message has a header field (Subject) longer than 256 KiB or 10,000 lines; {LIMITS}")


def test_finding3_100000_parts(tmp_path):
    path = tmp_path / "parts.eml"
    path.write_text(multipart(["Content-Type: text/plain\n\nhello"] * 100_000
                              + ["Content-Type: text/plain\n\n" + RECORD]), encoding="utf-8")
    proc = run(path, "validate")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"{path}: this message has more than 1,000 MIME parts; {LIMITS}"


def test_finding3_a_huge_format_flowed_body_is_read_in_one_pass(tmp_path):
    # 200,000 flowed lines make one paragraph of 16 MB; it used to be joined line by line.
    path = tmp_path / "flowed.eml"
    path.write_text(HEAD + "Content-Type: text/plain; charset=utf-8; format=flowed\n\n"
                    + "\n".join(["word " * 15] * 200_000) + "\n\n" + RECORD, encoding="utf-8")
    proc = run(path, "validate", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{path}: ok, 1 game(s)"


def test_finding3_unflow_keeps_its_meaning():
    flowed = "one \ntwo \nthree\n> quoted \n> on\n-- \nsig"
    assert mail.unflow(flowed) == "one two three\n> quoted on\n-- \nsig"
    assert mail.unflow("a \nb", delsp=True) == "ab"


def test_finding3_the_limits_are_checked_before_parsing():
    for data in (nested(3000).encode(), multipart(["x"] * 2000).encode()):
        with pytest.raises(mail.FileError):
            mail.check_bounds(data)
    mail.check_bounds(multipart(["Content-Type: text/plain\n\n" + RECORD]).encode())


@pytest.mark.parametrize("args", [["fmt"], ["send", "--to", "bo@example.org"]])
def test_finding3_fmt_and_send_name_the_file_and_exit_2(args, tmp_path):
    """Both look at a file to tell a saved message from a record, before anything else."""
    message = multipart(["Content-Type: text/plain\n\nhello"] * 2000)
    path = tmp_path / "reply.eml"
    path.write_text(message, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "tomis", args[0], str(path), *args[1:]],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"{path}: this message has more than 1,000 MIME parts; {LIMITS}"
    assert path.read_text(encoding="utf-8") == message


HTML_HEAD = HEAD + "MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"


def test_finding3_a_declaration_html_parser_cannot_read_is_text(tmp_path):
    path = tmp_path / "decl.eml"
    path.write_text(HTML_HEAD + "<html><![ x\n<p>1. B@e1 *</p>\n", encoding="utf-8")
    proc = run(path, "validate")
    assert "internal error" not in proc.stderr and "AssertionError" not in proc.stderr
    assert (proc.returncode, proc.stdout.strip()) == (0, f"{path}: ok, 1 game(s)"), proc.stderr


def test_finding3_many_unclosed_tags_in_html_are_read_in_one_pass(tmp_path):
    # 200 KB of "<p": html.parser alone took minutes on it.
    path = tmp_path / "tags.eml"
    path.write_text(HTML_HEAD + ("<p" * 4000 + "\n") * 25 + "<p>1. B@e1 *</p>\n", encoding="utf-8")
    proc = run(path, "extract")
    assert proc.returncode == 0, proc.stderr
    assert "1. B@e1 *" in proc.stdout


def test_finding3_html_keeps_its_tags_comments_and_text():
    html = '<!DOCTYPE html><!--[if mso]>x<![endif]--><p>a &lt; b</p><blockquote>1. B@e1 *</blockquote>'
    assert mail.html_to_text(html) == "a < b\n> 1. B@e1 *\n"


# Issue 38: a structured field the email package parses in quadratic time. Each limit:
# the shape just past it is refused in one line, before anything is parsed; a field as
# a real message has it, at the limit, is read. (Counts written out, one past each
# MAX_ constant of tomis.mail.mime.)
STRUCTURED_SHAPES = {
    "mime bytes": ("Content-Type: text/plain; name=" + "x" * 1100,
                   "a Content-Type header field longer than 1,024 bytes"),
    "address bytes": ("Cc: " + ", ".join(f"p{i}@example.org" for i in range(150)),
                      "a Cc header field longer than 2,048 bytes"),
    "quotes": ("Cc: " + '"' * 101, "more than 100 double quotes in a Cc"),
    "angles": ("Reply-To: a" + ">> " * 60, "more than 100 angle brackets in a Reply-To"),
    "comments": ("From: ana@example.org " + "()" * 21,
                 "more than 20 comments in a From"),
    "parameters": ("Content-Type: text/plain" + ";" * 41,
                   "more than 40 parameters in a Content-Type"),
    "blanks": ("Message-ID: " + "a " * 101, "more than 100 blanks in a Message-ID"),
    "total": ("".join(f"Delivered-To: {'x' * 1990}@example.org\n" for _ in range(33)).rstrip("\n"),
              "more than 64 KiB of address and MIME header fields"),
}


@pytest.mark.parametrize("field, words", STRUCTURED_SHAPES.values(), ids=STRUCTURED_SHAPES.keys())
def test_issue38_structured_fields_past_a_bound_are_refused(field, words):
    data = (HEAD + field + "\n\n" + RECORD).encode()
    with pytest.raises(FileError) as refused:
        mime.check_bounds(data)
    assert words in refused.value.message
    assert "\n" not in refused.value.message


def test_issue38_real_fields_at_the_bounds_are_read():
    fields = ("Cc: " + ", ".join(f'"Player {i}" <p{i}@example.org>' for i in range(50)) + "\n"
              'Content-Type: text/plain; charset="utf-8"; format=flowed; name*0*=utf-8\'\'' +
              "%E4%B8%AD" * 80 + "\n"
              "Message-ID: <" + "a" * 20_000 + "@example.org>\n")
    data = (HEAD.replace("Message-ID: <1@example.org>\n", "") + fields + "\n" + RECORD).encode()
    mime.check_bounds(data)
    assert mime.parse_bounded(data).get_content_type() == "text/plain"
