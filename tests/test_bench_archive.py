"""bench/gen_archive.py and bench/bench_archive.py run on a tiny corpus, so they cannot rot.

Only exit codes and the presence of each figure are checked, never a time or a size.
"""

from __future__ import annotations

import pytest
from conftest import bench_output as run

pytest.importorskip("chess")



def test_gen_archive_writes_valid_games(tmp_path):
    from tomis import read_games

    out = tmp_path / "a.tgn"
    text = run("gen_archive.py", "--games", "30", "--pool", "7", "--out", str(out))
    assert "30 games" in text
    games = list(read_games(out))
    assert len(games) == 30 and all(game.error is None for game in games)
    assert len({str(game.actions) for game in games}) == 7      # the pool, cycled


@pytest.mark.slow
def test_bench_archive_prints_every_figure(tmp_path):
    corpus = tmp_path / "corpus"
    run("gen_games.py", "--games", "3", "--max-actions", "60", "--out", str(corpus))
    text = run("bench_archive.py", "--corpus", str(corpus), "--sizes", "20", "40",
               "--memory-mib", "0.05")
    for figure in ("python-chess read_game + replay", "tomis validate -j 1", "tomis validate -j 2",
                   "ratio to python-chess", "peak RSS", "largest worker", "us/game", "2x the games",
                   "CPU inside the command"):
        assert figure in text, figure
