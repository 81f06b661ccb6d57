"""The heuristic policy's in-game Assaf risk against the exact odds of ``odds.p_assaf``.

The kernel (``_assaf_risk``) counts each opponent's chance of holding at most
the caller's value exactly, from the cards the caller cannot see, and
combines the opponents as if independent. With one opponent that is the
exact risk; with several, each opponent's part is the exact one-opponent
risk. Ties count against the caller: an opponent at the caller's value
Assafs.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.positions import Position
from yaniv_sim import Rules
from yaniv_sim.cards import deck_codes
from yaniv_sim.engine.kernel import DEAD, PREV, PS_DEAD_N, PS_PREV_N
from yaniv_sim.engine.kernel import assaf_risk as _assaf_risk
from yaniv_sim.odds import p_assaf

STANDARD = Rules()
NORDIC = Rules.preset("nordic")
TWO_DECKS = Rules(decks=2)
LOOSE = Rules(threshold=15, hand_size=7, decks=2, jokers_per_deck=4)


def _kernel_risk(pos: Position, value: int) -> float:
    t = pos.t
    hands, taken, hand_n, piles, pst, cand = t.hands, t.taken, t.hand_n, t.piles, t.pst, t.cand
    return float(_assaf_risk(0, value, pos.rp, (hands, taken, hand_n, piles, pst), cand))


def _exact_parts(pos: Position, value: int) -> list[float]:
    """p_assaf for each opponent alone, from the cards seat 0 cannot see."""
    t = pos.t
    hands, taken, hand_n, piles, pst = t.hands, t.taken, t.hand_n, t.piles, t.pst
    rules = pos.rules
    deck = deck_codes(int(pos.rp["decks"]), rules.jokers_per_deck)
    visible = list(hands[0, : hand_n[0]]) + list(piles[DEAD, : pst[PS_DEAD_N]])
    visible += list(piles[PREV, : pst[PS_PREV_N]])
    known = []
    for o in range(1, pos.players):
        mine = [int(hands[o, i]) for i in range(hand_n[o]) if taken[o, i]]
        known.append(mine)
        visible += mine
    unseen = np.setdiff1d(deck, np.array(visible, np.int64))
    return [
        p_assaf(
            value,
            [int(hand_n[o])],
            unseen,
            [known[o - 1]],
            decks=int(pos.rp["decks"]),
            jokers_per_deck=rules.jokers_per_deck,
        )
        for o in range(1, pos.players)
    ]


# (rules, own hand, opponents as (cards, known cards), dead pile, previous discard)
ONE_OPPONENT = [
    (STANDARD, "AS 2D 3C", [(5, "")], "", "KS"),
    (STANDARD, "AS 2D 3C", [(2, "")], "9H 9D", "4C"),
    (STANDARD, "2S 3D", [(3, "AH")], "KD QC", "7S 7H"),
    (NORDIC, "AS 2D JK", [(1, "")], "5D 6D 7D", "4C"),
    (NORDIC, "3S", [(2, "JK")], "", "2C"),
    (TWO_DECKS, "AS AS 2D", [(4, "2D")], "KS KS", "3C 3C"),
    (LOOSE, "5S 5H 5D", [(7, "AS")], "KS", "QH"),
]


@pytest.mark.parametrize(("rules", "hand", "opponents", "dead", "prev"), ONE_OPPONENT)
def test_one_opponent_is_exactly_p_assaf(rules, hand, opponents, dead, prev):
    pos = Position(rules, hand, opponents, dead=dead, prev=prev)
    value = int(pos.t.hand_val[0])
    for v in sorted({value, max(value - 1, 0), value + 2}):
        (exact,) = _exact_parts(pos, v)
        assert 0 < exact < 1
        assert _kernel_risk(pos, v) == pytest.approx(exact, rel=1e-13, abs=1e-15)


SEVERAL = [
    (STANDARD, "AS 2D 3C", [(5, ""), (4, ""), (2, "4H")], "KS QS", "9C"),
    (STANDARD, "2S 2D", [(3, "AH"), (3, ""), (1, "")], "", "KC"),
    (NORDIC, "AS 3D", [(2, ""), (2, ""), (5, "JK")], "6S 7S 8S", "10H"),
    (TWO_DECKS, "AS AS 2D", [(2, ""), (2, ""), (2, ""), (5, "3C"), (4, "3C AH")], "KS", "KH"),
]


@pytest.mark.parametrize(("rules", "hand", "opponents", "dead", "prev"), SEVERAL)
def test_several_opponents_combine_exact_parts(rules, hand, opponents, dead, prev):
    pos = Position(rules, hand, opponents, dead=dead, prev=prev)
    value = int(pos.t.hand_val[0])
    parts = _exact_parts(pos, value)
    assert all(0 < p < 1 for p in parts)
    combined = 1 - np.prod([1 - p for p in parts])
    # equal opponents share one answer, remembered to 2**-40
    assert _kernel_risk(pos, value) == pytest.approx(combined, rel=1e-10, abs=1e-11)


def test_ties_count_against_the_caller():
    # both jokers are visible, so opponent 1 (2S taken, one unknown card) is at
    # most 3 only with an ace: exactly the caller's 3
    # (parsed as one text: the test positions give a joker once per text)
    pos = Position(STANDARD, "AS 2D", [(2, "2S"), (5, "")], dead="JK JK", prev="9S")
    (tie, _) = _exact_parts(pos, 3)
    assert tie == pytest.approx(3 / 48)  # three aces left among 48 unseen cards
    lone = Position(STANDARD, "AS 2D", [(2, "2S")], dead="JK JK", prev="9S")
    assert _kernel_risk(lone, 3) == pytest.approx(_exact_parts(lone, 3)[0], rel=1e-13)
    assert _kernel_risk(lone, 3) == pytest.approx(3 / 48, rel=1e-13)
    # an opponent whose every card is known, worth exactly the caller's value
    known = Position(STANDARD, "AS 2D", [(2, "AH 2C")], dead="", prev="9S")
    assert _exact_parts(known, 3) == [1.0]
    assert _kernel_risk(known, 3) == 1.0
    assert _kernel_risk(known, 2) == 0.0
