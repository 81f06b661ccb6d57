"""Rounds per second of max-shed self-play on one thread (kernel only).

Run: ``python bench/bench_rounds.py [--players 4] [--rounds 200000] [--rules standard]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from yaniv_sim import Rules
from yaniv_sim.engine.kernel import (
    DECISION_WIDTH,
    LOG_WIDTH,
    N_SUMMARY,
    RoundOut,
    new_table,
    play_rounds,
    policy_records,
    rule_record,
)
from yaniv_sim.engine.specs import policy_matrix


def rounds_per_second(
    rules: Rules, players: int, rounds: int, policy: str = "max-shed", repeats: int = 5
) -> tuple[float, float]:
    """Best-of-``repeats`` rounds per second and mean turns per round."""
    rp = rule_record(rules, players)
    pol = policy_records(policy_matrix(policy, players))
    t = new_table(players)
    out = RoundOut(np.zeros((rounds, N_SUMMARY), np.int64), np.zeros((rounds, players), np.int64),
                   np.zeros((rounds, players), np.int64), np.zeros((0, LOG_WIDTH), np.int16),
                   np.zeros((0, DECISION_WIDTH), np.int16), np.zeros(1, np.int64))  # fmt: skip
    kernel = play_rounds
    kernel(rp, pol, None, 0, 0, 100, t, out)  # compile
    best = float("inf")
    for repeat in range(repeats):
        start = time.perf_counter()
        kernel(rp, pol, None, repeat, 0, rounds, t, out)
        best = min(best, time.perf_counter() - start)
    return rounds / best, float(out.summary[:, 3].mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=300_000)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--policy", default="max-shed")
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    rate, turns = rounds_per_second(rules, args.players, args.rounds, args.policy)
    print(
        f"{args.policy} self-play, {args.players} players, {args.rules} rules, one thread: "
        f"{rate:,.0f} rounds/s ({turns:.1f} turns per round, "
        f"{1e9 / (rate * (turns + 1)):.0f} ns per turn)"
    )


if __name__ == "__main__":
    main()
