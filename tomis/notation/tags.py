"""The names of the tags whose values mean something to tomis beyond the roster, and those
values: one definition each, for the record reader and writer, the correspondence facts,
the clock, matches, select and stats.
"""

TIME_CONTROL_TAG = "TimeControl"
# Days of leave each side may take per calendar year; without the tag, DEFAULT_LEAVE_DAYS.
LEAVE_DAYS_TAG = "LeaveDays"
# The PGN standard's Termination tag, for a result an arbiter gave, not the rules or the
# players (R23): `tomis match` and a time claim write it, select and stats read it.
TERMINATION_TAG = "Termination"
ABANDONED = "abandoned"
TIME_FORFEIT = "time forfeit"
RULES_INFRACTION = "rules infraction"
ADJUDICATION = "adjudication"
# PGN's value for a game that ended by the rules or by the players (resigned, agreed):
# the referee writes it with a comment naming the ending (tomis.notation.ending).
NORMAL = "normal"
