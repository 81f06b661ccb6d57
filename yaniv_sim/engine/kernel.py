"""The engine's kernel interface, for batch code outside the engine (``yaniv_sim.simulation``).

Everything a batch kernel needs from the engine, under one public name: the
table state and result values, the round and game kernels and their
max-shed-only copies, and the integer layouts of the rule vector and the
log rows. Batch code imports from here, never from the engine's private
modules.
"""

from __future__ import annotations

from yaniv_sim.engine._layout import (
    D_CALLED,
    D_LOWEST,
    D_OPP_CARDS,
    D_OPP_KNOWN,
    D_OPP_KNOWN_VALUE,
    D_SEAT,
    D_TURN,
    D_VALUE,
    DECISION_WIDTH,
    LOG_WIDTH,
    N_SUMMARY,
    NO_FORCE,
    OUTCOME_NAMES,
    R_MAX_ROUNDS,
    S_CALLER,
    S_CALLER_VALUE,
    S_OUTCOME,
    S_RESHUFFLES,
    S_STARTER,
    S_TURNS,
    S_WINNER,
    rule_params,
)
from yaniv_sim.engine._play import (
    _no_force,
    _plan,
    _play_game,
    _play_round,
    new_game_scratch,
    whole_game,
)
from yaniv_sim.engine._rng import normalise_seed
from yaniv_sim.engine._scoring import _next_starter
from yaniv_sim.engine._table import RoundOut, Table, new_round_out, new_table
from yaniv_sim.engine._variants import clone, variant
from yaniv_sim.engine._variants import play_game as play_game_base
from yaniv_sim.engine._variants import play_round as play_round_base

# the kernels under their public names (numba functions: call them from njit code)
play_round = _play_round
play_game = _play_game
no_force = _no_force  # the force argument that forces nothing (in njit code)
game_plan = _plan  # a play_game plan of plain int64s (in njit code)
next_starter = _next_starter

__all__ = [
    "DECISION_WIDTH",
    "D_CALLED",
    "D_LOWEST",
    "D_OPP_CARDS",
    "D_OPP_KNOWN",
    "D_OPP_KNOWN_VALUE",
    "D_SEAT",
    "D_TURN",
    "D_VALUE",
    "LOG_WIDTH",
    "NO_FORCE",
    "N_SUMMARY",
    "OUTCOME_NAMES",
    "R_MAX_ROUNDS",
    "S_CALLER",
    "S_CALLER_VALUE",
    "S_OUTCOME",
    "S_RESHUFFLES",
    "S_STARTER",
    "S_TURNS",
    "S_WINNER",
    "RoundOut",
    "Table",
    "clone",
    "game_plan",
    "new_game_scratch",
    "new_round_out",
    "new_table",
    "next_starter",
    "no_force",
    "normalise_seed",
    "play_game",
    "play_game_base",
    "play_round",
    "play_round_base",
    "rule_params",
    "variant",
    "whole_game",
]
