"""The old path of :mod:`tomis.rules.board`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.rules.board` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .rules import board as _moved

sys.modules[__name__] = _moved
