"""The season's mathematics: ratings, pairings and tie-breaks, pure (no store, no mail)."""
