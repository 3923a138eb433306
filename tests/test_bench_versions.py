"""bench/bench_versions.py runs against a commit of this repository on a tiny corpus.

Only the exit code and the presence of each figure are checked, never a time. Skipped
outside a git checkout (the script takes the older package from git).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"


def git_head() -> str | None:
    if shutil.which("git") is None:
        return None
    proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def test_before_and_after_figures_are_printed_for_each_job(tmp_path):
    head = git_head()
    if head is None:
        pytest.skip("not a git checkout")
    corpus = tmp_path / "corpus"
    made = subprocess.run([sys.executable, str(BENCH / "gen_games.py"), "--games", "2", "--max-actions", "40",
                           "--no-chess", "--out", str(corpus)], capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    proc = subprocess.run([sys.executable, str(BENCH / "bench_versions.py"), "--before", head,
                           "--corpus", str(corpus), "--games", "2", "--passes", "1", "--starts", "1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for job in ("record.read", "rules.apply", "legal_actions"):
        assert re.search(rf"^{job}: before [0-9.]+ us/\w+, after [0-9.]+ us/\w+, after/before [0-9.]+$",
                         proc.stdout, re.MULTILINE), proc.stdout
    for command in ("tomis --help", "tomis validate one.tgn"):
        assert re.search(rf"^{command} \(CPU\): before [0-9.]+ ms, after [0-9.]+ ms, after/before [0-9.]+$",
                         proc.stdout, re.MULTILINE), proc.stdout
