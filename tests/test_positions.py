"""Positions: cut a recorded round at any turn and play on from there to the same end."""

from __future__ import annotations

import numpy as np
import pytest

from yaniv_sim import Rules, engine
from yaniv_sim.cards import deck_codes, parse_cards

CASES = [
    (Rules.preset("standard"), 4, "max-shed"),
    (Rules.preset("nordic", ["slapdown"]), 3, ["random:call=0.3,pile=0.5", "best", "max-shed"]),
    (Rules.preset("standard", ["double-joker"]), 5, "best"),
    (Rules.preset("standard"), 2, "random:call=0.02,pile=0.9"),  # long rounds, reshuffles
    (Rules.preset("standard", [], empty_stock="end_round"), 2, "random:call=0.02,pile=0.2"),
]


def _same_steps(a, b) -> bool:
    return len(a) == len(b) and all(
        x.seat == y.seat and x.action == y.action and np.array_equal(x.discard, y.discard)
        and x.kind == y.kind and x.source == y.source and x.drawn == y.drawn
        and x.reshuffled == y.reshuffled and x.stock_left == y.stock_left
        and np.array_equal(x.hand, y.hand)
        for x, y in zip(a, b, strict=True)
    )  # fmt: skip


@pytest.mark.parametrize(("rules", "players", "policies"), CASES)
def test_cutting_a_round_at_every_turn_and_playing_on_gives_the_same_end(rules, players, policies):
    cut_rounds = 0
    for seed in range(6):
        whole = engine.play_round(rules, players, seed, policies, round=3, starter=seed % players)
        last = whole.turns if whole.steps[-1].action == "call" else whole.turns - 1
        for turn in range(last + 1):
            position = engine.position_at(rules, players, seed, policies, turn=turn, round=3,
                                          starter=seed % players)  # fmt: skip
            assert position.turn == turn
            rest = engine.play_on(position, rules, policies)
            assert rest.outcome == whole.outcome and rest.turns == whole.turns
            assert rest.caller == whole.caller and rest.reshuffles == whole.reshuffles
            assert np.array_equal(rest.scores, whole.scores)
            assert np.array_equal(rest.hand_values, whole.hand_values)
            assert _same_steps(rest.steps, whole.steps[turn:])
            cut_rounds += 1
        with pytest.raises(ValueError, match="turn"):
            engine.position_at(rules, players, seed, policies, turn=whole.turns + 1, round=3,
                               starter=seed % players)  # fmt: skip
    assert cut_rounds > 6 * 5


def test_a_position_holds_the_deck_once_and_what_each_seat_saw():
    rules = Rules.preset("standard")
    record = engine.play_round(rules, 3, 11, "random:call=0.1,pile=1.0")
    turn = record.turns // 2
    position = engine.position_at(rules, 3, 11, "random:call=0.1,pile=1.0", turn=turn)
    cards = np.concatenate([*position.hands, position.stock, position.dead, position.pile])
    assert np.array_equal(np.sort(cards), np.sort(deck_codes(1, rules.jokers_per_deck)))
    # the hands at the position are those after the previous turn
    before = record.steps[turn - 1]
    assert np.array_equal(position.hands[before.seat], before.hand)
    assert np.array_equal(position.pile, before.discard)
    # cards taken from the pile are marked; a seat that always takes from the pile has some
    assert any(took.any() for took in position.taken)
    for hand, took in zip(position.hands, position.taken, strict=True):
        assert len(hand) == len(took)


def test_a_hand_written_position_plays_on_and_bad_ones_are_refused():
    rules = Rules.preset("standard")
    deck = [int(c) for c in deck_codes(1, rules.jokers_per_deck)]
    hands = [parse_cards("AS 2D"), parse_cards("KS KH QD"), parse_cards("9C 8C 7C 6H")]
    pile = parse_cards("5H")
    used = {int(c) for h in hands for c in h} | {int(pile[0])}
    stock = np.array([c for c in deck if c not in used], np.int16)
    position = engine.Position(
        hands=tuple(hands), taken=tuple(np.zeros(len(h), bool) for h in hands), stock=stock,
        dead=np.zeros(0, np.int16), pile=pile, pile_kind="single", seat=0, turn=4, starter=1,
        reshuffles=0, alive=np.ones(3, bool), totals=np.zeros(3, np.int64),
    )  # fmt: skip
    rest = engine.play_on(position, rules, "max-shed", seed=5)
    # max-shed calls at once with 3 points, and nobody can match it
    assert rest.outcome == "yaniv" and rest.caller == 0 and rest.turns == 4
    assert rest.scores.tolist() == [0, 30, 30]
    again = engine.play_on(position, rules, "best", seed=5)
    assert again.turns >= 4
    twice = engine.Position(**{**position.__dict__, "pile": parse_cards("AS")})
    with pytest.raises(ValueError, match="exactly once each; twice: AS"):
        engine.play_on(twice, rules)
    short = engine.Position(**{**position.__dict__, "stock": stock[1:]})
    with pytest.raises(ValueError, match="missing"):
        engine.play_on(short, rules)
    with pytest.raises(ValueError, match=r"position\.seat"):
        engine.play_on(engine.Position(**{**position.__dict__, "seat": 7}), rules)


def test_streams_decide_the_continuation_and_seed_only_without_them():
    rules = Rules.preset("standard")
    policies = "random:call=0.2,pile=0.5"
    position = engine.position_at(rules, 4, 3, policies, turn=2)
    blind = engine.Position(**{**position.__dict__, "streams": None})
    a = engine.play_on(blind, rules, policies, seed=1)
    b = engine.play_on(blind, rules, policies, seed=1)
    assert _same_steps(a.steps, b.steps)
    outcomes = {
        tuple(s.drawn or -1 for s in engine.play_on(blind, rules, policies, seed=k).steps)
        for k in range(10)
    }
    assert len(outcomes) > 1


def test_a_position_survives_the_round_trip_through_the_kernel_table():
    from yaniv_sim.engine.kernel import position_of as _from_table
    from yaniv_sim.engine.kernel import table_of as _to_table

    rules = Rules.preset("nordic")
    policies = "random:call=0.1,pile=0.8"
    position = engine.position_at(rules, 3, 4, policies, turn=9)
    assert _from_table(_to_table(position, rules, 0)).same_as(position)
    later = engine.position_at(rules, 3, 4, policies, turn=10)
    assert not later.same_as(position)
