"""``python -m tomis.engine``: speak UGI on stdin/stdout (the same as ``tomis engine``)."""

import sys

from .ugi import run

sys.exit(run())
