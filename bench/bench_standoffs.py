"""Stand-offs: how often self-play of each preset runs into the turn cap (a void round).

Run: ``python bench/bench_standoffs.py [--rounds 100000] [--players 2..8] [--rules standard,nordic]
[--policy best,...]``. Prints one line per cell: void rounds of ``--rounds``, and the
mean turns per round. The aim (issue 12) is at most one void round in 100,000.
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
    OUTCOME_NAMES,
    S_OUTCOME,
    S_TURNS,
    RoundOut,
    new_table,
    play_rounds,
    policy_records,
    rule_record,
)
from yaniv_sim.engine.specs import policy_matrix
from yaniv_sim.policies import PRESETS


def void_rounds(
    rules: Rules, players: int, policy: str, rounds: int, seed: int
) -> tuple[int, float]:
    """Void rounds among ``rounds`` seeded self-play rounds, and the mean turns per round."""
    rp = rule_record(rules, players)
    pol = policy_records(policy_matrix(policy, players))
    t = new_table(players)
    out = RoundOut(np.zeros((rounds, N_SUMMARY), np.int64), np.zeros((rounds, players), np.int64),
                   np.zeros((rounds, players), np.int64), np.zeros((0, LOG_WIDTH), np.int16),
                   np.zeros((0, DECISION_WIDTH), np.int16), np.zeros(1, np.int64))  # fmt: skip
    play_rounds(rp, pol, None, seed, 0, rounds, t, out)
    void = int((out.summary[:, S_OUTCOME] == OUTCOME_NAMES.index("void")).sum())
    return void, float(out.summary[:, S_TURNS].mean())


def _span(text: str) -> list[int]:
    if ".." in text:
        low, high = text.split("..")
        return list(range(int(low), int(high) + 1))
    return [int(x) for x in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--players", default="2..8")
    parser.add_argument("--rules", default="standard,nordic")
    parser.add_argument("--policy", default=",".join(["max-shed", "heuristic", *PRESETS]))
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    worst = 0
    for rules_name in args.rules.split(","):
        rules = Rules.preset(rules_name)
        for policy in args.policy.split(","):
            for players in _span(args.players):
                start = time.perf_counter()
                void, turns = void_rounds(rules, players, policy, args.rounds, args.seed)
                worst = max(worst, void)
                print(
                    f"{rules_name:8} {policy:16} {players}p: {void:5d} void of {args.rounds:,}"
                    f" ({turns:.1f} turns/round, {time.perf_counter() - start:.1f} s)",
                    flush=True,
                )
    print(f"most void rounds in one cell: {worst}")


if __name__ == "__main__":
    main()
