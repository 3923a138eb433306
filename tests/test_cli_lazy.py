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
