"""The old path of :mod:`tomis.util.textio`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.util.textio` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .util import textio as _moved

sys.modules[__name__] = _moved
