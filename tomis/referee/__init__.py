"""``tomis referee``: a play-by-email server that keeps the games, stamps the clocks and
mails both players, so that players need nothing but a mail program.

A queue of messages, in one SQLite store (:class:`.store.Store`, which owns the
connection, every transaction and all the SQL, with a part per stage of the queue):

1. ``deliver`` stores each raw message first (:func:`.service.store_message`) and commits;
2. one step per stored message (:mod:`.process`) reads it (:mod:`.inbound`), checks who
   sent it (:mod:`.tokens`), applies its commands to the game (:mod:`.games`) and queues
   the mail this causes (:mod:`.queueing`), all in one transaction;
3. the queued mail is sent (:mod:`.sending`), each message marked sent on its own.

Every step can be re-run after a crash with the same result. The rules for players are
docs/REFEREE.md. This package sits just below the CLI: it imports library modules, never
:mod:`tomis.cli`.
"""
