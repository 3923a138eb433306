"""Collection rules for the whole checkout (the tests' own helpers are in tests/).

The modules left at old import paths (``tomis/board.py`` and the like) hand over the
moved module itself; pytest's doctest collection would import each one under a second
name and refuse it. Their doctests run once, where the code now lives.
"""

from pathlib import Path

_MARK = "sys.modules[__name__] = "

collect_ignore = [str(path) for path in sorted((Path(__file__).parent / "tomis").glob("*.py"))
                  if _MARK in path.read_text(encoding="utf-8")]
