"""Seeded rounds and games: every turn checked by an independent replay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import rulebook
from tests.replay import check_round, next_seat
from yaniv_sim import Rules, engine

PRESET_RULES = [
    Rules.preset("standard"),
    Rules.preset("nordic"),
    Rules.preset("standard", ["slapdown", "double-joker"]),
    Rules.preset("nordic", ["yaniv9", "no-assaf"]),
    Rules.preset("standard", ["milestone-theft"], hand_size=7, empty_stock="end_round"),
    Rules.preset("nordic", assaf_winner_scores="all_zero", assaf_adds_hand=False, hand_size=6),
    Rules.preset("standard", decks=2, set_draw="ends", threshold=3),
    Rules.preset("nordic", ["double-joker", "slapdown"], joker_in_sets=True, limit=100),
]

policies_strategy = st.sampled_from(
    ["max-shed", "random", "random:call=0.05,pile=0.9", "random:call=0.9,pile=0.1"]
)


def _players_for(rules: Rules, wanted: int) -> int:
    for players in range(wanted, 1, -1):
        try:
            rules.check_players(players)
            return players
        except ValueError:
            continue
    raise AssertionError("no table size fits")


@given(
    rules=st.sampled_from(PRESET_RULES),
    players=st.integers(2, 8),
    seed=st.integers(0, 2**63 - 1),
    round_index=st.integers(0, 10**6),
    policy=policies_strategy,
    data=st.data(),
)
def test_random_rounds_obey_every_rule(rules, players, seed, round_index, policy, data):
    players = _players_for(rules, players)
    starter = data.draw(st.integers(0, players - 1))
    record = engine.play_round(rules, players, seed, policy, round=round_index, starter=starter)
    shed = range(players) if policy == "max-shed" else ()
    check_round(record, rules, players, max_shed_seats=shed)


@given(seed=st.integers(0, 2**32), policy=policies_strategy)
def test_mixed_policies_at_one_table(seed, policy):
    rules = Rules.preset("standard", ["slapdown"])
    policies = ["max-shed", policy, "random:call=0.3,pile=0.7", "max-shed"]
    record = engine.play_round(rules, 4, seed, policies)
    check_round(record, rules, 4, max_shed_seats=(0, 3) if policy != "max-shed" else (0, 1, 3))


def test_long_rounds_reshuffle_the_pile_correctly():
    """Eight players with seven cards leave a small stock: reshuffles happen often."""
    rules = Rules.preset("standard", hand_size=7)
    reshuffles = 0
    for seed in range(40):
        record = engine.play_round(rules, 8, seed, "random:call=0.02,pile=0.3")
        check_round(record, rules, 8)
        reshuffles += record.reshuffles
    assert reshuffles >= 20


def test_stock_out_ends_the_round_when_asked():
    rules = Rules.preset("standard", hand_size=7, empty_stock="end_round")
    outcomes = set()
    for seed in range(30):
        record = engine.play_round(rules, 8, seed, "random:call=0.02,pile=0.2")
        check_round(record, rules, 8)
        outcomes.add(record.outcome)
        if record.outcome == "stock_out":
            assert record.steps[-1].source == "none"
            assert record.scores.tolist() == record.hand_values.tolist()
    assert "stock_out" in outcomes


def test_void_round_after_max_turns():
    rules = Rules(max_turns=7)
    record = engine.play_round(rules, 3, 5, "random:call=0")
    check_round(record, rules, 3)
    assert record.outcome == "void"
    assert record.turns == 7
    assert record.scores.tolist() == [0, 0, 0]
    assert record.winner is None


def test_same_seed_same_round():
    rules = Rules.preset("nordic")
    a = engine.play_round(rules, 4, 123, "random", round=9, starter=2)
    b = engine.play_round(rules, 4, 123, "random", round=9, starter=2)
    assert str(a) == str(b)
    c = engine.play_round(rules, 4, 124, "random", round=9, starter=2)
    assert [d.tolist() for d in a.dealt] != [d.tolist() for d in c.dealt]


def test_shuffle_depends_on_seed_and_round_only():
    """The deal of round r is the same whatever the policies or what came before."""
    rules = Rules()
    a = engine.play_round(rules, 4, 77, "max-shed", round=3)
    b = engine.play_round(rules, 4, 77, "random:call=0.1", round=3, totals=[10, 20, 30, 40])
    assert [d.tolist() for d in a.dealt] == [d.tolist() for d in b.dealt]
    assert a.turned_up == b.turned_up
    c = engine.play_round(rules, 4, 77, "max-shed", round=4)
    assert [d.tolist() for d in a.dealt] != [d.tolist() for d in c.dealt]


def test_batch_kernel_agrees_with_single_rounds():
    rules = Rules.preset("standard", ["slapdown"])
    batch = engine.play_rounds(rules, 3, 99, 25, "random:call=0.4", first=100)
    for i in range(25):
        r = 100 + i
        one = engine.play_round(rules, 3, 99, "random:call=0.4", round=r, starter=r % 3)
        assert engine.OUTCOMES[batch["outcome"][i]] == one.outcome
        assert batch["turns"][i] == one.turns
        assert batch["hand_values"][i].tolist() == one.hand_values.tolist()
        assert batch["scores"][i].tolist() == one.scores.tolist()


def _expected_next_starter(rules, starter, round_winner, alive):
    if rules.starter == "winner":
        seat = starter if round_winner is None else round_winner
        return seat if alive[seat] else next_seat(alive, seat)
    return next_seat(alive, starter)


def check_game(game: engine.GameRecord, rules: Rules, players: int) -> None:
    """Game-level rules, replayed round by round with the rule book's reading (tests.rulebook)."""
    totals = [0] * players
    alive = [True] * players
    starter = 0
    for r, rec in enumerate(game.round_records):
        assert rec.starter == starter
        assert rec.alive.tolist() == alive
        check_round(rec, rules, players)
        assert rec.scores.tolist() == game.scores[r].tolist()
        engine_settled = engine.settle_round(totals, rec.scores, alive, rules)
        totals, alive, winner = rulebook.settle(totals, rec.scores, alive, rules)
        assert engine_settled[0].tolist() == totals
        assert engine_settled[1].tolist() == alive
        assert engine_settled[2] == winner
        assert min(totals) >= 0
        assert totals == game.totals[r].tolist()
        assert alive == game.alive[r].tolist()
        if r < game.rounds - 1:
            assert winner is None
            starter = _expected_next_starter(rules, starter, rec.winner, alive)
        else:
            assert winner == game.winner
    assert game.winner is not None
    assert game.alive[-1].sum() == 1 and game.alive[-1, game.winner]


@pytest.mark.parametrize("rules", PRESET_RULES, ids=range(len(PRESET_RULES)))
@pytest.mark.parametrize("players", [2, 3, 5])
def test_games_replayed_round_by_round(rules, players):
    players = _players_for(rules, players)
    for seed in range(2):
        game = engine.play_game(rules, players, seed, "max-shed", turns=True)
        check_game(game, rules, players)


@given(seed=st.integers(0, 2**40), players=st.integers(2, 6), rules=st.sampled_from(PRESET_RULES))
def test_one_winner_per_game(seed, players, rules):
    players = _players_for(rules, players)
    policies = (["max-shed", "random:call=0.5"] * 4)[:players]
    game = engine.play_game(rules, players, seed, policies)
    assert game.winner is not None
    assert game.alive[-1].sum() == 1
    assert (game.totals >= 0).all()
    assert (game.alive[1:] <= game.alive[:-1]).all(), "nobody comes back into a game"
    eliminated = [seat for _, seat in game.eliminations()]
    assert sorted([*eliminated, game.winner]) == list(range(players))


def test_void_rounds_in_a_game_are_kept_and_rotate_the_start():
    for starter_rule in ("rotate", "winner"):
        rules = Rules(max_turns=3, max_rounds=6, starter=starter_rule)
        game = engine.play_game(rules, 3, 1, "random:call=0", turns=True)
        assert game.rounds == 6 and game.winner is None
        assert game.outcomes() == ["void"] * 6
        starters = [int(s) for s in game.summaries[:, 6]]
        if starter_rule == "rotate":
            assert starters == [0, 1, 2, 0, 1, 2]
        else:
            assert starters == [0] * 6
        assert not game.totals.any()


def test_game_record_prints_every_round():
    game = engine.play_game(Rules(), 3, 4, turns=True)
    text = str(game)
    assert text.count("round ") >= game.rounds
    assert f"seat {game.winner} wins" in text


def test_max_shed_only_kernel_copy_plays_identically():
    """The light kernels for max-shed tables (``pol=None``) play as the full ones do."""
    from yaniv_sim.engine.kernel import (
        DECISION_WIDTH,
        LOG_WIDTH,
        N_SUMMARY,
        POLICY,
        RoundOut,
        new_table,
        play_rounds,
        policy_records,
        rule_record,
    )
    from yaniv_sim.engine.specs import policy_matrix

    rules = Rules.preset("nordic", ["slapdown"])
    matrix = policy_matrix("max-shed", 3)
    assert policy_records(matrix) is None
    assert policy_records(policy_matrix(["max-shed", "best", "max-shed"], 3)) is not None
    outputs = []
    for pol in (None, matrix.view(POLICY).reshape(3)):
        out = RoundOut(np.zeros((500, N_SUMMARY), np.int64), np.zeros((500, 3), np.int64),
                       np.zeros((500, 3), np.int64), np.zeros((0, LOG_WIDTH), np.int16),
                       np.zeros((0, DECISION_WIDTH), np.int16), np.zeros(1, np.int64))  # fmt: skip
        play_rounds(rule_record(rules, 3), pol, None, 8, 0, 500, new_table(3), out)
        outputs.append(out[:3])
    assert len(play_rounds.signatures) >= 2  # both copies compiled
    for a, b in zip(*outputs, strict=True):
        assert np.array_equal(a, b)


def test_one_card_with_jokers_is_laid_both_ways_and_taken_from_as_laid():
    """Random play lays one natural card with jokers as a set and as a run (standard)."""
    rules = Rules.preset("standard", ["double-joker"])
    laid = {"set": 0, "run": 0}
    taken_from = {"set": 0, "run": 0}
    for seed in range(150):
        record = engine.play_round(rules, 3, seed, "random:call=0.02,pile=0.7")
        check_round(record, rules, 3)
        for step, after in zip(record.steps, record.steps[1:], strict=False):
            cards = engine.format_cards(step.discard).split()
            if len(cards) >= 3 and len(cards) - cards.count("JK") == 1:
                laid[step.kind] += 1
                taken_from[step.kind] += after.source == "pile"
    assert min(laid.values()) >= 3, laid
    assert min(taken_from.values()) >= 1, taken_from
