"""The old path of :mod:`tomis.pictures.html`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.pictures.html` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .pictures import html as _moved

sys.modules[__name__] = _moved
