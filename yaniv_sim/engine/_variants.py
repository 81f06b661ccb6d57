"""Kernel variants for max-shed-only tables, which compile much faster.

The heuristic family and the random test device are over a third of the
round kernel's compile time. numba treats module globals as compile-time
constants and drops branches on them, so a copy of the decision functions
whose globals say ``HEURISTICS = False`` and ``RANDOM_POLICY = False`` never
compiles that code; copies of the kernels above them call those copies. Each
copy has its own name, so numba caches it apart.

``variant(kernel, policies)`` picks the kernel to call for a policy matrix.
"""

from __future__ import annotations

import types

import numpy as np

import yaniv_sim.engine._play as _play
import yaniv_sim.engine._policy as _policy
from yaniv_sim._numba import njit


def clone(dispatcher, name: str, **globals_):
    """A new numba function with ``dispatcher``'s code and options, some globals replaced."""
    py = dispatcher.py_func
    namespace = dict(py.__globals__)
    namespace.update(globals_)
    func = types.FunctionType(py.__code__, namespace, name, py.__defaults__, py.__closure__)
    func.__qualname__ = name
    func.__module__ = py.__module__
    func.__doc__ = py.__doc__
    return njit(inline=dispatcher.targetoptions.get("inline", "never"))(func)


_decisions = {
    name: clone(getattr(_policy, name), f"{name}_base", HEURISTICS=False, RANDOM_POLICY=False)
    for name in ("_wants_call", "_wants_slapdown", "_choose_discard", "_choose_draw")
}
play_on = clone(_play._play_on, "_play_on_base", **_decisions)
play_round = clone(_play._play_round, "_play_round_base", _play_on=play_on)
play_game = clone(_play._play_game, "_play_game_base", _play_round=play_round)
play_rounds = clone(_play._play_rounds, "_play_rounds_base", _play_round=play_round)

BASE = {
    _play._play_on: play_on,
    _play._play_round: play_round,
    _play._play_game: play_game,
    _play._play_rounds: play_rounds,
}


def only_max_shed(pol: np.ndarray) -> bool:
    """Whether every policy in a policy matrix (or a stack of them) is max-shed."""
    return bool((np.asarray(pol)[..., _policy.P_KIND] == _policy.KIND_MAX_SHED).all())


def variant(kernel, pol: np.ndarray, base: dict | None = None):
    """The lighter copy of ``kernel`` for max-shed-only tables, else ``kernel`` itself."""
    if only_max_shed(pol):
        return (base or BASE)[kernel]
    return kernel
