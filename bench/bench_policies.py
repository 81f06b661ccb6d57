"""Rounds per second of every policy preset in self-play, next to max-shed.

Run: ``python bench/bench_policies.py [--players 4] [--rounds 100000]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_rounds import rounds_per_second

from yaniv_sim import Rules
from yaniv_sim.engine.specs import FAMILIES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--rules", default="standard")
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    names = [n for n in FAMILIES if n != "random"]
    base_ns = None
    print(f"{'policy':<18} {'rounds/s':>10} {'turns/round':>12} {'ns/turn':>8} {'x max-shed':>10}")
    for name in names:
        rate, turns = rounds_per_second(rules, args.players, args.rounds, name, repeats=3)
        ns = 1e9 / (rate * (turns + 1))
        base_ns = base_ns or ns
        print(f"{name:<18} {rate:>10,.0f} {turns:>12.1f} {ns:>8.0f} {ns / base_ns:>10.2f}")


if __name__ == "__main__":
    main()
