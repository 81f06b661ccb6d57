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

    Two installs with the same digest run the same code; datasets record it.
    """
    return _digest(sorted(_ROOT.rglob("*.py")))


# the source the compiled kernels are made of: every module holding a kernel another
# module's kernel calls or inlines, or a global array such kernels read (cards,
# policy layouts). A module whose kernels call only kernels of its own file (equity)
# needs no place here: numba itself notices an edit to that file.
KERNEL_SOURCE = (
    "engine",
    "simulation",
    "policies",
    "cards.py",
    "_assaf_count.py",
    "_assaf_halves.py",
    "_numba.py",
)


def kernel_digest() -> str:
    """A digest of the kernels' source (:data:`KERNEL_SOURCE`): compiled kernels are cached
    under it, so an edit to the command line or the report does not recompile them."""
    paths = []
    for name in KERNEL_SOURCE:
        path = _ROOT / name
        paths += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return _digest(paths)


_ROOT = Path(__file__).resolve().parent


def _digest(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(_ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
