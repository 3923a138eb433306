"""The old path of :mod:`tomis.cli.lineedit`, kept so that scripts importing it keep working.

Importing it gives :mod:`tomis.cli.lineedit` itself (the same module object), so every name,
private ones too, and any change made to one, is shared.
"""

import sys

from .cli import lineedit as _moved

sys.modules[__name__] = _moved
