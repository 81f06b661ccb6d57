"""The installed version of yaniv-sim (``0.0.0+unknown`` in a source tree never installed)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("yaniv-sim")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"
