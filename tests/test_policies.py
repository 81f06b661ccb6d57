"""The policy family: each decision rule on hand-written positions, fairness of comparisons."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.positions import Position
from yaniv_sim import Rules
from yaniv_sim.compare import compare, deal_interval, seatings
from yaniv_sim.engine.kernel import seed_round_streams as _seed_round_streams
from yaniv_sim.engine.specs import FAMILIES, canonical_spec, policy_vector

STANDARD = Rules()
PRESETS = [name for name in FAMILIES if name not in ("random", "search")]


def test_max_shed_and_heuristic_defaults_call_whenever_allowed():
    pos = Position(STANDARD, "AS 2D 3C", [(1, ""), (1, "")])
    assert pos.calls("max-shed") and pos.calls("heuristic")


def test_call_at_and_caution_when_an_opponent_holds_few_cards():
    pos = Position(STANDARD, "2S 3D", [(5, ""), (5, "")])
    assert pos.calls("heuristic:call_at=5")
    assert not pos.calls("heuristic:call_at=4")
    few = Position(STANDARD, "2S 3D", [(5, ""), (2, "")])
    assert few.calls("heuristic:call_at=5,few_cards=1,few_margin=3")
    assert not few.calls("heuristic:call_at=5,few_cards=2,few_margin=3")


def test_caution_after_a_low_pickup_and_late_in_the_round():
    pos = Position(STANDARD, "2S 3D", [(4, "AH"), (5, "")])
    assert pos.calls("heuristic:call_at=5")
    assert not pos.calls("heuristic:call_at=5,pickup_value=1,pickup_margin=2")
    assert pos.calls("heuristic:call_at=5,pickup_value=0,pickup_margin=2")
    late = Position(STANDARD, "2S 3D", [(5, ""), (5, "")], turn=30)
    assert not late.calls("heuristic:call_at=5,late_turn=30,late_margin=1")
    assert late.calls("heuristic:call_at=5,late_turn=31,late_margin=1")


def test_risk_aware_call_uses_the_visible_cards():
    # every low card is visible on the pile: an opponent cannot hold 5 or less in 5 cards
    dead = "AS AH AD AC 2S 2H 2D 2C 3S 3H 3D 3C JK JK 4S 4H 4D"
    safe = Position(STANDARD, "4C JK", [(5, ""), (5, "")], dead=dead.replace("JK JK ", ""))
    assert safe.calls("heuristic:max_risk=0.001")
    # an opponent with one card left, holding unknown cards: a real risk at 7
    risky = Position(STANDARD, "3S 4D", [(1, ""), (5, "")])
    assert not risky.calls("heuristic:max_risk=0.05")
    assert risky.calls("heuristic:max_risk=0.9")


def test_risk_table_calls_only_at_five_or_less():
    six = Position(STANDARD, "AS 5D", [(5, ""), (5, "")])
    assert not six.calls("risk-table")
    zero = Position(STANDARD, "JK", [(5, ""), (5, "")])
    assert zero.calls("risk-table")


def test_suspicious_waits_when_a_known_hand_may_be_lower():
    # opponent: one known ace plus one unknown card, half the mean unseen value ~ 3
    pos = Position(STANDARD, "2S 3D", [(2, "AH"), (5, "")])
    assert not pos.calls("suspicious")
    assert pos.calls("max-shed")
    far = Position(STANDARD, "AS 2D", [(5, ""), (5, "")])
    assert far.calls("suspicious")


def test_milestone_hunter_calls_when_even_an_assaf_lands_on_a_milestone():
    # total 13 + Assaf 30 + 7 = 50 -> 25
    pos = Position(STANDARD, "3S 4D", [(1, ""), (1, "")], totals=[13, 0, 0])
    assert pos.calls("heuristic:call_at=3,milestone=1")
    assert not pos.calls("heuristic:call_at=3")


def test_hold_jokers_keeps_jokers_while_a_joker_free_set_exists():
    # the run 5D JK 7D (12 points) outscores the queen; holding jokers throws the queen
    pos = Position(STANDARD, "5D 7D JK QC", [(5, ""), (5, "")])
    assert "JK" in pos.discards("heuristic")
    assert pos.discards("heuristic:hold_jokers=1") == "QC"
    # nothing but jokers: a joker must go
    only = Position(STANDARD, "JK JK", [(5, ""), (5, "")])
    assert "JK" in only.discards("heuristic:hold_jokers=1")


# every low card on the dead pile: no opponent can hold 4 or less, so calling at 4 is safe
LOW_CARDS = "AS AH AD AC 2S 2H 2D 2C 3S 3H 3D 3C 4S 4H 4D"


def test_milestone_wait_waits_when_being_caught_would_land_on_a_milestone():
    # 45 + a hand of 5: caught, the seat would land on 50 and drop to 25
    risky = Position(STANDARD, "2S 3D", [(1, ""), (5, "")], totals=[45, 0, 0])
    assert risky.calls("heuristic")
    assert not risky.calls("heuristic:milestone_wait=0.05")
    assert not risky.calls("heuristic:milestone_wait=-1")
    # not on a milestone (45 + 6 = 51): the parameter changes nothing
    off = Position(STANDARD, "2S 4D", [(1, ""), (5, "")], totals=[45, 0, 0])
    assert off.calls("heuristic:milestone_wait=0.05")
    # a call with no Assaf risk at all still goes ahead at 0, not at -1
    safe = Position(STANDARD, "4C JK", [(5, ""), (5, "")], dead=LOW_CARDS, totals=[46, 0, 0])
    assert safe.calls("heuristic:milestone_wait=0")
    assert not safe.calls("heuristic:milestone_wait=-1")


def test_milestone_slack_steers_the_discard_onto_a_milestone():
    # total 40: throwing the 9C (one point less than the KS) leaves 10, and 40 + 10 = 50
    pos = Position(STANDARD, "KS 9C", [(5, ""), (5, "")], totals=[40, 0, 0])
    assert pos.discards("heuristic") == "KS"
    assert pos.discards("heuristic:milestone_slack=1") == "9C"
    assert pos.discards("heuristic:milestone_slack=0.5") == "KS"
    # from 41 no discard lands: the slack changes nothing
    far = Position(STANDARD, "KS 9C", [(5, ""), (5, "")], totals=[41, 0, 0])
    assert far.discards("heuristic:milestone_slack=1") == "KS"


THEFT = Rules.preset("standard", ["milestone-theft"])


def test_theft_margin_calls_more_eagerly_when_a_landing_would_charge_another_leader():
    # seat 2 (total 18, five unknown cards worth about 31) is one hand away from 50;
    # if it lands, seat 1 (total 10, the leader) pays 30, not seat 0
    totals = [30, 10, 18]
    pos = Position(THEFT, "3S 4D", [(5, ""), (5, "")], totals=totals)
    cautious = "heuristic:call_at=5"
    assert not pos.calls(cautious)
    assert pos.calls(cautious + ",theft_margin=2")
    # without theft, or with the seat itself leading (it would pay), no extra eagerness
    assert not Position(STANDARD, "3S 4D", [(5, ""), (5, "")], totals=totals).calls(
        cautious + ",theft_margin=2"
    )
    leading = Position(THEFT, "3S 4D", [(5, ""), (5, "")], totals=[5, 10, 18])
    assert not leading.calls(cautious + ",theft_margin=2")
    # nobody near a milestone: no pressure
    calm = Position(THEFT, "3S 4D", [(5, ""), (5, "")], totals=[30, 10, 30])
    assert not calm.calls(cautious + ",theft_margin=2")


def test_call_table_plays_back_a_decision_table(tmp_path):
    # wait at 6 while an opponent holds two cards or fewer, early in the round
    cells = ",".join(f"call_v6_c{c}_t0=0" for c in (1, 2))
    spec = f"heuristic:table=1,{cells}"
    two = Position(STANDARD, "2S 4D", [(2, ""), (5, "")], turn=3)
    three = Position(STANDARD, "2S 4D", [(3, ""), (5, "")], turn=3)
    late = Position(STANDARD, "2S 4D", [(2, ""), (5, "")], turn=12)
    assert not two.calls(spec)
    assert three.calls(spec) and late.calls(spec)
    assert two.calls("heuristic:table=0," + cells)
    # the same table from a policy file
    path = tmp_path / "table.toml"
    path.write_text('policy = "heuristic"\ntable = 1\n[params]\ncall_v6_c1_t0 = 0\n'
                    'call_v6_c2_t0 = 0\n')  # fmt: skip
    assert not two.calls(str(path))
    assert canonical_spec(str(path)) == canonical_spec(spec)


def test_call_table_cells_call_wait_or_defer():
    pos = Position(STANDARD, "2S 4D", [(2, ""), (5, "")], turn=3)
    cell = "call_v6_c2_t0"
    # a cautious cut of 3 waits at 6; a cell of 1 calls anyway, 0.5 defers to the cut
    assert not pos.calls("heuristic:call_at=3")
    assert pos.calls(f"heuristic:call_at=3,table=1,{cell}=1")
    assert not pos.calls(f"heuristic:call_at=3,table=1,{cell}=0.5")
    assert pos.calls(f"heuristic:table=1,{cell}=0.5")
    # a cell of 1 also overrides the risk check (6 against a two-card hand is risky)
    assert not pos.calls("heuristic:max_risk=0.01")
    assert pos.calls(f"heuristic:max_risk=0.01,table=1,{cell}=1")


def test_call_table_reads_opponents_still_in_and_pickups():
    # one cell by opponents still in: two opponents here, three there
    spec = "heuristic:table=1,call_v6_c2_t0_o2=0"
    assert not Position(STANDARD, "2S 4D", [(2, ""), (5, "")], turn=3).calls(spec)
    assert Position(STANDARD, "2S 4D", [(2, ""), (5, ""), (5, "")], turn=3).calls(spec)
    # pickup: an opponent's known cards add up to no more than the hand (6)
    spec = "heuristic:table=1,call_v6_c2_t0_o2_p1=0"
    low = Position(STANDARD, "2S 4D", [(2, "3H"), (5, "")], turn=3)
    exact = Position(STANDARD, "2S 4D", [(2, "AH 5C"), (5, "")], turn=3)
    high = Position(STANDARD, "2S 4D", [(2, "KH"), (5, "")], turn=3)
    unknown = Position(STANDARD, "2S 4D", [(2, ""), (5, "")], turn=3)
    assert not low.calls(spec) and not exact.calls(spec)
    assert high.calls(spec) and unknown.calls(spec)
    # the whole-group name sets all six cells of (6, 2, 0)
    group = "heuristic:table=1,call_v6_c2_t0=0"
    assert not any(p.calls(group) for p in (low, high, unknown))


def test_pile_draws():
    pos = Position(STANDARD, "KS QD 9C", [(5, ""), (5, "")], prev="3H")
    assert pos.draws("max-shed") == "stock"
    assert pos.draws("pile-threshold") == "3H"
    assert pos.draws("heuristic:pile_at=2") == "stock"
    combo = Position(STANDARD, "KS QD 9C", [(5, ""), (5, "")], prev="9H")
    assert combo.draws("heuristic:pile_combo=1") == "9H"
    # from a run only an end may be taken, and the lowest wanted end is chosen
    run = Position(STANDARD, "KS QD", [(5, ""), (5, "")], prev="4D 5D 6D")
    assert run.draws("heuristic:pile_at=6") == "4D"


def test_discards_keep_combinations():
    # max-shed throws the king; the combo keeper keeps the Q-K of hearts together
    pos = Position(STANDARD, "QH KH JS 2C", [(5, ""), (5, "")])
    assert pos.discards("max-shed") in ("KH", "QH", "JS")
    assert pos.discards("combo-keeper") == "JS"


def test_protective_laying():
    # a run with a spare joker: hand it over next to the higher card, not the lower
    pos = Position(STANDARD, "5D 6D JK KC", [(5, ""), (5, "")])
    assert pos.discards("heuristic") == "5D 6D JK"
    assert pos.discards("heuristic:protect=1") == "JK 5D 6D"


def test_protective_laying_reads_one_card_with_jokers_as_a_run():
    # laid as a set of fives (the default), both jokers could be taken; laid as a run, one
    # joker at most: protect picks the first run with the five at an end, 3-4-5
    pos = Position(STANDARD, "5C JK JK KD", [(5, ""), (5, "")])
    assert pos.lays("heuristic", "5C JK JK") == ("5C JK JK", "set")
    assert pos.lays("max-shed", "5C JK JK") == ("5C JK JK", "set")
    assert pos.lays("heuristic:protect=1", "5C JK JK") == ("JK JK 5C", "run")
    # the ace fits one run only, A-2-3; under nordic there is no set to choose
    ace = Position(STANDARD, "AC JK JK KD", [(5, ""), (5, "")])
    assert ace.lays("heuristic:protect=1", "AC JK JK") == ("AC JK JK", "run")
    nordic = Position(Rules.preset("nordic"), "5C JK JK KD", [(5, ""), (5, "")])
    assert nordic.lays("heuristic", "5C JK JK")[1] == "run"
    # under set_draw = ends both readings offer the ends: the same choice as among runs
    ends = Position(Rules(set_draw="ends"), "5C JK JK KD", [(5, ""), (5, "")])
    assert ends.lays("heuristic:protect=1", "5C JK JK") == ("JK JK 5C", "run")


def test_draws_follow_the_reading_laid():
    # JK 2C JK laid as a run (A-2-3) offers only the jokers; laid as a set, the 2C too
    for kind, offered in (("run", {"JK"}), ("set", {"JK", "2C"})):
        seen = set()
        for seed in range(40):
            pos = Position(STANDARD, "KS QD 9C", [(5, ""), (5, "")], prev="JK 2C JK",
                           prev_kind=kind, hidden_seed=seed)  # fmt: skip
            _seed_round_streams(pos.t.rng, seed, 0, 0)  # the policy's own random stream
            seen.add(pos.draws("random:pile=1"))
        assert seen == offered, kind


@pytest.mark.parametrize("policy", PRESETS)
def test_decisions_never_depend_on_hidden_cards(policy):
    """Change only what seat 0 cannot see: its decisions stay the same."""
    for hand, opponents, prev in [
        ("2S 3D", [(2, "AH"), (4, "")], "5C"),
        ("KS QD 9C 9H", [(1, ""), (3, "2D")], "4D 5D 6D"),
        ("AS 4C", [(5, ""), (2, "")], "QC"),
    ]:
        decisions = {
            (Position(STANDARD, hand, opponents, prev=prev, hidden_seed=s).calls(policy),
             Position(STANDARD, hand, opponents, prev=prev, hidden_seed=s).draws(policy),
             Position(STANDARD, hand, opponents, prev=prev, hidden_seed=s).discards(policy))
            for s in range(6)
        }  # fmt: skip
        assert len(decisions) == 1, decisions


def test_policy_specs_round_trip(tmp_path):
    spec = "best:max_risk=0.25,keep=0.1"
    assert canonical_spec(canonical_spec(spec)) == canonical_spec(spec)
    toml = tmp_path / "mine.toml"
    toml.write_text('policy = "best"\nmax_risk = 0.25\nkeep = 0.1\n')
    assert np.array_equal(policy_vector(str(toml)), policy_vector(spec))
    assert canonical_spec(str(toml)) == canonical_spec(spec)
    with pytest.raises(ValueError, match="unknown parameter 'bravery'"):
        policy_vector("best:bravery=1")
    with pytest.raises(ValueError, match="unknown policy 'genius'"):
        policy_vector("genius")


def test_a_policy_against_itself_is_not_separable():
    c = compare(["risk-aware", "risk-aware:max_risk=0.2"], STANDARD, 4, 400, seed=3, workers=1)
    row = c.pairs.iloc[0]
    assert row.low <= 0 <= row.high


def test_one_seat_gain_over_fair_share_is_the_paired_interval():
    # one best seat against three max-shed players: clearly ahead
    c = compare(["best", "max-shed", "max-shed", "max-shed"], STANDARD, 4, 200, seed=5,
                workers=1)  # fmt: skip
    gain, low, high = c.gain_over_fair(0)
    assert gain == pytest.approx(c.table["win_rate"].iloc[0] - 0.25)
    assert 0 < low < gain < high
    per_deal = c.deal_wins[:, 0] - 0.25
    half = 1.959964 * per_deal.std(ddof=1) / np.sqrt(len(per_deal))
    assert high - gain == pytest.approx(half, rel=1e-4)
    # a policy against copies of itself gains nothing beyond chance
    same = compare(["best"] * 4, STANDARD, 4, 100, seed=6, workers=1)
    assert same.gain_over_fair(0)[1] <= 0 <= same.gain_over_fair(0)[2]


def test_deal_interval_by_hand():
    # values 0, 1, 1, 0: mean 1/2, sample sd sqrt(1/3), se sqrt(1/3) / 2
    mean, low, high = deal_interval([0.0, 1.0, 1.0, 0.0])
    half = 1.959963984540054 * math.sqrt(1 / 3) / 2
    assert mean == 0.5 and low == pytest.approx(0.5 - half) and high == pytest.approx(0.5 + half)
    assert deal_interval([0.9, 1.0, 1.0, 1.0], clip=(0.0, 1.0))[2] == 1.0


def test_win_share_intervals_are_paired_over_the_deals():
    """Two policies: each deal's shares add up to one (a game always has a winner here),
    so a share's paired interval is the difference's halved, and the per-deal shares
    kept on the result reproduce the table."""
    c = compare(["best", "max-shed"], STANDARD, 3, 200, seed=7, workers=1)
    wins = c.deal_wins
    assert wins.shape == (200, 2) and np.allclose(wins.sum(axis=1), 1)
    assert np.allclose(wins.mean(axis=0), c.table.win_rate)
    pair = c.pairs.iloc[0]
    half = (pair.high - pair.low) / 4
    for row in c.table.itertuples():
        if row.win_low > 0 and row.win_high < 1:
            assert row.win_high - row.win_rate == pytest.approx(half)
            assert row.win_rate - row.win_low == pytest.approx(half)


def test_a_clearly_weaker_policy_loses_to_max_shed():
    weak = "heuristic:call_at=0"
    c = compare(["max-shed", weak], STANDARD, 2, 300, seed=5, workers=1)
    row = c.pairs.iloc[0]
    assert row.difference > 0 and row.p_value < 1e-6


def test_sequential_comparison_stops_early_and_reproducibly():
    kwargs = dict(sequential=True, chunk=100, effect=0.05)
    a = compare(["best", "max-shed"], STANDARD, 2, 5000, seed=4, workers=1, **kwargs)
    b = compare(["best", "max-shed"], STANDARD, 2, 5000, seed=4, workers=2, **kwargs)
    assert a.sequential == b.sequential == "first better"
    assert a.games == b.games < 5000 and a.games % 100 == 0
    pd.testing.assert_frame_equal(a.table, b.table)


def test_best_beats_the_field_at_three_players():
    c = compare(["best", "pile-picker", "risk-table"], Rules.preset("nordic"), 3, 1000, seed=6,
                workers=1)  # fmt: skip
    best = c.table.set_index("policy").loc["best", "win_rate"]
    assert best > 1 / 3
    for row in c.pairs.itertuples():
        if row.a == "best":
            assert row.p_value < 0.01


OTHER_PRESETS = [p for p in PRESETS if p not in ("best", "heuristic")]


@pytest.mark.slow
@pytest.mark.parametrize("rules_name", ["standard", "nordic"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_best_beats_every_other_preset(rules_name, players):
    rules = Rules.preset(rules_name)
    for other in OTHER_PRESETS:
        c = compare(["best", other], rules, players, 1000, seed=11, workers=2)
        row = c.pairs.iloc[0]
        assert row.difference > 0 and row.p_value < 0.001, (other, row.difference, row.p_value)


def test_in_kernel_odds_match_exact_counting():
    from itertools import combinations

    from yaniv_sim.cards import VALUE, deck_codes
    from yaniv_sim.engine.kernel import p_at_most as _p_at_most
    from yaniv_sim.odds import hand_value_distribution

    ways = np.zeros(128, np.int64)
    deck = deck_codes(1, 2)
    counts = np.bincount(VALUE[deck], minlength=11).astype(np.int64)
    for draws, budget in [(5, 7), (3, 4), (1, 0), (2, 15)]:
        exact = hand_value_distribution(deck, draws)[: budget + 1].sum()
        got = _p_at_most(counts, len(deck), draws, budget, ways)
        assert got == pytest.approx(exact, rel=1e-12)
    # a small pile of unseen cards, by brute force over every subset
    small = deck[[0, 1, 13, 14, 27, 40, 52, 9, 22]]
    values = VALUE[small]
    counts = np.bincount(values, minlength=11).astype(np.int64)
    for draws in range(1, 5):
        for budget in range(0, 16):
            subsets = list(combinations(values, draws))
            brute = sum(sum(c) <= budget for c in subsets) / len(subsets)
            assert _p_at_most(counts, len(small), draws, budget, ways) == pytest.approx(brute)


def test_each_policy_sits_in_every_seat_equally_often_in_distinct_seatings():
    for players in range(2, 9):
        for k in range(2, players + 1):
            found = seatings(players, k)
            assert len(set(found)) == len(found)  # each seating once
            counts = np.zeros((players, k), dtype=int)
            for owner in found:
                assert sorted(set(owner)) == list(range(k))
                counts[np.arange(players), owner] += 1
            assert (counts == counts[0, 0]).all()
    assert len(seatings(4, 2)) == 2 and len(seatings(6, 3)) == 3 and len(seatings(5, 2)) == 10


def test_a_seating_that_turning_repeats_is_played_once_with_the_same_result():
    """Two policies at 4 seats are played in ABAB and BABA only; the four policies
    A, B, A, B (each index its own) are played in all four rotations, which is
    the same match with every game played twice."""
    two = compare(["best", "max-shed"], STANDARD, 4, 150, seed=8, workers=1)
    four = compare(["best", "max-shed", "best", "max-shed"], STANDARD, 4, 150, seed=8,
                   workers=1)  # fmt: skip
    assert np.allclose(two.deal_wins[:, 0], four.deal_wins[:, [0, 2]].sum(axis=1))
    assert np.allclose(two.deal_wins[:, 1], four.deal_wins[:, [1, 3]].sum(axis=1))
    assert 0.05 < two.deal_wins[:, 0].mean() < 0.95 and two.deal_wins[:, 0].std() > 0
