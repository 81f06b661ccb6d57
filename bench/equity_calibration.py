"""Calibration of a shipped equity table on fresh self-play games.

Run: ``python bench/equity_calibration.py --rules standard --players 4 [--games 3000] [--seed 7]``

Prints, per number of players still in and per tenth of the predicted win
chance, the mean prediction against the observed share of wins with a 95%
interval clustered by game (see ``yaniv_sim.equity.calibration``), and how
many predictions fall outside their interval.
"""

from __future__ import annotations

import argparse
import os
import time

from yaniv_sim import equity


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    table = equity.shipped(args.rules, args.players)
    start = time.perf_counter()
    cal = equity.calibration(table, games=args.games, seed=args.seed, workers=os.cpu_count() or 1)
    outside = ((cal["predicted"] < cal["low"]) | (cal["predicted"] > cal["high"])).sum()
    print(f"{args.rules}, {args.players} seats, {args.games} fresh games (seed {args.seed}), "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    print(cal.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"{outside} of {len(cal)} bins with the prediction outside the observed 95% interval")


if __name__ == "__main__":
    main()
