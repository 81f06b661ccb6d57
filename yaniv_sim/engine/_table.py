"""The state of a table in one round, as one value the kernels pass around.

:class:`Table` is a named tuple of arrays; numba passes it to a kernel as a
single argument and reads its fields by name. Together with the rule vector
it is a complete position: every hand, the stock in order, the pile, whose
turn it is, the random streams. Playing on from a saved copy of a table
plays the round exactly as it would have gone on.

Fields (``seats`` seats, ``DECK_CAPACITY`` = two decks and their jokers):

``hands`` int16[seats, MAX_HAND], ``taken`` int8[seats, MAX_HAND]
    Each hand sorted by card order; ``taken`` marks the cards the seat took
    from the pile, which everyone saw.
``hand_n``, ``hand_val`` int64[seats]
    Cards in each hand and their value.
``piles`` int16[5, DECK_CAPACITY]
    Rows ``STOCK`` (next draw at ``pst[PS_STOCK_N] - 1``), ``DEAD`` (under
    the pile), ``PREV`` (the previous discard, as laid), ``CUR`` (the
    discard being laid) and ``REBUILT`` (the cards the stock was rebuilt
    from at the last reshuffle, ``pst[PS_REBUILT_N]`` of them: everyone saw
    them go under the pile, so a seat with a memory for cards knows the
    stock holds only these).
``pst`` int64[N_PILE_STATE]
    Pile lengths and kinds, the turn, the seat to act, reshuffles so far
    and the round's starter (the ``PS_*`` fields of ``_layout``).
``rng`` uint64[1 + seats]
    The round's random streams: 0 shuffles, ``1 + seat`` is a policy's own.
``alive`` int8[seats], ``totals`` int64[seats]
    Seats still in the game and their running totals before the round.
``cand`` int64[3, MAX_CARD_SETS]; ``lay`` int16[MAX_LAYINGS, LAY_WIDTH]; ``lay_len``
int64[MAX_LAYINGS]
    Scratch: the card sets of a hand, and layings of them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yaniv_sim.cards import N_NATURAL
from yaniv_sim.engine._layout import (
    DECISION_WIDTH,
    LAY_WIDTH,
    LOG_WIDTH,
    MAX_CARD_SETS,
    MAX_HAND,
    MAX_LAYINGS,
    N_PILE_STATE,
    N_SUMMARY,
)

DECK_CAPACITY = 2 * N_NATURAL + 8


class Table(NamedTuple):
    hands: np.ndarray
    taken: np.ndarray
    hand_n: np.ndarray
    hand_val: np.ndarray
    piles: np.ndarray
    pst: np.ndarray
    rng: np.ndarray
    alive: np.ndarray
    totals: np.ndarray
    cand: np.ndarray
    lay: np.ndarray
    lay_len: np.ndarray


def new_table(seats: int) -> Table:
    """A fresh table for ``seats`` seats, everyone in at a total of 0."""
    return Table(
        hands=np.zeros((seats, MAX_HAND), np.int16),
        taken=np.zeros((seats, MAX_HAND), np.int8),
        hand_n=np.zeros(seats, np.int64),
        hand_val=np.zeros(seats, np.int64),
        piles=np.zeros((5, DECK_CAPACITY), np.int16),
        pst=np.zeros(N_PILE_STATE, np.int64),
        rng=np.zeros(1 + seats, np.uint64),
        alive=np.ones(seats, np.int8),
        totals=np.zeros(seats, np.int64),
        cand=np.zeros((3, MAX_CARD_SETS), np.int64),
        lay=np.zeros((MAX_LAYINGS, LAY_WIDTH), np.int16),
        lay_len=np.zeros(MAX_LAYINGS, np.int64),
    )


class RoundOut(NamedTuple):
    """Where a round kernel writes its results.

    ``summary`` int64[rows, N_SUMMARY], ``values`` / ``scores``
    int64[rows, seats]: the round writes one row (given to the kernel).
    ``log`` int16[rows, LOG_WIDTH]: one row per turn, call or slapdown
    (``max_turns + 2`` rows to record, zero rows not to). ``dec``
    int16[rows, DECISION_WIDTH] and ``dec_n`` int64[1]: a row for every turn
    start at which the acting seat could call, appended at ``dec_n[0]``
    (zero rows not to log; past the end only the count grows).
    """

    summary: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    log: np.ndarray
    dec: np.ndarray
    dec_n: np.ndarray


def new_round_out(
    players: int, log_rows: int = 0, rows: int = 1, decision_rows: int = 0
) -> RoundOut:
    """Result arrays for ``rows`` rounds, a turn log and a decision log of the given sizes."""
    return RoundOut(
        summary=np.zeros((rows, N_SUMMARY), np.int64),
        values=np.zeros((rows, players), np.int64),
        scores=np.zeros((rows, players), np.int64),
        log=np.zeros((log_rows, LOG_WIDTH), np.int16),
        dec=np.zeros((decision_rows, DECISION_WIDTH), np.int16),
        dec_n=np.zeros(1, np.int64),
    )
