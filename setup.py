"""The package list, found rather than written (everything else is in pyproject.toml).

``[tool.setuptools.packages.find]`` cannot add a package from outside the folder it
searches, and ``tomis.grammar`` comes from ``grammar/`` at the top of the checkout; so
the list is computed here: every package under ``tomis/`` plus that one.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["tomis", "tomis.*"]), "tomis.grammar"])
