"""World samples per second: the kernel alone (a numba loop) and the public wrapper.

The position is cut from a seeded round at mid-round; the searching seat is
the seat to act.

Run: ``python bench/bench_worlds.py [--players 4] [--samples 1000000] [--rules standard]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from yaniv_sim import Rules, engine
from yaniv_sim._numba import njit
from yaniv_sim.engine.kernel import new_table
from yaniv_sim.engine.kernel import sample_world as _sample_world
from yaniv_sim.engine.kernel import seed_sampler as _seed_sampler
from yaniv_sim.engine.kernel import table_of as _to_table


@njit
def _sample_many(t, seat, world, rng, count):
    for _ in range(count):
        _sample_world(t, seat, world, rng, 0.0)
    return world.hand_val[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--turn", type=int, default=8)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    position = engine.position_at(rules, args.players, 1, "random:call=0.05,pile=0.6",
                                  turn=args.turn)  # fmt: skip
    t = _to_table(position, rules, 0)
    world = new_table(args.players)
    rng = np.zeros(1, np.uint64)
    _seed_sampler(rng, 0)
    seat = np.int64(position.seat)
    _sample_many(t, seat, world, rng, np.int64(10))  # compile
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        _sample_many(t, seat, world, rng, np.int64(args.samples))
        best = min(best, time.perf_counter() - start)
    kernel_rate = args.samples / best
    calls = 2000
    engine.sample_world(position, rules, seed=0)
    start = time.perf_counter()
    for k in range(calls):
        engine.sample_world(position, rules, seed=k)
    wrapper_rate = calls / (time.perf_counter() - start)
    hidden = int(sum((~position.taken[o]).sum() for o in range(args.players) if o != seat))
    print(
        f"{args.players} players, {args.rules} rules, turn {args.turn} ({hidden} hidden opponent "
        f"cards, {len(position.stock)} in the stock), one thread: kernel {kernel_rate:,.0f} "
        f"worlds/s ({1e9 / kernel_rate:.0f} ns each); engine.sample_world {wrapper_rate:,.0f}/s"
    )


if __name__ == "__main__":
    main()
