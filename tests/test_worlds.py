"""Worlds: tables a seat cannot tell from the real one, for perfect-information search.

The positions are cut from seeded rounds at many turns (2 to 8 players,
standard and nordic rules, two decks at 6+ players, a seat out of the game);
the searching seat is the seat to act or another seat still in.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chi2

from tests.replay import check_round
from yaniv_sim import Rules, engine
from yaniv_sim.cards import N_CODES, ORDER, VALUE, deck_codes, parse_cards
from yaniv_sim.engine.kernel import STOCK, new_table
from yaniv_sim.engine.kernel import position_of as _from_table
from yaniv_sim.engine.kernel import sample_world as _sample_world
from yaniv_sim.engine.kernel import seed_sampler as _seed_sampler
from yaniv_sim.engine.kernel import table_of as _to_table

PILE_HEAVY = "random:call=0.05,pile=0.8"  # takes from the pile often: many taken cards

# (rules, players, policies that cut the positions, position_at keywords)
CASES = [
    (Rules.preset("standard"), 2, "random:call=0.02,pile=0.9", {}),  # long rounds, reshuffles
    (Rules.preset("nordic"), 3, ["best", PILE_HEAVY, "pile-picker"], {}),
    (Rules.preset("standard"), 4, PILE_HEAVY, {}),
    (Rules.preset("nordic", ["slapdown"]), 5, "best", {"totals": [40, 0, 90, 12, 150]}),
    (Rules.preset("standard"), 5, PILE_HEAVY, {"alive": [1, 0, 1, 1, 1], "starter": 2}),
    (Rules.preset("standard"), 6, ["pile-picker", PILE_HEAVY], {}),  # two decks
    (Rules.preset("standard", ["double-joker"]), 7, "best", {}),  # two decks, 8 jokers
    (Rules.preset("nordic", decks=2), 8, PILE_HEAVY, {}),
]
CASE_IDS = ["standard-2", "nordic-3", "standard-4", "nordic-slapdown-5", "standard-5-one-out",
            "standard-6-two-decks", "double-joker-7-two-decks", "nordic-8-two-decks"]  # fmt: skip


def _policies(policies, players):
    if isinstance(policies, str):
        return policies
    return [policies[s % len(policies)] for s in range(players)]


def _positions(rules, players, policies, keywords, seeds=range(3), cuts=6):
    """Positions cut from seeded rounds at up to ``cuts`` turns spread over each round."""
    policies = _policies(policies, players)
    out = []
    for seed in seeds:
        whole = engine.play_round(rules, players, seed, policies, round=1, **keywords)
        last = whole.turns if whole.steps[-1].action == "call" else whole.turns - 1
        for turn in sorted(set(np.linspace(0, last, cuts).astype(int).tolist())):
            out.append(engine.position_at(rules, players, seed, policies, turn=turn, round=1,
                                          **keywords))  # fmt: skip
    return out


def _searchers(position):
    """The seat to act, and the next seat in after it."""
    alive = np.flatnonzero(position.alive)
    after = alive[(np.searchsorted(alive, position.seat) + 1) % len(alive)]
    return [position.seat, int(after)]


def _hidden_slots(position, seat):
    """The cards ``seat`` cannot see, and where they lie: (seat, slot) or ("stock", index)."""
    cards, where = [], []
    for o, (hand, took) in enumerate(zip(position.hands, position.taken, strict=True)):
        if o != seat:
            for i in np.flatnonzero(~took):
                cards.append(int(hand[i]))
                where.append((o, int(i)))
    for k, c in enumerate(position.stock):
        cards.append(int(c))
        where.append(("stock", k))
    return cards, where


def _redeal_hidden(position, seat, rng):
    """The position with the hidden cards permuted among their places, hands re-sorted.

    After a reshuffle the stock holds only cards of ``position.rebuilt`` (seen
    by all), so a card not among them stays in a hand: the permutation is
    repaired by swapping it with a rebuilt card that landed in a hand.
    """
    cards, where = _hidden_slots(position, seat)
    cards = list(rng.permutation(cards))
    rebuilt = Counter(position.rebuilt.tolist()) if len(position.rebuilt) else None
    if rebuilt is not None:
        in_stock = [k for k, (place, _) in enumerate(where) if place == "stock"]
        in_hands = [k for k, (place, _) in enumerate(where) if place != "stock"]
        for k in in_stock:
            if cards[k] not in rebuilt:
                j = next(j for j in in_hands if cards[j] in rebuilt)
                cards[k], cards[j] = cards[j], cards[k]
    hands = [h.copy() for h in position.hands]
    stock = position.stock.copy()
    for card, (place, i) in zip(cards, where, strict=True):
        if place == "stock":
            stock[i] = card
        else:
            hands[place][i] = card
    taken = list(position.taken)
    for o in range(position.players):
        order = np.argsort(ORDER[hands[o]], kind="stable")
        hands[o], taken[o] = hands[o][order], taken[o][order]
    return dataclasses.replace(position, hands=tuple(hands), taken=tuple(taken), stock=stock)


@pytest.mark.parametrize(("rules", "players", "policies", "keywords"), CASES, ids=CASE_IDS)
def test_worlds_depend_only_on_what_the_seat_can_see(rules, players, policies, keywords):
    rng = np.random.default_rng(players)
    compared = redealt = 0
    for position in _positions(rules, players, policies, keywords):
        for seat in _searchers(position):
            other = _redeal_hidden(position, seat, rng)
            engine.play_on(other, rules, record=False)  # a position the engine accepts
            redealt += not other.same_as(position)
            for seed, bias, recall in ((0, 0.0, False), (7, 0.0, False), (3, 0.5, False),
                                       (5, 0.2, True)):  # fmt: skip
                a = engine.sample_world(position, rules, seed=seed, seat=seat, bias=bias,
                                        recall=recall)  # fmt: skip
                b = engine.sample_world(other, rules, seed=seed, seat=seat, bias=bias,
                                        recall=recall)  # fmt: skip
                assert a.same_as(b), f"seat {seat} sees no difference, yet:\n{a}\n{b}"
                compared += 1
            # the seed decides the world: another seed deals other hidden cards (unless
            # there are too few of them to tell: 2 hidden cards have 2 deals)
            if len(_hidden_slots(position, seat)[0]) >= 5:
                c = engine.sample_world(position, rules, seed=8, seat=seat)
                assert not c.same_as(a)
    # the redealt positions really differ in what the seat cannot see
    assert redealt >= 0.9 * compared / 4


@pytest.mark.parametrize(("rules", "players", "policies", "keywords"), CASES, ids=CASE_IDS)
def test_a_world_keeps_the_seats_view_and_the_deck(rules, players, policies, keywords):
    deck = np.sort(deck_codes(rules.decks_for(players), rules.jokers_per_deck))
    changed = hidden_total = 0
    for position in _positions(rules, players, policies, keywords):
        for seat in _searchers(position):
            for seed in range(3):
                w = engine.sample_world(position, rules, seed=seed, seat=seat)
                assert np.array_equal(w.hands[seat], position.hands[seat])
                assert np.array_equal(w.taken[seat], position.taken[seat])
                for name in ("dead", "pile", "alive", "totals", "streams"):
                    assert np.array_equal(getattr(w, name), getattr(position, name)), name
                for name in ("pile_kind", "seat", "turn", "starter", "reshuffles"):
                    assert getattr(w, name) == getattr(position, name), name
                assert len(w.stock) == len(position.stock)
                everything = np.concatenate([*w.hands, w.stock, w.dead, w.pile])
                assert np.array_equal(np.sort(everything), deck)
                for o in range(players):
                    hand, took = w.hands[o], w.taken[o]
                    assert len(hand) == len(position.hands[o]) and len(took) == len(hand)
                    assert np.all(np.diff(ORDER[hand]) >= 0), "a hand is kept in card order"
                    seen = position.hands[o][position.taken[o]]
                    assert Counter(hand[took].tolist()) == Counter(seen.tolist())
                cards, _ = _hidden_slots(position, seat)
                now, _ = _hidden_slots(w, seat)
                assert Counter(now) == Counter(cards)
                hidden_total += 1
                changed += not all(
                    np.array_equal(w.hands[o], position.hands[o]) for o in range(players)
                ) or not np.array_equal(w.stock, position.stock)
    # the hidden cards are dealt afresh (only a one-card stock and no hidden hand could stay)
    assert changed >= 0.9 * hidden_total


def _snapshot(t):
    return [np.array(a, copy=True) for a in t]


SOME = slice(None, None, 3)


@pytest.mark.parametrize(
    ("rules", "players", "policies", "keywords"), CASES[SOME], ids=CASE_IDS[SOME]
)
def test_the_kernel_leaves_the_table_alone_and_writes_the_whole_world(
    rules, players, policies, keywords
):
    garbage = np.random.default_rng(1)
    for position in _positions(rules, players, policies, keywords, seeds=range(2)):
        t = _to_table(position, rules, 0)
        seat = np.int64(_searchers(position)[1])
        before = _snapshot(t)
        fresh, dirty = new_table(players), new_table(players)
        for a in dirty[:-3]:  # every field but the scratch arrays, filled with rubbish
            a[...] = garbage.integers(0, 100, a.shape).astype(a.dtype)
        dirty.cand[...] = 1
        results = []
        for world in (fresh, dirty):
            rng = np.zeros(1, np.uint64)
            _seed_sampler(rng, 5)
            _sample_world(t, seat, world, rng, 0.0)
            results.append(_snapshot(world)[:-3])  # all but the scratch cand, lay, lay_len
        assert all(np.array_equal(x, y) for x, y in zip(_snapshot(t), before, strict=True))
        assert all(np.array_equal(x, y) for x, y in zip(*results, strict=True))
        w = dirty
        assert not w.cand[0, :N_CODES].any(), "the scratch row is left zeroed"
        assert np.array_equal(w.rng, t.rng) and np.array_equal(w.pst, t.pst)
        for s in range(players):
            n = w.hand_n[s]
            assert w.hand_val[s] == VALUE[w.hands[s, :n]].sum()
            assert not w.hands[s, n:].any() and not w.taken[s, n:].any()
        assert not w.piles[STOCK, w.pst[0] :].any()
        assert _from_table(w).same_as(_from_table(_to_table(_from_table(w), rules, 0)))


def _uniform_position():
    """Seat 0 to act; seat 1 holds 2 taken + 3 hidden cards, seat 2 4 hidden, seat 3 one."""
    rules = Rules.preset("standard")
    hands = [parse_cards("AS 2D 9C JD KS"), parse_cards("3H 4H 5D 8S QC"),
             parse_cards("6S 6D 10H KH"), parse_cards("7C")]  # fmt: skip
    taken = [np.zeros(5, bool), np.array([1, 1, 0, 0, 0], bool), np.zeros(4, bool),
             np.zeros(1, bool)]  # fmt: skip
    pile = parse_cards("4C 5C 6C")
    dead = parse_cards("2S 3S 4S 5S 6H 7H 8H 9H 2C 3C")
    used = {int(c) for part in [*hands, pile, dead] for c in part}
    stock = np.array([c for c in deck_codes(1, 2) if c not in used], np.int16)
    position = engine.Position(
        hands=tuple(hands), taken=tuple(taken), stock=stock, dead=dead, pile=pile,
        pile_kind="run", seat=0, turn=20, starter=1, reshuffles=0, alive=np.ones(4, bool),
        totals=np.zeros(4, np.int64),
    )  # fmt: skip
    return rules, position


def _p_value(counts, draws, per_draw):
    """p of the hypothesis that each of ``len(counts)`` cards is equally likely.

    ``counts[c]``: in how many of ``draws`` samples card ``c`` was among the
    ``per_draw`` cards of a place (a hand's hidden cards, drawn without
    replacement). Pearson's statistic, scaled by ``(h - 1) / (h - per_draw)``
    for the negative correlation of cards drawn together, is chi-square with
    ``h - 1`` degrees of freedom (exactly Pearson's for one card a draw).
    """
    h = len(counts)
    expected = draws * per_draw / h
    stat = ((counts - expected) ** 2 / expected).sum() * (h - 1) / (h - per_draw)
    return chi2.sf(stat, h - 1)


def test_hidden_cards_land_everywhere_equally_often():
    rules, position = _uniform_position()
    t = _to_table(position, rules, 0)
    hidden, _ = _hidden_slots(position, 0)
    index = {c: i for i, c in enumerate(hidden)}
    h = len(hidden)
    assert h == 3 + 4 + 1 + len(position.stock) == 34
    draws = 40_000
    world = new_table(4)
    rng = np.zeros(1, np.uint64)
    _seed_sampler(rng, 2024)
    places = {"seat 1": np.zeros(h), "seat 2": np.zeros(h), "seat 3": np.zeros(h),
              "stock top": np.zeros(h), "stock bottom": np.zeros(h)}  # fmt: skip
    pairs = np.zeros((h, h))
    stock_n = len(position.stock)
    for _ in range(draws):
        _sample_world(t, np.int64(0), world, rng, 0.0)
        for name, seat in (("seat 1", 1), ("seat 2", 2), ("seat 3", 3)):
            for i in range(world.hand_n[seat]):
                if not world.taken[seat, i]:
                    places[name][index[int(world.hands[seat, i])]] += 1
        top = index[int(world.piles[STOCK, stock_n - 1])]
        places["stock top"][top] += 1
        places["stock bottom"][index[int(world.piles[STOCK, 0])]] += 1
        pairs[top, index[int(world.hands[3, 0])]] += 1
    per_draw = {"seat 1": 3, "seat 2": 4, "seat 3": 1, "stock top": 1, "stock bottom": 1}
    for name, counts in places.items():
        assert counts.sum() == draws * per_draw[name]
        p = _p_value(counts, draws, per_draw[name])
        assert p > 1e-4, f"{name}: the hidden cards are not equally likely (p = {p:.2g})"
    # jointly, the stock's top and seat 3's card are a uniform pair of two different cards
    assert not pairs.diagonal().any()
    off = pairs[~np.eye(h, dtype=bool)]
    p = _p_value(off, draws, 1)
    assert p > 1e-4, f"stock top and seat 3's card are not independent (p = {p:.2g})"

    # Power: a sampler that gives one card a relative excess r (probability (1 + r) / h)
    # puts a noncentrality of about draws * r**2 / h on the statistic: with 40 000 draws
    # and h = 34 hidden cards, some 106 for r = 0.3, against a 1e-4 cut near 72 for 33
    # degrees of freedom (mean 33 when uniform), so such a bias fails almost surely;
    # r = 0.15 (noncentrality 26) fails about a third of the time. Check that with a
    # deliberately biased draw of the stock's top, and with Sattolo's shuffle (the
    # classic off-by-one of Fisher-Yates: no card ever stays where it was).
    biased = np.full(h, 1.0)
    biased[h // 2] = 1.3
    fake = np.random.default_rng(3).choice(h, size=draws, p=biased / biased.sum())
    assert _p_value(np.bincount(fake, minlength=h).astype(float), draws, 1) < 1e-4
    sattolo = np.zeros(h)
    order = np.random.default_rng(4)
    for _ in range(4000):
        cards = np.arange(h)
        for k in range(h - 1, 0, -1):
            j = order.integers(0, k)  # should be integers(0, k + 1)
            cards[k], cards[j] = cards[j], cards[k]
        sattolo[cards[stock_n - 1]] += 1
    assert _p_value(sattolo, 4000, 1) < 1e-4


@pytest.mark.parametrize(("rules", "players", "policies", "keywords"), CASES, ids=CASE_IDS)
def test_a_world_plays_on_legally(rules, players, policies, keywords):
    for k, position in enumerate(_positions(rules, players, policies, keywords, cuts=4)):
        seat = _searchers(position)[k % 2]
        world = engine.sample_world(position, rules, seed=k, seat=seat)
        # as a search plays on: fresh streams, seeded by the searcher
        fresh = dataclasses.replace(world, streams=None)
        for policy, start in (("max-shed", world), ("best", world), ("max-shed", fresh)):
            record = engine.play_on(start, rules, policy, seed=k)
            shed = range(players) if policy == "max-shed" else ()
            check_round(record, rules, players, max_shed_seats=shed, start=start)


def test_sample_world_refuses_bad_arguments_and_keeps_missing_streams():
    rules = Rules.preset("standard")
    position = engine.position_at(rules, 5, 3, PILE_HEAVY, turn=4, alive=[1, 1, 0, 1, 1])
    with pytest.raises(ValueError, match="seat"):
        engine.sample_world(position, rules, seed=0, seat=2)
    with pytest.raises(ValueError, match="seat"):
        engine.sample_world(position, rules, seed=0, seat=5)
    with pytest.raises(ValueError, match="seed"):
        engine.sample_world(position, rules, seed=-1)
    with pytest.raises(ValueError, match="position"):
        engine.sample_world(dataclasses.replace(position, stock=position.stock[1:]), rules, seed=0)
    blind = dataclasses.replace(position, streams=None)
    world = engine.sample_world(blind, rules, seed=1)
    assert world.streams is None
    assert engine.sample_world(blind, rules, seed=1).same_as(world)


def test_a_bias_deals_opponents_lower_cards_the_longer_they_played():
    """With ``bias`` the opponents' unknown cards are lower than at random, more so later."""
    rules, position = _uniform_position()

    def mean_hidden(pos, bias, n=3000):
        total = cards = 0
        for k in range(n):
            w = engine.sample_world(pos, rules, seed=k, bias=bias)
            for o in (1, 2):
                hidden = w.hands[o][~w.taken[o]]
                total += VALUE[hidden].sum()
                cards += len(hidden)
        return total / cards

    pool_mean = mean_hidden(position, 0.0)
    late = mean_hidden(position, 0.5)
    early = mean_hidden(dataclasses.replace(position, turn=1), 0.5)
    # 3000 worlds x 7 cards: the standard error of each mean is under 0.05 points
    assert late < early - 0.3 and early < pool_mean - 0.1
    assert abs(mean_hidden(dataclasses.replace(position, turn=1), 0.0) - pool_mean) < 0.2


def _turns_of_a_long_round(rules, players, policies, seed):
    """Every position of one seeded round, turn by turn, and the round's record."""
    record = engine.play_round(rules, players, seed, policies)
    positions = [engine.position_at(rules, players, seed, policies, turn=t)
                 for t in range(record.turns)]  # fmt: skip
    return positions, record


def test_a_position_remembers_the_rebuilt_stock_and_where_each_seat_drew():
    """``rebuilt`` is the dead cards and pile at the reshuffle; ``pile_draws`` each latest draw."""
    rules, players = Rules.preset("nordic"), 8  # one deck at eight seats: the stock runs out often
    positions, record = _turns_of_a_long_round(rules, players, "best", 3)
    assert record.reshuffles >= 2
    latest = {}
    rebuilt_seen = 0
    for before, after, step in zip(positions, positions[1:], record.steps, strict=False):
        assert step.action == "turn"
        latest[step.seat] = step.source == "pile"
        expected = [latest.get(s, False) for s in range(players)]
        assert after.pile_draws.tolist() == expected
        if step.reshuffled:  # rebuilt from what lay under the discard just laid
            assert sorted(after.rebuilt.tolist()) == sorted([*before.dead, *before.pile])
            rebuilt_seen += 1
        elif after.reshuffles:
            assert np.array_equal(after.rebuilt, before.rebuilt)
        else:
            assert len(after.rebuilt) == 0
    assert rebuilt_seen == record.reshuffles


def _unknown_outside(position, rebuilt):
    """The opponents' unknown cards (to the seat to act) that are not in ``rebuilt``."""
    out = Counter()
    for o, (hand, took) in enumerate(zip(position.hands, position.taken, strict=True)):
        if o != position.seat:
            out.update(c for c in hand[~took].tolist() if c not in rebuilt)
    return out


def test_a_world_that_recalls_keeps_unseen_cards_in_hands():
    """With ``recall``, every hidden card not in the rebuilt stock is dealt to an opponent."""
    rules, players = Rules.preset("nordic"), 8
    positions, _ = _turns_of_a_long_round(rules, players, "best", 3)
    checked = 0
    for position in positions[::3]:
        if not position.reshuffles:
            continue
        rebuilt = set(position.rebuilt.tolist())
        must = _unknown_outside(position, rebuilt)
        for seed in range(5):
            w = engine.sample_world(position, rules, seed=seed, bias=0.2, recall=True)
            assert set(w.stock.tolist()) <= rebuilt
            assert _unknown_outside(w, rebuilt) == must
            assert w.rebuilt.tolist() == position.rebuilt.tolist()
            checked += 1
        # without recall the memory is not kept, and hidden cards may go to the stock
        plain = engine.sample_world(position, rules, seed=0)
        assert len(plain.rebuilt) == 0
    assert checked >= 20


def test_a_position_refuses_a_rebuilt_stock_that_does_not_hold_its_stock():
    rules = Rules.preset("nordic")
    positions, _ = _turns_of_a_long_round(rules, 8, "best", 3)
    position = next(p for p in positions if p.reshuffles and len(p.stock) > 1)
    short = dataclasses.replace(
        position, rebuilt=position.rebuilt[~np.isin(position.rebuilt, position.stock[:1])]
    )
    with pytest.raises(ValueError, match="rebuilt"):
        engine.play_on(short, rules, record=False)
    with pytest.raises(ValueError, match="pile_draws"):
        engine.play_on(dataclasses.replace(position, pile_draws=[True]), rules, record=False)
    engine.play_on(position, rules, record=False)
