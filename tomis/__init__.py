"""Tomis: rules engine, notation, game records and command line for the space board game.

The package imports nothing on its own so that ``tomis --help`` stays fast; import the
layer you need (``tomis.rules``, ``tomis.record``, ...). See docs/ARCHITECTURE.md.
"""

__version__ = "0.1.0"
