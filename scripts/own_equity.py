"""Is a shipped solution still a fixed point when its own games price the outcomes?

Run: ``python scripts/own_equity.py --rules standard --players 2 --out DIR
[--games 20000] [--compare-games 5000] [--check-games N] [--ship]``

The shipped solutions value every call by the game-win chance after the
round, read from the shipped equity tables, and those are for `best`
self-play. A fixed point for its own table should price a round by how
*it* goes on to play. This script:

1. builds the equity table of the solution's own self-play
   (:func:`yaniv_sim.equity.build` with the solution's policy file);
2. on fresh games of the solution (seed 1), compares the two tables'
   predictions at every round start and seat still in: how far apart they
   are, and which predicts who wins better (the Brier score of each, and
   their paired difference with a 95% interval clustered by game);
3. replays the fresh-seed check of the shipped solution (the same seed and
   number of games as its trace records) and values every decision point
   with each table: the clearly profitable deviations under each.

Writes ``DIR/own-equity.json`` and the table ``DIR/<rules>-<players>p-own.npz``;
with ``--ship`` also ``yaniv_sim/data/solved/<rules>-<players>p-own-equity.json``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from yaniv_sim import equity
from yaniv_sim import solve as solver
from yaniv_sim.rules import Rules


def predictions(tables: dict, rules: Rules, players: int, policy: str, games: int, workers: int):
    """Each table's win chance for every (round start, seat still in) of fresh games."""
    rounds, games_df = equity.simulate_games(rules, players, policy, games, 1, workers)
    states = equity.round_states(rounds, games_df, rules, players)
    rows = []
    for st in states.itertuples(index=False):
        totals = np.array([getattr(st, f"total_{s}") for s in range(players)])
        alive = np.array([getattr(st, f"in_{s}") for s in range(players)])
        try:
            chances = {name: t.win_chances(totals, alive, int(st.starter))
                       for name, t in tables.items()}  # fmt: skip
        except equity.EquityError:
            continue  # a state outside the tables (two above the limit, untied)
        for s in np.flatnonzero(alive):
            rows.append((st.game, int(st.alive), float(st.winner == s),
                         *(chances[name][s] for name in tables)))  # fmt: skip
    return pd.DataFrame(rows, columns=["game", "alive", "won", *tables])


def compare_tables(data: pd.DataFrame) -> dict:
    """How far apart the two tables are, and which predicts the winners better."""
    gap = (data["own"] - data["best"]).abs()
    loss = (data["best"] - data["won"]) ** 2 - (data["own"] - data["won"]) ** 2
    n = len(data)
    mean = float(loss.mean())
    resid = (loss - mean).groupby(data["game"]).sum()  # clustered by game
    se = float(np.sqrt((resid**2).sum()) / n)
    return {
        "pairs": n,
        "games": int(data["game"].nunique()),
        "mean_abs_difference": float(gap.mean()),
        "max_abs_difference": float(gap.max()),
        "brier_best_table": float(((data["best"] - data["won"]) ** 2).mean()),
        "brier_own_table": float(((data["own"] - data["won"]) ** 2).mean()),
        "brier_gain_of_own": [mean, mean - 1.96 * se, mean + 1.96 * se],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", choices=["standard", "nordic"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20_000, help="games the table is built from")
    parser.add_argument("--compare-games", type=int, default=5_000)
    parser.add_argument(
        "--check-games",
        type=int,
        default=None,
        help="games of the check (default: as many as the shipped check)",
    )
    parser.add_argument("--seed", type=int, default=2026, help="the build's seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ship", action="store_true")
    args = parser.parse_args(argv)
    start = time.time()
    rules = Rules.preset(args.rules)
    policy = solver.shipped(args.rules, args.players)
    args.out.mkdir(parents=True, exist_ok=True)
    own_path = args.out / f"{args.rules}-{args.players}p-own.npz"
    command = shlex.join(["python", "scripts/own_equity.py", *sys.argv[1:]])
    if own_path.exists():
        own = equity.load(own_path)
    else:
        own = equity.build(rules, args.players, str(policy), games=args.games, seed=args.seed,
                           workers=args.workers, command=command)  # fmt: skip
        own.save(own_path)
    best = equity.shipped(args.rules, args.players)
    tables = {"best": best, "own": own}
    data = predictions(tables, rules, args.players, str(policy), args.compare_games,
                       args.workers)  # fmt: skip
    compared = {"games": args.compare_games, "seed": 1, **compare_tables(data)}
    result = {"command": command, "rules": args.rules, "players": args.players,
              "solved": policy.name, "build": {"games": args.games, "seed": args.seed},
              "compare": compared}  # fmt: skip
    by_k = {}
    for k, part in data.groupby("alive"):
        by_k[str(k)] = {
            "pairs": len(part),
            "mean_abs_difference": float((part["own"] - part["best"]).abs().mean()),
        }
    result["compare"]["by_players_in"] = by_k
    # the fresh-seed check of the shipped solution, its games valued by each table
    trace = json.loads(policy.with_name(f"{args.rules}-{args.players}p-trace.json").read_text())
    asked = trace["request"]
    request = solver.SolveRequest(rules, args.rules, args.players, games=asked["games"],
                                  seed=asked["seed"], fdr=asked["fdr"],
                                  branch_games=asked["branch_games"])  # fmt: skip
    solution = solver.Solution(request, solver.read_table(policy), [], True, policy)
    check_games = args.check_games or asked["games"]
    checks = {}
    for name, table in tables.items():
        tests = solver.check(solution, args.out, games=check_games, equity=table,
                             workers=args.workers)  # fmt: skip
        bad = solver.profitable_deviations(tests)
        checks[name] = {"cells_tested": len(tests), "profitable_deviations": len(bad),
                        "cells": [",".join(str(int(v)) for v in r)
                                  for r in bad[list(solver.CELL)].to_numpy()]}  # fmt: skip
    result["check"] = {"seed": asked["seed"] + 999_999, "games": check_games, **checks}
    result["seconds"] = round(time.time() - start)
    text = json.dumps(result, indent=1) + "\n"
    (args.out / "own-equity.json").write_text(text)
    print(text)
    if args.ship:
        path = solver.DATA / f"{args.rules}-{args.players}p-own-equity.json"
        path.write_text(text)
        print("shipped", path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
