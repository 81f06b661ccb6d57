"""The search policy: it sees only what its seat sees, plays legally and reproducibly,
finds clear answers, and its values are what playing its worlds on gives."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.replay import check_round
from tests.test_worlds import _redeal_hidden
from yaniv_sim import Rules, engine
from yaniv_sim.cards import ORDER, deck_codes, parse_cards
from yaniv_sim.engine.specs import canonical_spec, policy_vector

STANDARD = Rules()
NORDIC = Rules.preset("nordic")
FAST = "search:worlds=4,base=best"


def _positions(rules, players, policies, seeds, turns):
    out = []
    for seed in seeds:
        whole = engine.play_round(rules, players, seed, policies)
        for turn in turns:
            if turn < whole.turns:
                out.append(engine.position_at(rules, players, seed, policies, turn=turn))
    return out


def _relative(scores, alive, seat):
    others = [scores[s] for s in range(len(scores)) if s != seat and alive[s]]
    return float(np.mean(others)) - scores[seat]


@pytest.mark.parametrize(
    ("rules", "players"), [(STANDARD, 2), (NORDIC, 3), (STANDARD, 4), (NORDIC, 5)]
)
def test_the_search_never_reads_a_hidden_card(rules, players):
    """Positions that differ only in what the seat cannot see get the same answer."""
    rng = np.random.default_rng(players)
    for position in _positions(rules, players, "pile-picker", range(2), (0, 3, 7, 12)):
        other = _redeal_hidden(position, position.seat, rng)
        assert not all(np.array_equal(a, b) for a, b in zip(position.hands, other.hands,
                                                              strict=True)) or not np.array_equal(
            position.stock, other.stock)  # fmt: skip
        for spec in (FAST, FAST + ",recall=1"):
            a = engine.search_position(position, rules, spec, seed=1)
            b = engine.search_position(other, rules, spec, seed=1)
            assert a == b


def test_the_answer_changes_with_what_the_seat_sees():
    """The invariance above is not an answer that ignores the position altogether."""
    rules = STANDARD
    position = _positions(rules, 4, "best", [3], [9])[0]
    seat = position.seat
    answer = engine.search_position(position, rules, "search:worlds=32", seed=1)
    hands = list(position.hands)
    # swap one of the seat's own cards with the top of the stock: its own hand changes
    hands[seat] = hands[seat].copy()
    stock = position.stock.copy()
    hands[seat][0], stock[-1] = stock[-1], hands[seat][0]
    order = np.argsort(ORDER[hands[seat]], kind="stable")
    hands[seat] = hands[seat][order]
    changed = dataclasses.replace(position, hands=tuple(hands), stock=stock)
    assert engine.search_position(changed, rules, "search:worlds=32", seed=1) != answer


def test_one_world_values_are_what_playing_that_world_on_gives():
    rules = STANDARD
    spec = "search:worlds=1,base=best"
    for position in _positions(rules, 4, "best", [5, 6], [2, 6]):
        seat = position.seat
        answer = engine.search_position(position, rules, spec)
        world = engine.search_worlds(position, rules, spec)[0]
        # the world keeps the seat's own hand and everything public
        assert np.array_equal(world.hands[seat], position.hands[seat])
        assert np.array_equal(world.pile, position.pile) and np.array_equal(
            world.dead, position.dead
        )
        assert [len(h) for h in world.hands] == [len(h) for h in position.hands]
        for choice in answer.discard:
            laid = choice.action.split(" (")[0]
            record = engine.play_on(world, rules, "best", discard=laid, call=None)
            assert choice.value == pytest.approx(_relative(record.scores, world.alive, seat))
        if answer.call is not None:
            for choice in answer.call:
                record = engine.play_on(world, rules, "best", call=choice.action == "call")
                assert choice.value == pytest.approx(_relative(record.scores, world.alive, seat))


def test_one_world_win_values_are_the_equity_after_playing_that_world_on():
    # objective=win: a rollout is worth the seat's game-win chance once its round is
    # settled, by the shipped equity table (totals near the limit and a milestone in play)
    from yaniv_sim import equity

    rules = STANDARD
    table = equity.shipped("standard", 4)
    spec = "search:worlds=1,base=best,objective=win"
    checked = 0
    for i, position in enumerate(_positions(rules, 4, "best", [5, 6, 7], [2, 6])):
        totals = np.array([[190, 40, 150, 95], [60, 185, 120, 199], [10, 20, 30, 196]][i % 3])
        position = dataclasses.replace(position, totals=totals)
        seat = position.seat
        answer = engine.search_position(position, rules, spec)
        world = engine.search_worlds(position, rules, spec)[0]
        for choice in answer.discard:
            laid = choice.action.split(" (")[0]
            record = engine.play_on(world, rules, "best", discard=laid, call=None)
            winner = -1 if record.winner is None else record.winner
            want = table.after_round(world.totals, record.scores, world.alive,
                                     position.starter, winner)[seat]  # fmt: skip
            assert choice.value == pytest.approx(want, abs=1e-12)
            assert 0.0 <= choice.value <= 1.0
            checked += 1
    assert checked > 10


def test_a_win_search_needs_a_shipped_equity_table():
    position = _positions(STANDARD, 3, "best", [1], [2])[0]
    house = dataclasses.replace(STANDARD, limit=150)
    with pytest.raises(ValueError, match="objective: 'win' needs an equity table"):
        engine.search_position(position, house, "search:worlds=2,objective=win")
    # the same rules with round points need none
    engine.search_position(position, house, "search:worlds=2")


def _hand_written(hands: list[str], pile: str, dead: str = "", turn: int = 8, seat: int = 0):
    """A position of standard rules, one deck: the given hands, pile and dead cards, the
    rest in the stock."""
    used = []
    for text in [*hands, pile, dead]:
        used += [int(c) for c in parse_cards(text)] if text else []
    rest = np.array([c for c in deck_codes(1, 2) if c not in used], np.int16)
    sorted_hands = []
    for text in hands:
        cards = parse_cards(text)
        sorted_hands.append(cards[np.argsort(ORDER[cards], kind="stable")])
    return engine.Position(
        hands=tuple(sorted_hands),
        taken=tuple(np.zeros(len(h), bool) for h in sorted_hands),
        stock=rest,
        dead=parse_cards(dead) if dead else np.zeros(0, np.int16),
        pile=parse_cards(pile),
        pile_kind="single",
        seat=seat,
        turn=turn,
        starter=0,
        reshuffles=0,
        alive=np.ones(len(hands), bool),
        totals=np.zeros(len(hands), np.int64),
    )


def test_a_call_that_cannot_be_assafed_is_made():
    """Both jokers in hand: no opponent can hold 0 or less, so calling scores 0 for sure."""
    position = _hand_written(["JK JK", "5S 6D 7C 8H", "9S 9D 10C", "4H 4C KS QD"], pile="3S")
    answer = engine.search_position(position, STANDARD, "search:worlds=64,base=best", seed=2)
    assert answer.call[0].action == "call"
    wait = answer.call[1]
    assert wait.gap_high < 0  # clearly worse, by its paired interval


def test_a_discard_that_obviously_loses_is_not_made():
    """Holding 2C KS KH against an opponent on one card: shed the kings, not the two."""
    position = _hand_written(["2C KS KH", "AD", "5S 6D 7C 8H", "9S 9D 10C 4H"], pile="3S")
    answer = engine.search_position(position, STANDARD, "search:worlds=64,base=best", seed=3)
    assert answer.discard[0].action == "KS KH (set)"
    two = next(c for c in answer.discard if c.action == "2C")
    assert two.gap_high < 0


@pytest.mark.parametrize(
    ("rules", "players", "spec"),
    [(STANDARD, 3, "search:worlds=3,base=best"), (NORDIC, 4, "search:worlds=3,recall=1")],
)
def test_search_seats_play_legal_reproducible_rounds(rules, players, spec):
    policies = [spec] + ["best"] * (players - 1)
    for seed in range(3):
        record = engine.play_round(rules, players, seed, policies)
        check_round(record, rules, players)
        again = engine.play_round(rules, players, seed, policies)
        assert str(again) == str(record)


def test_search_data_are_the_same_for_any_workers_and_chunks(tmp_path):
    from yaniv_sim.runs import simulate
    from yaniv_sim.storage import open_dataset

    policies = ["search:worlds=2,decide=1,base=max-shed", "best", "max-shed"]
    frames = []
    for workers, chunk in ((1, 40), (2, 15)):
        out = tmp_path / f"w{workers}"
        simulate(Rules(), 3, policies, rounds=40, seed=9, out=out, workers=workers,
                 chunk_size=chunk)  # fmt: skip
        frames.append(open_dataset(out).rounds.sort_values("round").reset_index(drop=True))
    assert frames[0].equals(frames[1])
    assert len(frames[0]) == 40


def test_search_specs_are_checked_and_written_one_way():
    assert canonical_spec("search: base=best , worlds=64") == "search"
    assert canonical_spec("search:worlds=32,base=cautious") == "search:worlds=32,base=cautious"
    with pytest.raises(ValueError, match="base='nope' is not allowed; use one of best, max-shed"):
        policy_vector("search:base=nope")
    with pytest.raises(ValueError, match="worlds='0' is not allowed; use a number from 1 to 4096"):
        policy_vector("search:worlds=0")
    with pytest.raises(ValueError, match="is not a search"):
        engine.search_position(_hand_written(["AS", "2S", "3S"], pile="4S"), STANDARD, "best")


def test_the_table_position_holds_what_the_player_said():
    from yaniv_sim.advice import table_position

    rules = Rules(decks=2)
    position = table_position("AS 2D JK", [3, 5], "5H 6H 7H", 9, rules, seen="9S 9S KD",
                              took={2: "JK 4C"}, totals=[10, 20, 30])  # fmt: skip
    assert engine.format_cards(position.hands[0]) == "AS 2D JK"
    assert position.pile_kind == "run" and position.turn == 9 and position.seat == 0
    assert engine.format_cards(position.dead) == "9S 9S KD"  # both decks' nine of spades
    took = engine.format_cards(position.hands[2][position.taken[2]])
    assert sorted(took.split()) == ["4C", "JK"] and position.taken[2].sum() == 2
    assert [len(h) for h in position.hands] == [3, 3, 5] and not position.taken[1].any()
    everything = np.concatenate([*position.hands, position.stock, position.dead, position.pile])
    assert np.array_equal(np.sort(everything), np.sort(deck_codes(2, 2)))
    assert list(position.totals) == [10, 20, 30]
    with pytest.raises(ValueError, match="5H is given more often than the deck holds it"):
        table_position("5H 5H AS", [3], "5H", 0, STANDARD)
    with pytest.raises(ValueError, match="pile_kind: 5H JK JK may be laid as a set or as a run"):
        table_position("AS", [3], "5H JK JK", 0, STANDARD)
    assert table_position("AS", [3], "5H JK JK", 0, STANDARD, pile_kind="run").pile_kind == "run"


def test_advise_answers_with_the_search_for_the_exact_position():
    from click.testing import CliRunner

    from yaniv_sim.cli import main

    runner = CliRunner()
    args = ["advise", "--hand", "AS 2D 3C", "--opponents", "2,4,5", "--turn", "8",
            "--pile", "KD", "--search", "search:worlds=16,base=best"]  # fmt: skip
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("search (search:worlds=16"))
    assert [line.strip() for line in lines[start + 1 :] if line.strip().endswith(":")] == [
        "call or wait:", "discard:", "draw:"]  # fmt: skip
    assert runner.invoke(main, args).output == result.output  # the same answer again
    bad = runner.invoke(main, ["advise", "--hand", "AS", "--opponents", "3", "--search", "search"])
    assert bad.exit_code != 0 and "Traceback" not in bad.output
    assert "--pile: the search needs the previous discard" in bad.output


def test_advise_with_the_totals_searches_for_the_game():
    from click.testing import CliRunner

    from yaniv_sim.cli import main

    runner = CliRunner()
    base = ["advise", "--hand", "AS 2D 3C", "--opponents", "2,4,5", "--turn", "8", "--pile", "KD"]
    fast = ["--search", "search:worlds=8,base=best"]
    win = ["--search", "search:worlds=8,base=best,objective=win"]
    game = runner.invoke(main, [*base, "--totals", "120,40,60,150", *win])
    assert game.exit_code == 0, game.output
    assert "your chance of winning the game" in game.output
    points = runner.invoke(main, [*base, *fast])
    assert "round points relative to the table" in points.output
    # unless told otherwise, the totals make the advisor's search one for the game
    from yaniv_sim.advice import default_search

    assert default_search(Rules(), True).endswith("objective=win")
    assert "objective" not in default_search(Rules(), False)
    assert "objective" not in default_search(dataclasses.replace(Rules(), limit=150), True)
