"""What the kernels share: the rules as a record, and the layouts of outcomes and log rows.

A :class:`~yaniv_sim.rules.Rules` reaches the kernels as one record of the
numpy type :data:`RULES` (numba reads its fields by name: ``rules.threshold``,
``rules.milestones[m, 0]``), made by :func:`rule_record` for a table size.
Each field is declared once, in :data:`RULE_FIELDS`, with its meaning and
how it is read off the rules. Nothing else about the rules crosses the numba
boundary.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from yaniv_sim.cards import N_NATURAL
from yaniv_sim.rules import MAX_MILESTONES, Rules

# hand slots: hand_size is at most 7; a hand never holds more than that
MAX_HAND = 8
MAX_SEATS = 8
MAX_CARD_SETS = 128  # distinct subsets of a 7-card hand
MAX_LAYINGS = 2048
# a laying row: the cards as laid from column 0, and in its last column the
# kind it is laid as (a discard never holds more than MAX_HAND - 1 cards)
LAY_WIDTH = MAX_HAND
LAY_KIND = LAY_WIDTH - 1

# the rules as the kernels read them: name, meaning, and the value for
# (rules, decks dealt); every field is an int64 (flags are 0 or 1)
RULE_FIELDS = (
    ("threshold", "a call needs a hand worth at most this", lambda r, d: r.threshold),
    ("assaf", "1: a lower or equal hand catches the caller", lambda r, d: r.assaf),
    ("assaf_penalty", "points a caught caller takes", lambda r, d: r.assaf_penalty),
    ("assaf_adds_hand", "1: a caught caller also scores the hand", lambda r, d: r.assaf_adds_hand),
    ("assaf_winner", "what the catcher scores: 0 zero, 1 own hand, 2 everyone zero",
     lambda r, d: ASSAF_WINNER_CODES[r.assaf_winner_scores]),
    ("joker_in_sets", "1: a joker may stand in a set", lambda r, d: r.joker_in_sets),
    ("set_draw_ends", "1: only a set's end cards may be taken", lambda r, d: r.set_draw == "ends"),
    ("limit", "a total above this puts a player out", lambda r, d: r.limit),
    ("starter_winner", "1: the round's winner starts the next round",
     lambda r, d: r.starter == "winner"),
    ("slapdown", "1: a drawn card matching the discard may be slapped down",
     lambda r, d: r.slapdown),
    ("theft", "1: landing on a milestone charges the leader", lambda r, d: r.milestone_theft),
    ("hand_size", "cards dealt to each player", lambda r, d: r.hand_size),
    ("empty_stock_ends", "1: the round ends when the stock runs out, else the pile is reshuffled",
     lambda r, d: r.empty_stock == "end_round"),
    ("max_turns", "turns after which a round is void", lambda r, d: r.max_turns),
    ("max_rounds", "rounds after which a game stops", lambda r, d: r.max_rounds),
    ("decks", "decks dealt", lambda r, d: d),
    ("jokers", "jokers in the whole deck", lambda r, d: d * r.jokers_per_deck),
    ("deck_size", "cards in the whole deck", lambda r, d: d * (N_NATURAL + r.jokers_per_deck)),
    ("n_milestones", "rows of milestones in use", lambda r, d: len(r.milestones)),
)  # fmt: skip
RULES = np.dtype(
    [(name, np.int64) for name, _, _ in RULE_FIELDS]
    + [("milestones", np.int64, (MAX_MILESTONES, 2))],  # (exact total, new total) rows
    align=True,
)

ASSAF_WINNER_CODES = {"zero": 0, "hand": 1, "all_zero": 2}
THEFT_CHARGE = 30

# rows of the piles array
STOCK = 0  # top card at pst[PS_STOCK_N] - 1
DEAD = 1  # everything under the last two discards
PREV = 2  # the previous player's discard, still takeable
CUR = 3  # the discard being laid this turn
REBUILT = 4  # the cards the stock was rebuilt from at the last reshuffle (seen by all)

# pile state vector: with the table's arrays, everything needed to play on
PS_STOCK_N = 0
PS_DEAD_N = 1
PS_PREV_N = 2
PS_PREV_KIND = 3
PS_CUR_N = 4
PS_CUR_KIND = 5
PS_TURN = 6  # turns played so far in the round
PS_SEAT = 7  # the seat to act
PS_RESHUFFLES = 8
PS_STARTER = 9
PS_REBUILT_N = 10  # cards in the REBUILT row (0 before the first reshuffle)
PS_PILE_DRAWS = 11  # bit s set: seat s's latest draw this round was from the pile
N_PILE_STATE = 12


class Force(NamedTuple):
    """Actions forced on the seat that acts at one turn of a round, whatever its policy says.

    For counterfactual play (a call decision the other way) and for search
    (each candidate played on): at turn ``turn`` the call decision is
    ``call`` (1 calls, 0 waits; the policy is still asked, so its random
    stream advances as usual); if ``discard`` >= 0 the discard is that card
    set (a slot mask of the hand) laid as its ``laying``-th laying (in the
    order of ``legal_layings``), and if ``draw`` >= -1 the draw is from there
    (-1 the stock, else a position in the previous discard); the policy is
    not asked for a forced discard or draw. ``NO_FORCE`` forces nothing.
    """

    turn: int
    call: int
    discard: int
    laying: int
    draw: int


NO_FORCE = Force(-1, 0, -1, 0, -2)

# discard kinds
KIND_SINGLE = 0
KIND_SET = 1
KIND_RUN = 2
KIND_NAMES = ("single", "set", "run")

# round outcomes
OUT_YANIV = 0
OUT_ASSAF = 1
OUT_SLAPDOWN = 2
OUT_VOID = 3
OUT_STOCK_OUT = 4
OUTCOME_NAMES = ("yaniv", "assaf", "slapdown", "void", "stock_out")

# round summary vector (per round, int64)
S_OUTCOME = 0
S_CALLER = 1  # -1 when nobody called
S_CALLER_VALUE = 2
S_TURNS = 3
S_RESHUFFLES = 4
S_WINNER = 5  # round winner for the starter rule; -1 for none
S_STARTER = 6
N_SUMMARY = 7

# turn log row (int16): who acted, what was laid, what was drawn
L_SEAT = 0
L_ACTION = 1  # 0 discard-and-draw, 1 call, 2 slapdown after this turn's draw
L_KIND = 2
L_NDISCARD = 3
L_DISCARD = 4  # MAX_HAND cards
L_SOURCE = L_DISCARD + MAX_HAND  # 0 stock, 1 previous discard, -1 none (stock out)
L_DRAWN = L_SOURCE + 1
L_RESHUFFLED = L_DRAWN + 1
L_STOCK_LEFT = L_RESHUFFLED + 1
L_HAND_N = L_STOCK_LEFT + 1
L_HAND = L_HAND_N + 1  # MAX_HAND cards, the hand after the turn
LOG_WIDTH = L_HAND + MAX_HAND

# decision log row (int16): a turn start at which the acting seat may call
D_SEAT = 0
D_TURN = 1
D_VALUE = 2
D_CALLED = 3
D_LOWEST = 4  # lowest opponent hand value (for analysis only; policies never see it)
D_OPP_CARDS = 5  # MAX_SEATS - 1 entries: cards held by the opponent k seats clockwise
D_OPP_KNOWN = D_OPP_CARDS + MAX_SEATS - 1  # of which taken from the pile
D_OPP_KNOWN_VALUE = D_OPP_KNOWN + MAX_SEATS - 1  # their value
D_HAND_CARDS = D_OPP_KNOWN_VALUE + MAX_SEATS - 1  # cards in the acting seat's own hand
DECISION_WIDTH = D_HAND_CARDS + 1

ACTION_TURN = 0
ACTION_CALL = 1
ACTION_SLAPDOWN = 2


def rule_record(rules: Rules, players: int | None) -> np.void:
    """The kernel form of ``rules`` for a table of ``players`` players: one :data:`RULES` record.

    With ``players=None`` (for questions about one hand, where no table is
    dealt) the deck fields assume one deck unless the rules fix two.
    """
    if players is None:
        decks = 2 if rules.decks == 2 else 1
    else:
        decks = rules.decks_for(players)
    record = np.zeros(1, RULES)[0]
    for name, _, value in RULE_FIELDS:
        record[name] = int(value(rules, decks))
    record["milestones"][: len(rules.milestones)] = np.reshape(rules.milestones, (-1, 2))
    return record
