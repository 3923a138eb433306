"""A UGI engine with other evaluation weights, to match them against the shipped ones.

    tomis match level:6 "python bench/weights_engine.py weights.json" --games 100

``weights.json`` holds a JSON object of term -> weight (any subset of
:data:`tomis.engine.evaluate.TERMS`); the engine is otherwise ``tomis engine``, at its
default level unless told with ``setoption name Level``.
"""

from __future__ import annotations

import json
import sys

from tomis.engine import evaluate
from tomis.engine.ugi import run

if __name__ == "__main__":
    with open(sys.argv[1]) as source:
        evaluate.set_weights(json.load(source))
    sys.exit(run())
