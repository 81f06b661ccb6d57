"""An independent replay of a round record that checks every rule turn by turn.

The engine keeps its piles in numba arrays; this replay keeps them as Python
sets and lists, written from the rules and not from the engine's code, and
asserts at every step: cards conserved (hands + stock + pile = deck, no card
twice), every discard legal and from the hand, every draw allowed, turn order,
the reshuffle and the stock count, the end of the round and its scores.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from yaniv_sim import Rules, engine
from yaniv_sim.cards import FACE, VALUE, deck_codes


def faces(cards) -> tuple[int, ...]:
    return tuple(int(FACE[c]) for c in cards)


def value(cards) -> int:
    return int(sum(VALUE[c] for c in cards))


def next_seat(alive, seat):
    n = len(alive)
    for k in range(1, n + 1):
        if alive[(seat + k) % n]:
            return (seat + k) % n
    raise AssertionError("no seat left")


def max_shed_keys(hand, rules):
    """(points, -jokers, cards) of every legal discard of a hand."""
    keys = []
    for d in engine.legal_discards(hand, rules):
        keys.append((value(d), -sum(FACE[c] == 52 for c in d), len(d)))
    return keys


def check_round(record, rules: Rules, players: int, *, max_shed_seats=()) -> None:
    """Assert that ``record`` (with steps) is a legal round under ``rules``.

    ``max_shed_seats``: seats playing max-shed, whose every discard must be a
    highest-point legal discard with the tie-breaks, and whose draws come
    from the stock.
    """
    alive = record.alive
    deck = set(deck_codes(rules.decks_for(players), rules.jokers_per_deck).tolist())
    hands = {s: [int(c) for c in record.dealt[s]] for s in range(players) if alive[s]}
    for s in range(players):
        if alive[s]:
            assert len(hands[s]) == rules.hand_size
        else:
            assert len(record.dealt[s]) == 0
    prev = [record.turned_up]
    prev_kind = "single"
    dead: list[int] = []
    in_hands = [c for h in hands.values() for c in h]
    assert len(set(in_hands)) == len(in_hands)
    stock = deck - set(in_hands) - set(prev)
    assert len(stock) == len(deck) - rules.hand_size * int(alive.sum()) - 1

    seat = record.starter
    turns = 0
    ended = None
    for i, step in enumerate(record.steps):
        assert ended is None, "no step may follow the end of the round"
        if step.action == "slapdown":
            assert rules.slapdown
            assert step.seat == seat, "a slapdown follows the slapper's own draw"
            assert value(hands[seat]) == 0
            ended = ("slapdown", seat)
            continue
        if i > 0:
            seat = next_seat(alive, seat)
        assert step.seat == seat, f"step {i}: seat {step.seat} acted, expected {seat}"
        if step.action == "call":
            assert value(hands[seat]) <= rules.threshold, "a call needs hand <= threshold"
            assert Counter(step.hand.tolist()) == Counter(hands[seat])
            ended = ("call", seat)
            continue
        turns += 1
        hand = hands[seat]
        if seat in max_shed_seats:
            assert value(hand) > rules.threshold, "max-shed calls as soon as it may"
        if i > 0 and record.steps[i - 1].seat in max_shed_seats and rules.slapdown:
            assert value(hands[record.steps[i - 1].seat]) > 0, "max-shed slaps down when it may"
        discard = [int(c) for c in step.discard]
        assert all(c in hand for c in discard), "discarded a card not in hand"
        legal = {faces(d) for d in engine.legal_discards(np.array(hand), rules)}
        assert faces(discard) in legal, f"illegal discard {engine.format_cards(discard)}"
        assert step.kind in engine.discard_kinds(np.array(discard), rules)
        if seat in max_shed_seats:
            keys = max_shed_keys(np.array(hand), rules)
            mine = (value(discard), -sum(FACE[c] == 52 for c in discard), len(discard))
            assert mine == max(keys), "max-shed must lay its best discard"
            assert step.source in ("stock", "none"), "max-shed draws from the stock"
        for c in discard:
            hand.remove(c)
        if step.source == "pile":
            allowed = [int(c) for c in engine.takeable(np.array(prev), rules, prev_kind)]
            assert step.drawn in allowed, "took a card that may not be taken"
            prev.remove(step.drawn)
            assert not step.reshuffled
        elif step.source == "stock":
            if step.reshuffled:
                assert rules.empty_stock == "reshuffle"
                assert not stock, "reshuffled while the stock still had cards"
                stock = set(dead) | set(prev)
                dead, prev = [], []
            assert step.drawn in stock, "drew a card that is not in the stock"
            stock.remove(step.drawn)
        else:
            assert step.source == "none"
            assert rules.empty_stock == "end_round" and not stock
            ended = ("stock_out", seat)
        if step.source != "none":
            hand.append(step.drawn)
        assert Counter(step.hand.tolist()) == Counter(hand), "hand after the turn"
        assert step.stock_left == len(stock)
        dead += prev
        prev = discard
        prev_kind = step.kind
        # conservation: every card of the deck in exactly one place
        places = [c for h in hands.values() for c in h] + list(stock) + dead + prev
        assert len(places) == len(set(places)) == len(deck)
        assert set(places) == deck
        if ended is None and turns >= rules.max_turns:
            ended = ("void", None)

    assert ended is not None, "the round must end"
    assert record.turns == turns
    values = np.array([value(hands[s]) if alive[s] else 0 for s in range(players)])
    assert record.hand_values.tolist() == values.tolist()
    kind, who = ended
    if kind == "void":
        assert record.outcome == "void" and record.caller is None
        assert not record.scores.any()
        return
    if kind == "stock_out":
        assert record.outcome == "stock_out" and record.caller is None
        assert record.scores.tolist() == values.tolist()
        return
    assert record.caller == who
    assert record.caller_value == values[who]
    if kind == "slapdown":
        assert record.outcome == "slapdown"
    else:
        others = [values[s] for s in range(players) if alive[s] and s != who]
        assaf = rules.assaf and min(others) <= values[who]
        assert record.outcome == ("assaf" if assaf else "yaniv")
    seats_in = np.flatnonzero(alive)
    expected = np.zeros(players, np.int64)
    expected[seats_in] = engine.score_round(
        values[seats_in], list(seats_in).index(who), rules, slapdown=kind == "slapdown"
    )
    assert record.scores.tolist() == expected.tolist()
    assert (record.scores >= 0).all()
