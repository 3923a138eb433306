"""Decoding, limits, reading and mail extraction in tomis.util.textio."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import given, settings, strategies as st

from tomis.util import textio
from tomis.errors import FileError, TomisError
from tomis.mail.quotes import Extracted, extract_record
from tomis.sources.regions import ExtractedPlaces
from tomis.util.textio import decode, read_path, read_stream

RECORD = """[Event "Club ladder"]
[Site "By email"]
[Result "*"]
[Rules "manual"]

1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2 G@a7 4. G@c3 G@e6 5. G@h4 G@d5
6. F@a1 {first ship} F@h8 7. Fa1-a2 T@a8 *
"""


# --------------------------------------------------------------------------- decode

@pytest.mark.parametrize("data, text", [
    (b"1. B@e1 *\n", "1. B@e1 *\n"),
    (b"\xef\xbb\xbf1. B@e1 *\n", "1. B@e1 *\n"),                 # BOM dropped
    (b"a\r\nb\r\n", "a\nb\n"),                                   # CRLF
    (b"a\rb\r", "a\nb\n"),                                       # old Mac CR
    (b"a\r\n\rb", "a\n\nb"),                                     # mixed
    ("{Ștefan à Tomis}".encode(), "{Ștefan à Tomis}"),          # real UTF-8 survives
    (b"", ""),
])
def test_decode_accepts_utf8_and_normalises_line_ends(data, text):
    assert decode(data, "g.tgn") == text


@pytest.mark.parametrize("data, line, column, byte", [
    (b"\xff", 1, 1, "0xff"),
    (b"ab\ncd\n[Ev\xe9nt]", 3, 4, "0xe9"),                      # Latin-1 e-acute
    (b"x\r\ny\r\n\xc3(", 3, 1, "0xc3"),                          # CRLF counted once
    ("ăî\n".encode() + b"ab\x80", 2, 3, "0x80"),                 # column counts characters
    (b"\xef\xbb\xbfab\xfe", 1, 3, "0xfe"),                       # BOM not counted
    (b"abc\xe2\x82", 1, 4, "0xe2"),                              # cut multi-byte at the end
])
def test_decode_names_the_bad_byte_line_and_column(data, line, column, byte):
    with pytest.raises(FileError) as info:
        decode(data, "g.tgn")
    err = info.value
    assert str(err) == (f"byte {byte} at line {line}, column {column} is not UTF-8; "
                        f"save the file as UTF-8")
    assert (err.path, err.line, err.column) == ("g.tgn", line, column)


def test_decode_refuses_binary_with_a_clear_message():
    with pytest.raises(FileError) as info:
        decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "board.png")
    assert str(info.value).startswith("looks like a binary file (NUL byte at line 3, column 1)")
    assert info.value.path == "board.png"


def test_decode_explains_utf16():
    with pytest.raises(FileError, match="UTF-16, not UTF-8"):
        decode("1. B@e1 *".encode("utf-16"), None)


def test_decode_refuses_too_long_lines_but_not_the_limit_itself():
    ok = "x" * textio.MAX_LINE
    assert decode(f"a\n{ok}\n".encode(), None) == f"a\n{ok}\n"
    with pytest.raises(FileError) as info:
        decode(f"a\nb\n{ok}y\n".encode(), None)
    assert (info.value.line, info.value.column) == (3, textio.MAX_LINE + 1)
    assert "line 3 is longer than 10,000 characters" in str(info.value)


def test_decode_refuses_too_much_data(monkeypatch):
    monkeypatch.setattr(textio, "MAX_FILE_BYTES", 10)
    assert decode(b"0123456789", None) == "0123456789"
    with pytest.raises(FileError, match="larger than"):
        decode(b"0123456789a", None)


def test_limits_are_documented_numbers():
    assert textio.MAX_FILE_BYTES == 16 * 1024 * 1024
    for name in ("MAX_FILE_BYTES", "MAX_LINE", "MAX_COMMENT", "MAX_ACTIONS_PER_GAME"):
        assert name in textio.__doc__


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_decode_never_raises_anything_but_file_error(data):
    try:
        text = decode(data, "fuzz")
    except FileError as err:
        assert "\n" not in str(err)
    else:
        assert "\r" not in text and "\x00" not in text


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                      blacklist_characters="\x00\r\ufeff"), max_size=200))
def test_decode_round_trips_lf_utf8_text(text):
    assert decode(text.encode("utf-8"), None) == text


# --------------------------------------------------------------------------- read_path / read_stream

def test_read_path_reads_and_decodes(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_bytes(b"\xef\xbb\xbf" + RECORD.replace("\n", "\r\n").encode())
    assert read_path(path) == RECORD


def test_read_path_refuses_a_name_with_a_nul(tmp_path):
    with pytest.raises(FileError, match="not a valid file name"):
        read_path(str(tmp_path / "a\0b"))


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing.tgn", "no such file"),
    (lambda d: d, "is a folder, not a game file"),
])
def test_read_path_refuses_missing_and_folders(tmp_path, make, message):
    path = make(tmp_path)
    with pytest.raises(FileError) as info:
        read_path(path)
    assert str(info.value) == message
    assert info.value.path == str(path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads files whatever their mode; nothing to refuse")
def test_read_path_refuses_unreadable(tmp_path):
    path = tmp_path / "secret.tgn"
    path.write_text(RECORD)
    path.chmod(0)
    with pytest.raises(FileError, match="permission denied"):
        read_path(path)


def test_read_path_reads_no_more_than_the_limit(monkeypatch, tmp_path):
    # /dev/zero never ends: if the limit were not applied while reading, this would hang.
    monkeypatch.setattr(textio, "MAX_FILE_BYTES", 1000)
    if os.path.exists("/dev/zero"):
        with pytest.raises(FileError, match="larger than"):
            read_path("/dev/zero")
    path = tmp_path / "big.tgn"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(FileError, match="larger than") as info:
        read_path(path)
    assert info.value.path == str(path)


class Trickle(io.RawIOBase):
    """A pipe-like stream that hands out at most 3 bytes per read and counts what it gave."""

    def __init__(self, data: bytes):
        self.data, self.given = data, 0

    def readable(self):
        return True

    def read(self, size=-1):
        size = 3 if size < 0 else min(size, 3)
        chunk = self.data[self.given:self.given + size]
        self.given += len(chunk)
        return chunk


def test_read_stream_collects_short_reads():
    assert read_stream(Trickle(RECORD.encode()), "<stdin>") == RECORD


def test_read_stream_stops_just_after_the_limit(monkeypatch):
    monkeypatch.setattr(textio, "MAX_FILE_BYTES", 10)
    stream = Trickle(b"y" * 1000)
    with pytest.raises(FileError, match="larger than") as info:
        read_stream(stream, "<stdin>")
    assert info.value.path == "<stdin>"
    assert stream.given <= 11 + 3


def test_read_stream_reports_bad_bytes_with_its_name():
    with pytest.raises(FileError) as info:
        read_stream(io.BytesIO(b"ok\n\xff"), "<stdin>")
    assert info.value.located() == ("<stdin>:2:1: byte 0xff at line 2, column 1 is not UTF-8; "
                                    "save the file as UTF-8")


def test_file_error_is_a_tomis_error():
    assert issubclass(FileError, TomisError)


# --------------------------------------------------------------------------- extract_record

@pytest.mark.parametrize("text", [
    RECORD,
    RECORD + "\n\n",
    "\n\n" + RECORD,
    "; my games\n" + RECORD,
    RECORD + "\n" + RECORD,
    "1. B@e1 B@d8 *\n",
    "B@e1 B@d8 *",                       # no numbers, no tags
    RECORD.replace("*\n", "\n"),         # no result: kept for the reader to report
    RECORD + "; a comment after the game\n",
    "",
])
def test_plain_records_pass_through_unchanged(text):
    extracted = extract_record(text)
    assert extracted.text == text
    assert extracted.notes == ()
    assert extracted.locate(3, 7) == (3, 7)


def test_pasted_mail_quoted_and_wrapped():
    mail = (
        "Hi Bo,\n"                                         # 1
        "\n"                                               # 2
        "On Tue, Ana wrote:\n"                             # 3
        "> [Event \"Club ladder, autumn season, second\n"  # 4
        "> division\"]\n"                                  # 5
        ">> [Site \"By email\"]\n"                         # 6
        ">[Result \"*\"]\n"                                # 7
        ">\n"                                              # 8
        "> 1. B@e1 B@d8 2. G@b1 {1-0 in a comment} G@g8\n"  # 9
        "> 3. G@f2 G@a7 *\n"                               # 10
        "\n"                                               # 11
        "Your move. * Ana\n"                               # 12
    )
    extracted = extract_record(mail)
    assert extracted.text == (
        '[Event "Club ladder, autumn season, second division"]\n'
        '[Site "By email"]\n'
        '[Result "*"]\n'
        "\n"
        "1. B@e1 B@d8 2. G@b1 {1-0 in a comment} G@g8\n"
        "3. G@f2 G@a7 *\n"
    )
    assert len(extracted.notes) == 4
    # Column 9 of extracted line 1 is the 'C' of "Club": original line 4, column 11.
    assert mail.split("\n")[3][10] == extracted.text.split("\n")[0][8] == "C"
    assert extracted.locate(1, 9) == (4, 11)
    # "division" begins after the rejoining space: original line 5, column 3.
    col = extracted.text.split("\n")[0].index("division") + 1
    assert extracted.locate(1, col) == (5, 3)
    assert extracted.locate(2, 1) == (6, 4)      # ">> " removed
    assert extracted.locate(3, 1) == (7, 2)      # ">" removed
    assert extracted.locate(6, 4) == (10, 6)     # "G@f2" on line 10
    assert extracted.locate(6, None) == (10, None)


def test_an_error_is_placed_in_the_original_as_a_copy():
    extracted = extract_record("Hello\n\n> 1. B@e1 Zz9 *\n")
    err = TomisError("unknown action", line=1, column=9)
    moved = ExtractedPlaces(extracted).located(err)
    assert (moved.line, moved.column, moved.message) == (3, 11, "unknown action")
    assert (err.line, err.column) == (1, 9)        # the error raised is left as it was


def test_moves_without_tags_start_at_move_one():
    text = "Here is the game:\n1. B@e1 B@d8 2. G@b1 *\n-- \nAna\n"
    extracted = extract_record(text)
    assert extracted.text == "1. B@e1 B@d8 2. G@b1 *\n"
    assert extracted.locate(1, 1) == (2, 1)


def test_text_after_result_on_the_same_line_is_dropped():
    extracted = extract_record(RECORD.replace("T@a8 *\n", "T@a8 * see you Friday\n"))
    assert extracted.text == RECORD


def test_several_games_are_all_kept():
    two = RECORD + "\n" + RECORD.replace('"*"', '"1-0"').replace("T@a8 *", "T@a8 1-0")
    mail = "> " + two.replace("\n", "\n> ") + "\nthanks\n"
    assert extract_record(mail).text == two


def test_results_inside_tags_and_comments_do_not_end_the_record():
    mail = ('> [Result "1-0"]\n> 1. B@e1 ; 0-1 maybe\n> B@d8 {or 1/2-1/2?} 2. G@b1 1-0\n'
            '> bye * now\n')
    assert extract_record(mail).text == ('[Result "1-0"]\n1. B@e1 ; 0-1 maybe\n'
                                    'B@d8 {or 1/2-1/2?} 2. G@b1 1-0\n')


def test_a_result_glued_to_an_action_is_not_a_result():
    text = "Hi\n1. B@e1 B@d8* thanks\n"
    assert extract_record(text).text == "1. B@e1 B@d8* thanks\n"


def test_an_unclosed_tag_is_not_glued_to_the_movetext():
    broken = '[Event "never closed\n[Site "x"]\n\n1. B@e1 *\n'
    assert extract_record(broken).text == broken


def test_record_with_nothing_recognisable_is_left_alone():
    text = "Dear Bo,\nI resign.\n"
    assert extract_record(text).text == text


def test_extracted_holds_its_text_and_says_whether_it_changed():
    plain, quoted = extract_record("x"), extract_record("hi\n> 1. B@e1 *")
    assert isinstance(quoted, Extracted) and not isinstance(quoted, str)
    assert (plain.text, plain.changed) == ("x", False)
    assert (quoted.text, quoted.changed) == ("1. B@e1 *", True)


_mail_alphabet = st.sampled_from(
    ["[Event \"a\"]", "1.", "B@e1", "*", "1-0", "{", "}", ";", ">", "> ", "\n", " ", "x", "\"", "["])


@settings(max_examples=300, deadline=None)
@given(st.lists(_mail_alphabet, max_size=40).map("".join))
def test_extract_never_raises_and_maps_inside_the_original(text):
    extracted = extract_record(text)
    original_lines = text.count("\n") + 1
    for line in range(1, extracted.text.count("\n") + 2):
        mapped, _ = extracted.locate(line, 1)
        assert 1 <= mapped <= original_lines + 1


def test_a_tag_missing_its_space_starts_the_record_instead_of_being_dropped_as_mail():
    # Dropping it would let `tomis move` silently lose the line when it writes back.
    text = '[White"Ana"]\n1. B@e1 *\n'
    extracted = extract_record(text)
    assert extracted.text == text
