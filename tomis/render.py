"""The old path of :mod:`tomis.pictures.render`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.pictures.render` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .pictures import render as _moved

sys.modules[__name__] = _moved
