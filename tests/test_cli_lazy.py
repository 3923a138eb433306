"""The CLI imports a command's module only when that command runs (start-up time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "readme-win.tgn"

# Print the command modules loaded once `tomis validate SAMPLE` has run.
PROBE = """
import sys
from tomis.cli import main
try:
    main(["validate", sys.argv[1]])
except SystemExit:
    pass
print(" ".join(sorted(name for name in sys.modules if name.startswith("tomis.cli."))), file=sys.stderr)
"""


def test_validate_loads_no_other_command_module():
    done = subprocess.run([sys.executable, "-c", PROBE, str(SAMPLE)], capture_output=True, text=True)
    loaded = set(done.stderr.split())
    assert "tomis.cli.check" in loaded
    others = {"tomis.cli." + name for name in ("records", "views", "play", "mail", "engine",
                                                "correspondence", "pictures", "manual", "lineedit")}
    assert not loaded & others, sorted(loaded & others)


def test_help_still_lists_every_command():
    from click.testing import CliRunner

    from tomis.cli import COMMANDS, cli

    shown = CliRunner().invoke(cli, ["--help"]).output
    for name in COMMANDS:
        assert f"\n  {name} " in shown, name


# Report, after `tomis validate SAMPLE` and tomis's own exit handlers, what the collector
# was set to and how many objects the final collection is spared.
COLLECTOR_PROBE = """
import atexit, gc, sys
from tomis.cli import COMMAND_GC_THRESHOLD, main
default = gc.get_threshold()[0]
atexit.register(lambda: print(default, gc.get_threshold()[0], COMMAND_GC_THRESHOLD,
                              gc.get_freeze_count(), file=sys.stderr))   # runs after tomis's
main(["validate", sys.argv[1]])
"""


def test_a_command_collects_sparsely_and_spares_the_final_collection():
    done = subprocess.run([sys.executable, "-c", COLLECTOR_PROBE, str(SAMPLE)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    default, during, wanted, frozen = (int(word) for word in done.stderr.split())
    assert default != wanted and during == wanted
    assert frozen > 10_000          # the modules, classes and tables loaded on the way


def test_lazy_pattern_compiles_on_first_use_and_acts_as_the_pattern():
    import re

    from tomis.util.lazyre import LazyPattern

    lazy = LazyPattern(r"(?P<digits>[0-9]+)\.", re.ASCII)
    assert lazy._compiled is None
    assert lazy.match("12. B@e1")["digits"] == "12"
    assert lazy.pattern == r"(?P<digits>[0-9]+)\." and lazy.flags & re.ASCII
    assert [m.group() for m in lazy.finditer("1. 2. x")] == ["1.", "2."]
    assert lazy.compiled() is lazy.compiled()      # compiled once
