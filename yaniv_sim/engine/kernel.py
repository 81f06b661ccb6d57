"""The engine's kernel interface, for batch code outside the engine (``yaniv_sim.simulation``).

Everything code outside the engine needs to drive its kernels, under one
public name: the rules record and the policy records, the table state and
result values, the round and game kernels, the steps and decisions a search
plays with, and the integer layouts of the piles and log rows. Batch code
(:mod:`yaniv_sim.simulation`), benches and tests import from here, never
from the engine's private modules.
"""

from __future__ import annotations

from yaniv_sim.engine._discards import _card_sets
from yaniv_sim.engine._heuristic import _assaf_risk, _p_at_most, table_index
from yaniv_sim.engine._layout import (
    CUR,
    D_CALLED,
    D_HAND_CARDS,
    D_LOWEST,
    D_OPP_CARDS,
    D_OPP_KNOWN,
    D_OPP_KNOWN_VALUE,
    D_SEAT,
    D_TURN,
    D_VALUE,
    DEAD,
    DECISION_WIDTH,
    KIND_NAMES,
    LOG_WIDTH,
    MAX_SEATS,
    N_SUMMARY,
    NO_FORCE,
    OUTCOME_NAMES,
    PREV,
    PS_CUR_KIND,
    PS_CUR_N,
    PS_DEAD_N,
    PS_PREV_KIND,
    PS_PREV_N,
    PS_STOCK_N,
    PS_TURN,
    RULES,
    S_CALLER,
    S_CALLER_VALUE,
    S_OUTCOME,
    S_RESHUFFLES,
    S_STARTER,
    S_TURNS,
    S_WINNER,
    STOCK,
    rule_record,
)
from yaniv_sim.engine._play import (
    GamePlan,
    _no_force,
    _plan,
    _play_game,
    _play_round,
    _play_rounds,
    new_game_scratch,
    whole_game,
)
from yaniv_sim.engine._policy import (
    POLICY,
    _choose_discard,
    _choose_draw,
    _rotation,
    _wants_call,
    policy_records,
)
from yaniv_sim.engine._rng import _seed_round_streams, normalise_seed
from yaniv_sim.engine._scoring import _next_starter
from yaniv_sim.engine._search import Search, new_search, search_workspace
from yaniv_sim.engine._table import RoundOut, Table, new_round_out, new_table
from yaniv_sim.engine._worlds import _sample_world, _seed_sampler

# the kernels under their public names (numba functions: call them from njit code)
play_round = _play_round
play_game = _play_game
play_rounds = _play_rounds  # independent rounds of game 0 (see engine.play_rounds)
no_force = _no_force  # the force argument that forces nothing (in njit code)
game_plan = _plan  # a play_game plan of plain int64s (in njit code)
next_starter = _next_starter
card_sets = _card_sets  # (hands, seat, n, joker_in_sets, cand) -> card sets listed in cand
wants_call = _wants_call  # the decisions: (pol, seat, rules, t) -> ...
choose_discard = _choose_discard
choose_draw = _choose_draw
assaf_risk = _assaf_risk  # the heuristic's in-game Assaf risk
p_at_most = _p_at_most
seed_round_streams = _seed_round_streams
sample_world = _sample_world  # (t, seat, world, rng): deal a world the seat cannot tell from t
seed_sampler = _seed_sampler
seating = _rotation  # the policy records of seating rotation q of a stack (in njit code)


def table_of(position, rules, seed: int = 0) -> Table:
    """The kernel table of a :class:`~yaniv_sim.engine.Position` (checked), streams seeded by
    ``seed`` when it has none."""
    from yaniv_sim.engine.positions import _to_table

    return _to_table(position, rules, seed)


def position_of(t: Table):
    """The :class:`~yaniv_sim.engine.Position` a kernel table holds (a copy)."""
    from yaniv_sim.engine.positions import _from_table

    return _from_table(t)


__all__ = [
    "CUR",
    "DEAD",
    "DECISION_WIDTH",
    "D_CALLED",
    "D_HAND_CARDS",
    "D_LOWEST",
    "D_OPP_CARDS",
    "D_OPP_KNOWN",
    "D_OPP_KNOWN_VALUE",
    "D_SEAT",
    "D_TURN",
    "D_VALUE",
    "KIND_NAMES",
    "LOG_WIDTH",
    "MAX_SEATS",
    "NO_FORCE",
    "N_SUMMARY",
    "OUTCOME_NAMES",
    "POLICY",
    "PREV",
    "PS_CUR_KIND",
    "PS_CUR_N",
    "PS_DEAD_N",
    "PS_PREV_KIND",
    "PS_PREV_N",
    "PS_STOCK_N",
    "PS_TURN",
    "RULES",
    "STOCK",
    "S_CALLER",
    "S_CALLER_VALUE",
    "S_OUTCOME",
    "S_RESHUFFLES",
    "S_STARTER",
    "S_TURNS",
    "S_WINNER",
    "GamePlan",
    "RoundOut",
    "Search",
    "Table",
    "assaf_risk",
    "card_sets",
    "choose_discard",
    "choose_draw",
    "game_plan",
    "new_game_scratch",
    "new_round_out",
    "new_search",
    "new_table",
    "next_starter",
    "no_force",
    "normalise_seed",
    "p_at_most",
    "play_game",
    "play_round",
    "play_rounds",
    "policy_records",
    "position_of",
    "rule_record",
    "sample_world",
    "search_workspace",
    "seating",
    "seed_round_streams",
    "seed_sampler",
    "table_index",
    "table_of",
    "wants_call",
    "whole_game",
]
