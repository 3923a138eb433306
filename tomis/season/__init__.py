"""A club's season as pure reckoning: ratings (Glicko-2), pairings (round robins by Berger
tables, Swiss rounds by maximum-weight matching) and tie-breaks. No store and no mail here:
the referee (:mod:`tomis.referee`) keeps the season and calls these."""
