"""Integer layouts shared by the kernels: rule parameters, outcomes, log rows.

A :class:`~yaniv_sim.rules.Rules` reaches the kernels as one ``int64`` vector
(``rp``, indexed by the ``R_*`` constants) and an ``int64`` array of milestones
of shape ``(m, 2)``. Nothing else about the rules crosses the numba boundary.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim.cards import N_NATURAL
from yaniv_sim.rules import Rules

# hand slots: hand_size is at most 7; a hand never holds more than that
MAX_HAND = 8
MAX_SEATS = 8
MAX_CARD_SETS = 128  # distinct subsets of a 7-card hand
MAX_LAYINGS = 2048
# a laying row: the cards as laid from column 0, and in its last column the
# kind it is laid as (a discard never holds more than MAX_HAND - 1 cards)
LAY_WIDTH = MAX_HAND
LAY_KIND = LAY_WIDTH - 1

# rule parameter vector
R_THRESHOLD = 0
R_ASSAF = 1
R_ASSAF_PENALTY = 2
R_ASSAF_ADDS_HAND = 3
R_ASSAF_WINNER = 4  # 0 zero, 1 hand, 2 all_zero
R_JOKER_IN_SETS = 5
R_SET_DRAW_ENDS = 6
R_LIMIT = 7
R_STARTER_WINNER = 8
R_SLAPDOWN = 9
R_THEFT = 10
R_HAND_SIZE = 11
R_EMPTY_STOCK_ENDS = 12
R_MAX_TURNS = 13
R_MAX_ROUNDS = 14
R_DECK_SIZE = 15
R_DECKS = 16
R_JOKERS = 17  # jokers in the whole deck
R_N_MILESTONES = 18
N_RULE_PARAMS = 19
R_MILESTONES = N_RULE_PARAMS  # then (total, new total) pairs, for the policies

ASSAF_WINNER_CODES = {"zero": 0, "hand": 1, "all_zero": 2}
THEFT_CHARGE = 30

# rows of the piles array
STOCK = 0  # top card at pst[PS_STOCK_N] - 1
DEAD = 1  # everything under the last two discards
PREV = 2  # the previous player's discard, still takeable
CUR = 3  # the discard being laid this turn

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
N_PILE_STATE = 10

# a forced call decision, for counterfactual play: (turn, call); NO_FORCE forces none
NO_FORCE = (-1, 0)

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
DECISION_WIDTH = D_OPP_KNOWN_VALUE + MAX_SEATS - 1

ACTION_TURN = 0
ACTION_CALL = 1
ACTION_SLAPDOWN = 2


def rule_params(rules: Rules, players: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The kernel form of ``rules`` for a table of ``players`` players.

    With ``players=None`` (for questions about one hand, where no table is
    dealt) the deck fields assume one deck unless the rules fix two.

    Returns
    -------
    rp : numpy.ndarray
        ``int64`` vector: ``N_RULE_PARAMS`` fields, then the milestones as
        (total, new total) pairs.
    milestones : numpy.ndarray
        ``int64`` array of shape ``(m, 2)``: exact total, new total.
    """
    if players is None:
        decks = 2 if rules.decks == 2 else 1
    else:
        decks = rules.decks_for(players)
    rp = np.zeros(N_RULE_PARAMS + 2 * len(rules.milestones), np.int64)
    rp[R_THRESHOLD] = rules.threshold
    rp[R_ASSAF] = rules.assaf
    rp[R_ASSAF_PENALTY] = rules.assaf_penalty
    rp[R_ASSAF_ADDS_HAND] = rules.assaf_adds_hand
    rp[R_ASSAF_WINNER] = ASSAF_WINNER_CODES[rules.assaf_winner_scores]
    rp[R_JOKER_IN_SETS] = rules.joker_in_sets
    rp[R_SET_DRAW_ENDS] = rules.set_draw == "ends"
    rp[R_LIMIT] = rules.limit
    rp[R_STARTER_WINNER] = rules.starter == "winner"
    rp[R_SLAPDOWN] = rules.slapdown
    rp[R_THEFT] = rules.milestone_theft
    rp[R_HAND_SIZE] = rules.hand_size
    rp[R_EMPTY_STOCK_ENDS] = rules.empty_stock == "end_round"
    rp[R_MAX_TURNS] = rules.max_turns
    rp[R_MAX_ROUNDS] = rules.max_rounds
    rp[R_DECKS] = decks
    rp[R_JOKERS] = decks * rules.jokers_per_deck
    rp[R_DECK_SIZE] = decks * (N_NATURAL + rules.jokers_per_deck)
    milestones = np.array(rules.milestones, dtype=np.int64).reshape(-1, 2)
    rp[R_N_MILESTONES] = len(milestones)
    rp[R_MILESTONES:] = milestones.ravel()
    return rp, milestones
