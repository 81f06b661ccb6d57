"""Speed of the search policy: rounds per second with one searching seat, on one thread.

Run: ``python bench/bench_search.py [--players 4] [--rounds 400] [--rules standard]``

Plays seeded rounds with seat 0 searching and the other seats at the base
policy, for a call-only search, full ones and the default search, and
prints rounds per second (after a warm-up that compiles the kernels) and
the time per turn of the searching seat (one search decision a turn: the
call when it is legal, the discard and the draw).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from yaniv_sim import Rules, engine

CASES = {
    "call-only, 32 worlds, base best": "search:worlds=32,decide=0,base=best",
    "call and discard, 32 worlds, base best": "search:worlds=32,decide=1,base=best",
    "full, 32 worlds, base best": "search:worlds=32,base=best",
    "full, 32 worlds, base max-shed": "search:worlds=32,base=max-shed",
    "the default (full, 64 worlds, base best)": "search:worlds=64,base=best",
}


def rate(
    rules: Rules, players: int, spec: str, base: str, rounds: int
) -> tuple[float, float, float]:
    """Rounds per second, turns per round and seconds per turn of seat 0, seat 0 searching."""
    policies = [spec] + [base] * (players - 1)
    engine.play_rounds(rules, players, 0, 2, policies)  # compile
    start = time.perf_counter()
    batch = engine.play_rounds(rules, players, 1, rounds, policies)
    seconds = time.perf_counter() - start
    # seat 0 plays turns t = (players - starter) % players, that + players, ... of each round
    own = batch["turns"] - (players - batch["starter"]) % players
    own_turns = int(np.maximum(0, (own + players - 1) // players).sum())
    return rounds / seconds, float(batch["turns"].mean()), seconds / max(own_turns, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    for name, spec in CASES.items():
        if args.only and not any(o in name for o in args.only):
            continue
        base = spec.rsplit("base=", 1)[1]
        per_second, turns, per_turn = rate(rules, args.players, spec, base, args.rounds)
        print(f"{name}: {per_second:,.1f} rounds/s ({turns:.1f} turns per round), "
              f"{1000 * per_turn:.2f} ms per turn of the searching seat, "
              f"{args.players} players, {args.rules}, seat 0 searching")  # fmt: skip


if __name__ == "__main__":
    main()
