"""Write the manual page tomis/data/tomis.1 from the click commands (tomis/cli/manual.py).

Run it after changing a command, an option or a help text; tests/test_cli_manual.py
fails until you do.

    python tools/gen_manpage.py          # rewrite tomis/data/tomis.1
    python tools/gen_manpage.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tomis" / "data" / "tomis.1"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tomis.cli import cli
    from tomis.cli.manual import manpage

    text = manpage(cli)
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run python tools/gen_manpage.py")
            return 1
        return 0
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
