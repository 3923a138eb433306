"""Mail, written and sent: the reply for an action, what is remembered about a game's mail,
and the way out (an SMTP server or a local sendmail program).

:mod:`.headers` makes every header value from checked data (docs/SECURITY.md, finding 1)
and writes the bytes, read back before they leave; :mod:`.message` builds every message
tomis sends (headers, text body, the record and the board attached), the referee's too;
:mod:`.reply` says what the reply to an action holds (the board, the clocks, a draw offer,
the record inline and attached); :mod:`.sidecar` keeps
the opponent's address and the thread beside the record (``RECORD.mail.json``);
:mod:`.sending` reads the SMTP settings and hands the message over. It sits just above
:mod:`tomis.mail` (the settings file) and needs nothing of :mod:`tomis.game`: a message is
made from a notation record, its board drawn by :mod:`tomis.pictures`; it prints and
prompts nothing.

``tomis.mailout`` was the one module these four were; its names answer here, loaded on
first use.
"""

from __future__ import annotations

from ..util.oldnames import answered_by

__getattr__, __dir__ = answered_by(__name__, ".headers", ".reply", ".sidecar", ".sending")
