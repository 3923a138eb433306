"""The old path of :mod:`tomis.archive.stats`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.archive.stats` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .archive import stats as _moved

sys.modules[__name__] = _moved
