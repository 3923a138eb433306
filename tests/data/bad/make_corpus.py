"""Write the bad-input corpus beside this script: python tests/data/bad/make_corpus.py

Each file is one way a record can be wrong. Their exact `tomis validate` stderr line and
exit code live in expected.txt, written by hand after reading each message (this script
never writes expected.txt, so a changed message shows up as a failing test, not as a
silently updated expectation).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent.parent.parent / "samples"

OPENING = "1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2 G@a7 4. G@c3 G@e6 5. G@h4 G@d5\n"
TAGS = '[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n[Rules "manual"]\n\n'


def text_files() -> dict[str, str]:
    manual_win = (SAMPLES / "manual-win.tgn").read_text(encoding="utf-8")
    return {
        # --- syntax
        "unclosed-comment.tgn": "1. B@e1 {never closed\nB@d8 *\n",
        "stray-closing-brace.tgn": "1. B@e1 } B@d8 *\n",
        "nested-comment.tgn": "1. B@e1 {outer {inner} still outer} B@d8 *\n",
        "unclosed-tag-value.tgn": '[White "Ana]\n\n1. B@e1 *\n',
        "tag-without-space.tgn": '[White "Ana"]\n[Black"Bo"]\n\n1. B@e1 *\n',
        "tag-bad-escape.tgn": '[White "A\\na"]\n\n1. B@e1 *\n',
        "tag-not-closed.tgn": '[White "Ana"\n\n1. B@e1 *\n',
        "lowercase-piece.tgn": "1. b@e1 *\n",
        "capital-square.tgn": "1. B@E1 *\n",
        "unknown-piece.tgn": "1. K@e1 *\n",
        "chess-castling.tgn": "1. B@e1 O-O *\n",
        "check-sign.tgn": OPENING + "6. F@a1 F@h8 7. Fa1-a2+ *\n",
        "missing-result.tgn": "1. B@e1 B@d8\n",
        "letter-o-result.tgn": "1. B@e1 B@d8 1-O\n",
        "two-period-number.tgn": "1.. B@e1 *\n",
        "number-without-period.tgn": "1 B@e1 *\n",
        "two-move-numbers.tgn": "1. 2. B@e1 *\n",
        "bad-glyph.tgn": "1. B@e1 !!! B@d8 *\n",
        "nag-out-of-range.tgn": "1. B@e1 $256 B@d8 *\n",
        "nag-before-action.tgn": "$1 1. B@e1 *\n",
        "destroyed-with-space.tgn": "1. B@e1 (e6, f6) B@d8 *\n",
        "typographic-dash.tgn": OPENING + "6. F@a1 F@h8 7. Fa1\u2013a2 *\n",
        # --- rules
        "black-base-on-rank-1.tgn": "1. B@e1 B@d1 *\n",
        "wrong-move-number.tgn": "2. B@e1 *\n",
        "black-number-for-white.tgn": "1... B@e1 *\n",
        "gate-beside-base.tgn": "1. B@e1 B@d8 2. G@d1 *\n",
        "action-after-win.tgn": manual_win.replace(" 1-0", " F@a1 1-0"),
        "decided-game-ends-star.tgn": manual_win.replace('[Result "1-0"]', '[Result "*"]')
                                                .replace(" 1-0\n", " *\n"),
        "result-tag-disagrees.tgn": '[Result "1-0"]\n\n1. B@e1 *\n',
        "unknown-rules.tgn": '[Rules "blitz"]\n\n1. B@e1 *\n',
        "bad-position-tag.tgn": '[Position "8/8/8 w"]\n\n1. B@e1 *\n',
        "duplicate-tag.tgn": '[White "Ana"]\n[White "Bo"]\n\n1. B@e1 *\n',
        "wrong-destroyed.tgn": "1. B@e1(e2) B@d8 *\n",
        "destroyed-twice.tgn": "1. B@e1()() B@d8 *\n",
        # --- records and integrity
        "digest-mismatch.tgn": TAGS.replace("\n\n", '\n[Digest "0123456789abcdef"]\n\n')
                               + "1. B@e1 B@d8 *\n",
        "digest-malformed.tgn": TAGS.replace("\n\n", '\n[Digest "not-hex"]\n\n') + "1. B@e1 *\n",
        "empty.tgn": "",
        "only-blanks.tgn": "  \n\t\n\n",
        "only-tags.tgn": TAGS,
        "only-comment.tgn": "{just a comment}\n",
        "many-nags.tgn": "1. B@e1 " + "$1 " * 256 + "*\n",
        "long-comment.tgn": "1. B@e1 {" + ("x" * 99 + "\n") * 101 + "} *\n",
        "mail-quoted-illegal.tgn": "Hi Bo,\n\nmy move:\n\n> " + TAGS.replace("\n", "\n> ")
                                   + "1. B@e1 B@d1 *\n\nCheers, Ana\n",
        # --- encodings and limits (text that decodes, then fails)
        "crlf-error-line-3.tgn": "[White \"Ana\"]\r\n\r\n1. B@e1 B@d1 *\r\n",
        "cr-only-error-line-2.tgn": "1. B@e1\rB@d1 *\r",
        "bom-then-error.tgn": "\ufeff1. b@e1 *\n",
        "long-line.tgn": "1. B@e1 {" + "x" * 10_000 + "} *\n",
    }


def byte_files() -> dict[str, bytes]:
    return {
        "latin-1.tgn": '[White "Jos\u00e9"]\n\n1. B@e1 *\n'.encode("latin-1"),
        "utf-16-bom.tgn": "1. B@e1 *\n".encode("utf-16"),
        "utf-16-no-bom.tgn": "1. B@e1 *\n".encode("utf-16-le"),
        "png-header.tgn": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "bad-byte-line-3.tgn": b"[White \"Ana\"]\n\n1. B@e1 {caf\xe9} *\n",
        "bad-byte-after-bom.tgn": b"\xef\xbb\xbf1. B@e1 \xff *\n",
        "surrogate-bytes.tgn": b"1. B@e1 {\xed\xa0\x80} *\n",
        "truncated-utf-8.tgn": "1. B@e1 {\u00e9}".encode("utf-8")[:-2] + b" *\n",
    }


def main() -> None:
    for name, text in text_files().items():
        (HERE / name).write_bytes(text.encode("utf-8"))
    for name, data in byte_files().items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    main()
