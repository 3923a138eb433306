"""The old path of :mod:`tomis.util.hints`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.util.hints` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .util import hints as _moved

sys.modules[__name__] = _moved
