"""Where a picture or a replay page cannot be written: one line naming the file, the
reason and that nothing was written, in the words of every other writer; exit 1."""

from __future__ import annotations

import pytest
from conftest import SAMPLES_DIR, invoke

GAME = SAMPLES_DIR / "manual-win.tgn"


@pytest.mark.parametrize("command", [["show", GAME, "--svg"], ["export", GAME, "--html"]],
                         ids=["svg", "html"])
def test_an_output_in_a_missing_folder_is_one_line_and_nothing_is_written(tmp_path, command):
    out = tmp_path / "no-such-folder" / "out"
    result = invoke(*command, "-o", out)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{out}: cannot save: the folder does not exist; nothing was written"]
    assert not out.parent.exists()
