"""The search's nodes per second in two installations side by side: the pure Python build
and the compiled one (``TOMIS_COMPILE=1``), or any two interpreters (issue 45).

    python bench/bench_compiled.py --python /tmp/pure/bin/python --python /tmp/compiled/bin/python \
        [--nodes 20000] [--repeat 3]

Each interpreter searches the positions of ``bench/search_positions.txt`` to ``--nodes``
nodes (the same positions for both), in its own process, and reports the CPU time of
each search (``time.process_time``: the machine's cores are shared). The two take turns,
pass by pass, ``--repeat`` passes each; per position the fastest pass counts. A node
limit makes both builds search the same tree (tests/test_compiled.py checks the same
action, score and line), so the nodes per second compare like with like. Then each
level's time per action over the same positions, once per build.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess

import _common

POSITIONS = _common.BENCH_DIR / "search_positions.txt"

# Run by each interpreter: one pass over the positions, its CPU times as JSON.
ONE_PASS = r"""
import json, sys, time
from tomis.engine.levels import LEVELS
from tomis.engine.search import Limits, Search
from tomis.rules.compiled import build_name
from tomis.rules.position import from_string

positions, nodes, levels = json.loads(sys.stdin.read())
found = {"build": build_name(), "searches": [], "levels": {}}
for text in positions:
    state = from_string(text)
    start = time.process_time()
    result = Search(0).run(state, Limits(nodes=nodes))
    found["searches"].append([result.nodes, time.process_time() - start, str(result.action), result.score])
for level in levels:
    times = []
    for text in positions:
        state = from_string(text)
        start = time.process_time()
        Search(0).run(state, LEVELS[level].limits)
        times.append(time.process_time() - start)
    found["levels"][level] = times
print(json.dumps(found))
"""


def one_pass(python: str, positions: list[str], nodes: int, levels: list[int]) -> dict:
    done = subprocess.run([python, "-c", ONE_PASS], input=json.dumps([positions, nodes, levels]),
                          capture_output=True, text=True, check=True, cwd="/")
    return json.loads(done.stdout)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", action="append", required=True, help="an interpreter (give two)")
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--levels", default="6,7,8", help="levels timed per action, once per build")
    args = parser.parse_args(argv)
    positions = [line.strip() for line in POSITIONS.read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
    levels = [int(word) for word in args.levels.split(",") if word]
    passes: dict[str, list[dict]] = {python: [] for python in args.python}
    for index in range(args.repeat):
        for python in args.python if index % 2 == 0 else reversed(args.python):
            passes[python].append(one_pass(python, positions, args.nodes, levels if index == 0 else []))
    print(_common.machine())
    rates = {}
    for python, runs in passes.items():
        nodes = sum(search[0] for search in runs[0]["searches"])
        fastest = [min(run["searches"][i][1] for run in runs) for i in range(len(positions))]
        rates[python] = nodes / sum(fastest)
        answers = {tuple(search[2:]) for run in runs for search in run["searches"]}
        print(f"{runs[0]['build']} ({python}): {rates[python]:,.0f} nodes/s over {len(positions)} positions, "
              f"{args.nodes:,} nodes each (fastest of {len(runs)}); {len(answers)} distinct answers")
        for level, times in runs[0]["levels"].items():
            print(f"  level {level} per action: median {statistics.median(times):.3f} s, "
                  f"largest {max(times):.3f} s")
    if len(args.python) == 2:
        first, second = args.python
        print(f"ratio {rates[second] / rates[first]:.2f} x (second / first)")
        same = [a["searches"][i][2:] == b["searches"][i][2:]
                for a, b in [(passes[first][0], passes[second][0])] for i in range(len(positions))]
        print(f"same action and score in both: {sum(same)} of {len(positions)}")


if __name__ == "__main__":
    main()
