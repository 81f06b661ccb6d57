"""Game equity tables (yaniv_sim.equity): exact end cases, the two-player table against
an independent play-out of the same round model, monotonicity, calibration on fresh
games, files and the command line."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from yaniv_sim import Rules, equity
from yaniv_sim.cli import main
from yaniv_sim.engine import settle_round

# a small round model: (starter's score, other's score, round winner: 0 starter, 1 other,
# 2 nobody) and its probabilities
OUTCOMES = np.array([[0, 7, 0], [0, 3, 0], [0, 12, 0], [31, 0, 1], [2, 0, 1], [0, 0, 2],
                     [0, 1, 0], [4, 4, 2]], np.int64)  # fmt: skip
PROBS = np.array([0.25, 0.2, 0.15, 0.1, 0.12, 0.03, 0.1, 0.05])


def _table(rules: Rules) -> equity.Equity:
    two, tied = equity.two_player_table(rules, (OUTCOMES, PROBS))
    return equity.Equity(rules, 2, "model", two, tied, {}, {})


def _play_out(rules: Rules, totals, starter: int, rng) -> int:
    """One game of the round model from ``totals``, settled by the engine's own rules."""
    totals, alive = np.array(totals, np.int64), np.ones(2, bool)
    while True:
        xs, xo, who = OUTCOMES[rng.choice(len(PROBS), p=PROBS)]
        scores = np.zeros(2, np.int64)
        scores[starter], scores[1 - starter] = xs, xo
        totals, alive, winner = settle_round(totals, scores, alive, rules)
        if winner is not None:
            return winner
        round_winner = -1 if who == 2 else (starter if who == 0 else 1 - starter)
        if rules.starter == "winner":
            starter = starter if round_winner < 0 else round_winner
        else:
            starter = 1 - starter


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("standard").replace(limit=40, milestones={20: 10}),
        Rules.preset("nordic").replace(limit=40, milestones={20: 10, 40: 20}),
        Rules.preset("standard", variants=["milestone-theft"]).replace(
            limit=40, milestones={20: 5}
        ),
    ],
    ids=["standard", "nordic-winner-starts", "theft"],
)
def test_two_player_table_matches_playing_the_model_out(rules):
    table = _table(rules)
    rng = np.random.default_rng(7)
    for totals, starter in (((0, 0), 0), ((15, 30), 1), ((38, 38), 0), ((19, 2), 0)):
        games = 4000
        wins = sum(_play_out(rules, totals, starter, rng) == 0 for _ in range(games))
        p = table.win_chances(totals, starter=starter)[0]
        se = np.sqrt(p * (1 - p) / games)
        assert abs(wins / games - p) < 4 * se + 1e-9, (totals, starter, wins / games, p)


def test_over_the_limit_is_out_and_a_settled_game_is_certain():
    rules = Rules.preset("standard")
    table = _table(rules)
    assert table.after_round([190, 50], [11, 0]).tolist() == [0.0, 1.0]
    assert table.after_round([190, 50], [0, 151]).tolist() == [1.0, 0.0]
    assert table.after_round([195, 199], [10, 10]).tolist() == [1.0, 0.0]  # both over: lower wins
    assert table.win_chances([201, 50], alive=[False, True]).tolist() == [0.0, 1.0]
    with pytest.raises(equity.EquityError, match="above the limit is out"):
        table.win_chances([201, 50], alive=[True, True])


def test_two_over_the_limit_with_equal_totals_replay():
    rules = Rules.preset("standard")  # the other seat starts the next round
    table = _table(rules)
    xs, xo = OUTCOMES[:, 0], OUTCOMES[:, 1]
    p_lower, p_higher, p_equal = PROBS[xs < xo].sum(), PROBS[xs > xo].sum(), PROBS[xs == xo].sum()
    # starting: the starter wins a tied replay with p_lower + p_equal * (1 - its chance next)
    # written out: t0 = p_lower + q * t1, t1 = p_higher + q * t0
    t0 = (p_lower + p_equal * p_higher) / (1 - p_equal**2)
    t1 = p_higher + p_equal * t0
    chances = table.after_round([190, 190], [15, 15], starter=1)  # seat 0 starts next
    assert chances[0] == pytest.approx(t0, abs=1e-12)
    assert table.win_chances([205, 205], [True, True], starter=1)[0] == pytest.approx(t1, abs=1e-12)


def test_without_milestones_more_points_never_help():
    rules = Rules.preset("standard").replace(milestones={})
    two = _table(rules).two
    assert (np.diff(two, axis=1) <= 1e-12).all()  # own total up: chance down
    assert (np.diff(two, axis=2) >= -1e-12).all()  # opponent's total up: chance up


def test_a_milestone_makes_landing_on_it_worth_points():
    rules = Rules.preset("standard").replace(limit=100, milestones={50: 25})
    two = _table(rules).two
    # being at 50 without landing is worse than at 25 (where a landing puts you)
    assert (two[:, 25, :] > two[:, 50, :]).all()


@pytest.fixture(scope="module")
def small_tables():
    rules = Rules.preset("standard")
    two = equity.build(rules, 2, "max-shed", games=1500, seed=3, workers=1)
    three = equity.build(rules, 3, "max-shed", games=1500, seed=4, workers=1)
    return two, three


def test_tables_are_calibrated_on_fresh_games(small_tables):
    for table in small_tables:
        cal = equity.calibration(table, games=1500, seed=99, workers=1, bins=5)
        assert set(cal["players_in"]) == set(range(2, table.players + 1))
        se = (cal["high"] - cal["low"]) / (2 * 1.96)
        off = (cal["predicted"] - cal["observed"]).abs()
        # 5 bins per number of players in: no bin more than 3.3 standard errors off (a bin
        # holding both players of every two-player state it holds is exactly 0.5 both ways)
        assert ((off < 3.3 * se) | ((se == 0) & (off < 1e-9))).all(), cal


def test_chances_add_up_and_a_table_survives_a_file(small_tables, tmp_path):
    _, three = small_tables
    back = equity.load(three.save(tmp_path / "t.npz"))
    for totals, starter in (([0, 0, 0], 0), ([150, 20, 80], 2), ([199, 200, 0], 1)):
        p = three.win_chances(totals, starter=starter)
        assert p.sum() == pytest.approx(1.0)
        assert back.win_chances(totals, starter=starter) == pytest.approx(p, abs=1e-4)
    assert three.win_chances([0, 0, 0])[0] > three.win_chances([150, 0, 0])[0]


def test_shipped_tables_cover_both_presets_and_every_table_size():
    for rules_name in ("standard", "nordic"):
        for players in range(2, 9):
            table = equity.shipped(rules_name, players)
            assert table.players == players and table.policy == "best"
            assert table.rules == Rules.preset(rules_name)
            assert table.meta["seed"] == 2026 and "equity build" in table.meta["command"]
            assert sorted(table.logit) == list(range(3, players + 1))
            even = table.win_chances([0] * players)
            assert even.sum() == pytest.approx(1.0)
            assert abs(even[0] - 1 / players) < 0.05


def test_bad_input_is_one_line():
    runner = CliRunner()
    result = runner.invoke(main, ["equity", "show", "--players", "2", "--totals", "40,x"])
    assert result.exit_code != 0 and "totals" in result.output and "Traceback" not in result.output
    result = runner.invoke(main, ["equity", "show", "--players", "3", "--totals", "40,50"])
    assert result.exit_code != 0 and "give 3 totals" in result.output
    result = runner.invoke(main, ["equity", "show", "--players", "2", "--totals", "40,120"])
    assert result.exit_code == 0 and "seat 1: total 120" in result.output


def test_landing_on_a_milestone_is_worth_win_chance():
    for rules_name in ("standard", "nordic"):
        frame = equity.point_values(equity.shipped(rules_name, 2), opponent=100)
        landings = frame.dropna(subset=["landing"])
        assert list(landings["total"]) == [at for at, _ in Rules.preset(rules_name).milestones]
        assert (landings["landing"] > 0.05).all()
    result = CliRunner().invoke(main, ["equity", "points", "--rules", "nordic", "--near", "2"])
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.output.splitlines()[2:]] == [
        "98", "99", "100", "198", "199", "200"]  # fmt: skip


def test_after_round_passes_the_start_as_the_rules_say():
    nordic = Rules.preset("nordic")  # the round's winner starts the next
    table = _table(nordic)
    two = table.two
    # seat 1 won the round: it starts next, so seat 0's chance is two[1, ...]
    assert table.after_round([10, 20], [5, 0], starter=0, winner=1)[0] == two[1, 15, 20]
    # nobody won (a void round): the same seat starts again
    assert table.after_round([10, 20], [0, 0], starter=0, winner=-1)[0] == two[0, 10, 20]
    standard = _table(Rules.preset("standard"))  # the start rotates whoever won
    assert standard.after_round([10, 20], [5, 0], starter=0, winner=0)[0] == standard.two[1, 15, 20]


@pytest.mark.parametrize("rules_name,players", [("standard", 2), ("standard", 4), ("nordic", 3),
                                                ("nordic", 5)])  # fmt: skip
def test_many_states_at_once_equal_one_at_a_time(rules_name, players):
    table = equity.shipped(rules_name, players)
    rng = np.random.default_rng(players)
    n, limit = 400, table.rules.limit
    totals = rng.integers(0, limit + 1, size=(n, players))
    alive = rng.random((n, players)) < 0.75
    alive[np.arange(n), rng.integers(0, players, n)] = True
    totals[~alive] = limit + 5
    totals[:40] = rng.choice([24, 25, 49, 50, 99, 100, limit - 1, limit], size=(40, players))
    scores = np.where(alive, rng.integers(0, 40, size=(n, players)), 0)
    starter = np.array([rng.choice(np.flatnonzero(a)) for a in alive])
    winner = np.array([rng.choice(np.flatnonzero(a)) for a in alive])
    winner[rng.random(n) < 0.1] = -1
    many = table.values_after(totals, scores, alive, starter, winner)
    for i in range(n):
        one = table.after_round(totals[i], scores[i], alive[i], int(starter[i]), int(winner[i]))
        assert many[i] == pytest.approx(one, abs=1e-12)
    chances = table.win_chances_many(totals, alive, starter)
    for i in range(0, n, 7):
        one = table.win_chances(totals[i], alive[i], int(starter[i]))
        assert chances[i] == pytest.approx(one, abs=1e-12)


def test_settling_many_rounds_equals_settling_each():
    from yaniv_sim.engine import settle_rounds

    rules = Rules.preset("standard", milestone_theft=True)
    rng = np.random.default_rng(9)
    totals = rng.integers(0, 200, size=(300, 4))
    scores = rng.integers(0, 60, size=(300, 4))
    alive = rng.random((300, 4)) < 0.8
    alive[:, 0] = True
    new, still, winner = settle_rounds(totals, scores * alive, alive, rules)
    for i in range(300):
        t, a, w = settle_round(totals[i], scores[i] * alive[i], alive[i], rules)
        assert (new[i] == t).all() and (still[i] == a).all()
        assert winner[i] == (-1 if w is None else w)
    with pytest.raises(ValueError, match="rounds, seats"):
        settle_rounds(totals, scores[:, :3], alive, rules)


@pytest.mark.parametrize(("name", "players"), [("standard", 2), ("nordic", 3), ("standard", 5),
                                               ("nordic", 8)])  # fmt: skip
def test_the_kernels_equity_is_the_table(name, players):
    # the search's objective=win reads the table through kernels of its own
    # (engine._equity): the same win chances, and the same settling of a round
    from yaniv_sim.engine._equity import equity_arrays, value_after, win_chance
    from yaniv_sim.engine._layout import rule_record

    rules = Rules.preset(name)
    table = equity.shipped(name, players)
    arrays, record = equity_arrays(rules, players), rule_record(rules, players)
    rng = np.random.default_rng(players)
    for _ in range(150):
        alive = rng.random(players) < 0.7
        alive[rng.integers(players)] = True
        totals = rng.integers(0, rules.limit + 1, players)
        starter = int(rng.choice(np.flatnonzero(alive)))
        scores = rng.integers(0, 40, players) * (rng.random(players) < 0.8)
        winner = int(rng.choice(np.flatnonzero(alive))) if rng.random() < 0.8 else -1
        if winner >= 0:
            scores[winner] = 0
        now = table.win_chances(totals, alive, starter)
        after = table.after_round(totals, scores, alive, starter, winner)
        flags = alive.astype(np.int8)
        for seat in range(players):
            got = win_chance(arrays, rules.limit, totals, flags, starter, seat)
            assert got == pytest.approx(now[seat], abs=1e-12)
            got = value_after(arrays, record, totals, flags, scores, starter, winner, seat)
            assert got == pytest.approx(after[seat], abs=1e-12)
