"""The old path of :mod:`tomis.archive.reports`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.archive.reports` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .archive import reports as _moved

sys.modules[__name__] = _moved
