"""How well the search's worlds price the Assaf risk of a call: worlds against real hands.

At every position of seeded rounds where the seat to act may call (its hand
worth no more than the threshold), this counts whether some opponent in the
game holds a hand worth no more than the seat's (an Assaf, ties against the
caller) in the real round, and in ``--worlds`` worlds that the seat cannot
tell from it (``engine.sample_world``), dealt three ways: with the search's
``bias``, uniformly (bias 0), and with ``bias`` and ``recall`` (the seat
remembers every card shown: after a reshuffle the cards it never saw are
all in the opponents' hands, and each opponent's newest card is a stock
draw). It prints the shares of positions and each way's share less the real
one, with 95% intervals clustered by round (positions of one round are not
independent).

A share of worlds above the real share means the worlds see more Assaf
danger than there is, so a search with them calls too rarely.

Run: ``python bench/world_calibration.py --rules nordic --players 8 [--policy best]
[--rounds 600] [--worlds 16] [--bias 0.2] [--seed 77]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from yaniv_sim import Rules, engine
from yaniv_sim.stats import clustered_interval, clustered_means


def assafed(position, seat: int) -> bool:
    """Whether an opponent still in holds a hand worth no more than ``seat``'s."""
    own = engine.hand_value(position.hands[seat])
    return any(
        engine.hand_value(hand) <= own
        for s, hand in enumerate(position.hands)
        if s != seat and position.alive[s]
    )


def callable_positions(rules: Rules, players: int, policy: str, seed: int, rounds: int):
    """Every position of ``rounds`` seeded rounds at which the seat to act may call."""
    for r in range(rounds):
        turn = 0
        while True:
            try:
                position = engine.position_at(rules, players, seed, policy, turn=turn, game=r)
            except ValueError:  # the round was over
                break
            if engine.hand_value(position.hands[position.seat]) <= rules.threshold:
                yield r, position
            turn += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="nordic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="best")
    parser.add_argument("--rounds", type=int, default=600)
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--bias", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    start = time.perf_counter()
    rows = []
    for r, position in callable_positions(rules, args.players, args.policy, args.seed, args.rounds):
        seat = position.seat
        shares = {}
        ways = (("worlds", args.bias, False), ("uniform", 0.0, False), ("recall", args.bias, True))
        for name, bias, recall in ways:
            hits = 0
            for w in range(args.worlds):
                key = ((args.seed * 100_000 + r) * 10_000 + position.turn) * 10_000 + w
                world = engine.sample_world(position, rules, seed=key, bias=bias, recall=recall)
                hits += assafed(world, seat)
            shares[name] = hits / args.worlds
        rows.append(dict(round=r, real=float(assafed(position, seat)), **shares))
    frame = pd.DataFrame(rows)
    print(
        f"{args.rules}, {args.players} players, {args.policy} self-play: {len(frame):,} positions "
        f"where a call was allowed, in {frame['round'].nunique():,} of {args.rounds:,} rounds "
        f"(seed {args.seed}); {args.worlds} worlds each, bias {args.bias}; "
        f"{time.perf_counter() - start:.0f} s"
    )
    print("share of positions where an opponent holds no more than the seat (95%, by round):")
    columns = ["real", "worlds", "uniform", "recall"]
    for way in columns[1:]:
        frame[f"{way}_less_real"] = frame[way] - frame["real"]
    for column in columns + [f"{c}_less_real" for c in columns[1:]]:
        means = clustered_means(frame[column], np.zeros(len(frame), np.int64), frame["round"])
        low, high = clustered_interval(means)
        m = means["mean"].iloc[0]
        print(f"  {column:<18} {m:+7.1%} ({low[0]:+.1%} to {high[0]:+.1%})")


if __name__ == "__main__":
    main()
