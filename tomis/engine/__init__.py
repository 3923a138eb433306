"""The computer opponent: evaluation, search, levels, the UGI protocol and matches.

Nothing here but :mod:`tomis.engine.ugi` and :mod:`tomis.engine.match` does I/O; the
search (:mod:`.search`) and the evaluation (:mod:`.evaluate`) are pure.
"""
