"""The one place that fixes how numba compiles this project's kernels."""

from __future__ import annotations

import numba

__all__ = ["njit"]


def njit(*args, **kwargs):
    """``numba.njit`` with the project's options.

    Cached, numpy error model, no GIL, and no numba runtime (``_nrt=False``):
    kernels never allocate, they work in arrays their caller made, so no
    reference counting runs in the hot loop (it cost a third of the time).
    Use bare (``@njit``) or with extra options (``@njit(boundscheck=True)``).

    numba's cache does not key on these options: after changing them, delete
    the ``__pycache__/*.nbi`` and ``*.nbc`` files.
    """
    options = {"cache": True, "error_model": "numpy", "nogil": True, "_nrt": False}
    if args and callable(args[0]) and not kwargs:
        return numba.njit(**options)(args[0])
    options.update(kwargs)
    return numba.njit(**options)
