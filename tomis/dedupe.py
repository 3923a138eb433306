"""The old path of :mod:`tomis.archive.dedupe`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.archive.dedupe` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .archive import dedupe as _moved

sys.modules[__name__] = _moved
