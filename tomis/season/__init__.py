"""The season's mathematics: pairings, tie-breaks and ratings, pure (no store, no mail).

The referee's modules (:mod:`tomis.referee`) call these with numbers and results they
read from the store; nothing here knows where those came from.
"""
