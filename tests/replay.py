"""An independent replay of a round record that checks every rule turn by turn.

The engine keeps its piles in numba arrays; this replay keeps them as Python
sets and lists, and judges every move with :mod:`tests.rulebook`, the rules
read again from docs/rules.md (not the engine's ``legal_discards``,
``takeable`` or ``score_round``). It asserts at every step: cards conserved
(hands + stock + pile = deck, no card twice), every discard a legal reading
of cards from the hand, every draw allowed by the reading laid, turn order,
the reshuffle and the stock count, the end of the round and its scores.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from tests import rulebook
from yaniv_sim import Rules
from yaniv_sim.cards import deck_codes, format_cards
from yaniv_sim.policies import LONG_ROUND


def text(cards) -> list[str]:
    """Card codes as the rule book's text tokens."""
    return format_cards(np.asarray(cards, dtype=np.int64)).split() if len(cards) else []


def value(cards) -> int:
    return rulebook.hand_value(text(cards))


def next_seat(alive, seat):
    n = len(alive)
    for k in range(1, n + 1):
        if alive[(seat + k) % n]:
            return (seat + k) % n
    raise AssertionError("no seat left")


def shed_key(cards) -> tuple[int, int, int]:
    """max-shed's order of preference: (points, fewer jokers, more cards)."""
    return (rulebook.hand_value(cards), -sum(map(rulebook.is_joker, cards)), len(cards))


def max_shed_keys(hand, rules):
    """``shed_key`` of every legal card set of a hand (card codes)."""
    return [shed_key(cards) for cards in rulebook.card_sets(text(hand), rules)]


# Long rounds, read from docs/policies.md: from LONG_ROUND turns a seat still in,
# max-shed sheds the most cards (ties: the most points; a hopeless hand, above the
# threshold even if its worst card were a joker: the fewest points), and takes the
# previous discard's lowest card that is a joker, fits the hand or makes it callable.


def long_round_key(cards, hand, rules) -> tuple[int, int]:
    cards_text, hand_text = list(cards), text(hand)
    worst = max(rulebook.card_value(c) for c in hand_text)
    hopeless = rulebook.hand_value(hand_text) - worst > rules.threshold
    points = rulebook.hand_value(cards_text)
    return (len(cards_text), -points if hopeless else points)


def long_round_wants(card: str, hand, rules) -> bool:
    """Whether a long round takes ``card`` onto ``hand`` (the hand after laying)."""
    held = text(hand)
    if rulebook.is_joker(card):
        return True
    if rulebook.hand_value(held) + rulebook.card_value(card) <= rules.threshold:
        return True
    return any(
        not rulebook.is_joker(h)
        and (rulebook.rank(h) == rulebook.rank(card)
             or (rulebook.suit(h) == rulebook.suit(card)
                 and abs(rulebook.rank(h) - rulebook.rank(card)) == 1))
        for h in held
    )  # fmt: skip


def check_round(record, rules: Rules, players: int, *, max_shed_seats=(), start=None) -> None:
    """Assert that ``record`` (with steps) is a legal round under ``rules``.

    ``max_shed_seats``: seats playing max-shed, whose every discard must be a
    highest-point legal discard with the tie-breaks, and whose draws come
    from the stock. ``start``: the :class:`~yaniv_sim.engine.Position` a
    record of ``engine.play_on`` was played on from (default: the deal).
    """
    alive = record.alive
    deck = set(deck_codes(rules.decks_for(players), rules.jokers_per_deck).tolist())
    hands = {s: [int(c) for c in record.dealt[s]] for s in range(players) if alive[s]}
    for s in range(players):
        if not alive[s]:
            assert len(record.dealt[s]) == 0
        elif start is None:
            assert len(hands[s]) == rules.hand_size
        else:
            # the record starts from the position's own hands
            assert sorted(hands[s]) == sorted(int(c) for c in start.hands[s])
    in_hands = [c for h in hands.values() for c in h]
    assert len(set(in_hands)) == len(in_hands)
    if start is None:
        prev = [record.turned_up]
        prev_kind = "single"
        dead: list[int] = []
        stock = deck - set(in_hands) - set(prev)
        assert len(stock) == len(deck) - rules.hand_size * int(alive.sum()) - 1
        seat = record.starter
        turns = 0
    else:
        assert record.from_turn == start.turn
        prev = [int(c) for c in start.pile]
        prev_kind = start.pile_kind
        dead = [int(c) for c in start.dead]
        stock = {int(c) for c in start.stock}
        places = in_hands + list(stock) + dead + prev
        assert len(places) == len(set(places)) == len(deck) and set(places) == deck
        assert start.pile_kind in rulebook.readings(text(prev), rules)
        # the first step is the seat to act's: step 0 does not advance the seat
        seat = start.seat
        turns = start.turn
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
        assert len(set(discard)) == len(discard)
        kinds = rulebook.readings(text(discard), rules)
        assert step.kind in kinds, f"illegal discard {text(discard)} as a {step.kind}"
        long_round = turns - 1 >= LONG_ROUND * int(alive.sum())
        if seat in max_shed_seats and not long_round:
            keys = max_shed_keys(hand, rules)
            assert shed_key(text(discard)) == max(keys), "max-shed must lay its best discard"
            assert step.source in ("stock", "none"), "max-shed draws from the stock"
        if seat in max_shed_seats and long_round:
            keys = [long_round_key(c, hand, rules) for c in rulebook.card_sets(text(hand), rules)]
            key = long_round_key(text(discard), hand, rules)
            assert key == max(keys), "in a long round max-shed sheds the most cards"
        for c in discard:
            hand.remove(c)
        if seat in max_shed_seats and long_round and step.source != "none":
            offered = [prev[p] for p in rulebook.takeable_places(text(prev), prev_kind, rules)]
            wanted = [c for c in offered if long_round_wants(text([c])[0], hand, rules)]
            if wanted:
                low = min(value([c]) for c in wanted)
                assert step.source == "pile" and step.drawn in wanted and value([step.drawn]) == low
            else:
                assert step.source == "stock", "a long round takes only a card that helps"
        if step.source == "pile":
            places = rulebook.takeable_places(text(prev), prev_kind, rules)
            assert step.drawn in [prev[p] for p in places], "took a card that may not be taken"
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
        assert record.outcome == "void" and record.caller is None and record.winner is None
        assert not record.scores.any()
        return
    if kind == "stock_out":
        assert record.outcome == "stock_out" and record.caller is None and record.winner is None
        seats_in = [int(s) for s in np.flatnonzero(alive)]
        outcome, scores = rulebook.round_outcome([int(values[s]) for s in seats_in], None, rules)
        assert outcome == "stock_out"
        assert record.scores[seats_in].tolist() == scores
        assert not record.scores[~alive].any()
        return
    assert record.caller == who
    assert record.caller_value == values[who]
    seats_in = [int(s) for s in np.flatnonzero(alive)]
    outcome, scores = rulebook.round_outcome(
        [int(values[s]) for s in seats_in], seats_in.index(who), rules, slapdown=kind == "slapdown"
    )
    assert record.outcome == outcome
    winner = rulebook.round_winner([int(v) for v in values], alive.tolist(), who, outcome)
    assert record.winner == winner
    expected = np.zeros(players, np.int64)
    expected[seats_in] = scores
    assert record.scores.tolist() == expected.tolist()
    assert (record.scores >= 0).all()
