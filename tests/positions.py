"""Hand-written table positions for asking the policy kernel one decision.

A position gives seat 0's hand, each opponent's card count and the cards it is
known to hold (taken from the pile), the dead pile and the previous discard as
card text. The opponents' other cards and the stock are dealt from the cards
left, shuffled by ``hidden_seed``: changing only that seed changes only what
seat 0 cannot see.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim import Rules, engine, parse_cards
from yaniv_sim.cards import ORDER, deck_codes
from yaniv_sim.engine.kernel import (
    DEAD,
    KIND_NAMES,
    PREV,
    PS_DEAD_N,
    PS_PREV_KIND,
    PS_PREV_N,
    PS_STOCK_N,
    PS_TURN,
    STOCK,
    new_table,
    policy_records,
    rule_record,
)
from yaniv_sim.engine.kernel import card_sets as _card_sets
from yaniv_sim.engine.kernel import choose_discard as _choose_discard
from yaniv_sim.engine.kernel import choose_draw as _choose_draw
from yaniv_sim.engine.kernel import wants_call as _wants_call
from yaniv_sim.engine.specs import policy_matrix


def _codes(text: str, used: set[int]) -> list[int]:
    """Codes for card text, taking the second deck's copy when the first is used."""
    out = []
    for code in parse_cards(text):
        code = int(code)
        while code in used:
            code += 52
        used.add(code)
        out.append(code)
    return out


class Position:
    def __init__(self, rules: Rules, hand: str, opponents, *, dead="", prev="", turn=5,
                 totals=None, hidden_seed=0, prev_kind=None):  # fmt: skip
        self.rules = rules
        self.players = players = 1 + len(opponents)
        self.rp = rule_record(rules, players)
        self.t = t = new_table(players)
        hands, taken, hand_n, hand_val, piles, pst = (t.hands, t.taken, t.hand_n, t.hand_val,
                                                      t.piles, t.pst)  # fmt: skip
        used: set[int] = set()
        own = _codes(hand, used)
        known = [_codes(k, used) for _, k in opponents]
        dead_cards = _codes(dead, used)
        prev_cards = _codes(prev, used) if prev else []
        deck = [int(c) for c in deck_codes(int(self.rp["decks"]), rules.jokers_per_deck)]
        rest = [c for c in deck if c not in used]
        np.random.default_rng(hidden_seed).shuffle(rest)
        for seat in range(players):
            if seat == 0:
                cards, flags = own, [0] * len(own)
            else:
                n, _ = opponents[seat - 1]
                extra = n - len(known[seat - 1])
                cards = known[seat - 1] + rest[:extra]
                rest = rest[extra:]
                flags = [1] * len(known[seat - 1]) + [0] * extra
            order = sorted(range(len(cards)), key=lambda i, c=cards: ORDER[c[i]])
            for slot, i in enumerate(order):
                hands[seat, slot] = cards[i]
                taken[seat, slot] = flags[i]
            hand_n[seat] = len(cards)
            hand_val[seat] = engine.hand_value(np.array(cards, np.int16)) if cards else 0
        for i, c in enumerate(rest):
            piles[STOCK, i] = c
        pst[PS_STOCK_N] = len(rest)
        for i, c in enumerate(dead_cards):
            piles[DEAD, i] = c
        pst[PS_DEAD_N] = len(dead_cards)
        for i, c in enumerate(prev_cards):
            piles[PREV, i] = c
        pst[PS_PREV_N] = len(prev_cards)
        if prev_cards:
            kind = prev_kind or engine.discard_kind(np.array(prev_cards, np.int16), rules)
            pst[PS_PREV_KIND] = KIND_NAMES.index(kind)
        pst[PS_TURN] = turn
        if totals is not None:
            t.totals[:] = np.array(totals)

    def _args(self, policy: str):
        return (policy_records(policy_matrix(policy, self.players)), 0, self.rp, self.t)

    def calls(self, policy: str) -> bool:
        return bool(_wants_call(*self._args(policy)))

    def draws(self, policy: str) -> str:
        """``"stock"`` or the text of the card taken from the previous discard."""
        p = _choose_draw(*self._args(policy))
        return "stock" if p < 0 else engine.format_cards([self.t.piles[PREV, p]])

    def discards(self, policy: str) -> str:
        """The text of the discard as laid."""
        hands, hand_n, cand = self.t.hands, self.t.hand_n, self.t.cand
        n_sets = _card_sets(hands, 0, hand_n[0], self.rules.joker_in_sets, cand)
        _choose_discard(*self._args(policy), n_sets)
        return engine.format_cards(self.t.piles[3, : self.t.pst[4]])

    def lays(self, policy: str, cards: str) -> tuple[str, str]:
        """How the policy lays ``cards`` (by face) when that card set is the only choice.

        Returns the cards as laid and the kind laid as.
        """
        hands, hand_n, cand, pst = self.t.hands, self.t.hand_n, self.t.cand, self.t.pst
        n_sets = _card_sets(hands, 0, hand_n[0], self.rules.joker_in_sets, cand)
        wanted = sorted(engine.format_cards(parse_cards(cards)).split())
        for i in range(n_sets):
            mask = int(cand[0, i])
            chosen = [hands[0, b] for b in range(hand_n[0]) if (mask >> b) & 1]
            if sorted(engine.format_cards(chosen).split()) == wanted:
                cand[:, 0] = cand[:, i].copy()
                break
        else:
            raise AssertionError(f"{cards} is not a card set of the hand")
        _choose_discard(*self._args(policy), 1)
        return engine.format_cards(self.t.piles[3, : pst[4]]), KIND_NAMES[pst[5]]
