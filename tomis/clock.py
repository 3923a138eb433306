"""The old path of :mod:`tomis.notation.clock`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.notation.clock` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .notation import clock as _moved

sys.modules[__name__] = _moved
