"""The bottom layer: helpers that know no game.

Decoding outside bytes within the documented size limits (:mod:`.textio`), atomic
writes and the file lock (:mod:`.safefile`), the colour policy of a terminal
(:mod:`.terminal`) and second guesses for a user's slips (:mod:`.hints`). They import
nothing of tomis but :mod:`tomis.errors`.
"""
