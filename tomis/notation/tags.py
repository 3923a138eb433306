"""Tag names and values more than one module of the notation layer writes or reads.

Defined once here, below the record reader and the correspondence modules, so that a
plain record never imports the clock to know a tag's name.
"""

from __future__ import annotations

TIME_CONTROL_TAG = "TimeControl"   # a correspondence clock (docs/NOTATION.md)
# The PGN standard's Termination tag, for a result an arbiter gave, not the rules or the
# players (R23): `tomis match` and a claim on time write it, select and stats read it.
TERMINATION_TAG = "Termination"
ABANDONED, TIME_FORFEIT, RULES_INFRACTION, ADJUDICATION = (
    "abandoned", "time forfeit", "rules infraction", "adjudication")
