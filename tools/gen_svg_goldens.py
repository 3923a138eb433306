"""Rewrite tests/data/svg/*.svg from tests/svg_cases.py after an intended change to
tomis.svg. Look at the diff (and a PNG of it) before committing the new goldens."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from svg_cases import CASES, GOLDEN_DIR  # noqa: E402


def main() -> None:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    for name, draw in CASES.items():
        (GOLDEN_DIR / f"{name}.svg").write_bytes(draw().encode("utf-8"))
        print(f"wrote {GOLDEN_DIR / name}.svg")


if __name__ == "__main__":
    main()
