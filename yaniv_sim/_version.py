"""The installed version of yaniv-sim (``0.0.0+unknown`` in a source tree never installed)."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("yaniv-sim")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"


@cache
def source_digest() -> str:
    """A digest of every source file of the package (names and bytes), 16 hex digits.

    Two installs with the same digest run the same code; datasets record it
    and compiled kernels are cached under it.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
