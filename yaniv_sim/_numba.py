"""The one place that fixes how numba compiles this project's kernels."""

from __future__ import annotations

import os

import numba

from yaniv_sim._version import kernel_digest

__all__ = ["njit"]


def _cache_dir() -> str:
    """Where compiled kernels are cached: one folder per version of the kernels' source.

    numba keys a cached kernel on the source file it is written in, not on
    the files of the functions it calls and inlines; after an edit to one of
    those, it would load the old machine code. A folder named after a digest
    of all the kernels' source (``_version.KERNEL_SOURCE``) cannot hold such
    stale code.
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "yaniv-sim", "numba-" + kernel_digest())


if not os.environ.get("NUMBA_CACHE_DIR"):  # a user's own choice wins
    numba.config.CACHE_DIR = _cache_dir()

# No loop or SLP vectorisation: the kernels are branchy scalar code over small
# arrays, which LLVM's vectorisers do not speed up (max-shed and best
# self-play measured as fast or faster without them), while they cost about
# an eighth of the compile time of the round loop (docs/performance.md,
# "Compilation"). Set before numba builds its code generator, on the first
# compile; a user's own NUMBA_LOOP_VECTORIZE / NUMBA_SLP_VECTORIZE wins.
for _name in ("LOOP_VECTORIZE", "SLP_VECTORIZE"):
    if "NUMBA_" + _name not in os.environ:
        setattr(numba.config, _name, False)


def njit(*args, **kwargs):
    """``numba.njit`` with the project's options.

    Cached, numpy error model, no GIL, and no numba runtime (``_nrt=False``):
    kernels never allocate, they work in arrays their caller made, so no
    reference counting runs in the hot loop (it cost a third of the time).
    Use bare (``@njit``) or with extra options (``@njit(boundscheck=True)``).

    The cache lives in ``~/.cache/yaniv-sim/numba-<digest of the kernels'
    source>`` (or ``$NUMBA_CACHE_DIR``), so any edit starts a fresh cache.
    """
    options = {"cache": True, "error_model": "numpy", "nogil": True, "_nrt": False}
    if args and callable(args[0]) and not kwargs:
        return numba.njit(**options)(args[0])
    options.update(kwargs)
    return numba.njit(**options)
