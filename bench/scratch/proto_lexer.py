"""Prototype, not used by tomis: tokenize movetext with one compiled regex.

    python bench/scratch/proto_lexer.py --corpus /tmp/tomis-bench-corpus --games 200

The grammar's top rule is a flat run of terminals (tags, then movetext tokens, then a
result), so the LALR parser only checks what a regular expression already can. This
builds one alternation of named groups from the *grammar's own* terminals (so the .lark
file stays the single source of truth), scans each record with ``re.finditer`` and
computes line/column from the match offset with ``bisect`` over the newline offsets.

It checks that the token stream (type, text, line, column) equals Lark's for every
record of the corpus, then times three things per record: Lark ``lex`` alone, the full
Lark ``parse`` that notation.parse_games uses, and the regex scan.
"""

from __future__ import annotations

import argparse
import bisect
import json
import re
import sys
import time
from pathlib import Path

from tomis import notation


def master_regex():
    lark = notation.parser()
    terminals = list(lark.terminals)
    # Lark's basic lexer tries higher priority first, then longer patterns; mimic it.
    terminals.sort(key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
    ignore = set(lark.lexer_conf.ignore)
    groups = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals)
    return re.compile(groups), ignore


def scan(pattern, ignore, text):
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    out = []
    pos = 0
    for match in pattern.finditer(text):
        if match.start() != pos:
            raise ValueError(f"no token at offset {pos}")
        pos = match.end()
        kind = match.lastgroup
        if kind in ignore:
            continue
        start = match.start()
        line = bisect.bisect_right(newlines, start - 1)   # newlines before start
        column = start - (newlines[line - 1] if line else -1)
        out.append((kind, match.group(), line + 1, column))
    if pos != len(text):
        raise ValueError(f"no token at offset {pos}")
    return out


def lark_tokens(text):
    return [(t.type, str(t), t.line, t.column) for t in notation.parser().lex(text)]


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/tomis-bench-corpus"))
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args(argv)
    manifest = json.loads((args.corpus / "manifest.json").read_text())
    texts = [(args.corpus / e["file"]).read_text() for e in manifest["tgn"][: args.games]]
    actions = sum(e["actions"] for e in manifest["tgn"][: args.games])
    pattern, ignore = master_regex()

    tokens = 0
    for text in texts:
        mine = scan(pattern, ignore, text)
        assert mine == lark_tokens(text), "token streams differ"
        tokens += len(mine)

    def best(fn, repeat=3):
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            for text in texts:
                fn(text)
            times.append(time.perf_counter() - start)
        return min(times)

    lex = best(lambda t: list(notation.parser().lex(t)))
    parse = best(lambda t: notation.parser().parse(t))
    regex = best(lambda t: scan(pattern, ignore, t))
    print(f"{len(texts)} records, {tokens} tokens, {actions} actions; token streams identical")
    for name, seconds in (("lark lex", lex), ("lark parse (lex + LALR)", parse), ("one regex + bisect", regex)):
        print(f"{name:<26} {1e6 * seconds / tokens:6.2f} us/token  {1e6 * seconds / actions:6.2f} us/action")
    print(f"regex scan vs lark parse: {parse / regex:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
