"""Calling rules a player can remember, fitted to the shipped solved strategies, with their cost.

Run: ``python scripts/tiers.py --rules standard --players 2,3,4,5 --out DIR
[--games 4000] [--deals 6000] [--seed 2026] [--workers 2] [--ship]``

For each table size (see ``yaniv_sim/tiers.py`` for the tiers):

1. the shipped solved strategy plays ``--games`` games against itself (seed
   ``--seed``) with call-or-wait branches; its decision points, each with the
   game-win chance gained by calling there, are the data the tiers are
   fitted to;
2. the one-line rule and the small table are fitted to those points, then
   refitted where they are played: one seat plays the tier against the full
   strategy (same seed, with branches) and the tier is fitted again to that
   seat's decision points, until it stops changing (at most
   ``--iterations`` times); each is written as a policy file (``best`` with
   every reachable call-table cell set);
3. each tier, and plain ``best``, plays ``--deals`` duplicate deals against the
   full strategy (seed ``--seed + 1``, so the fit and the cost share no cards):
   its win share and points per round less the full strategy's, with the
   paired 95% intervals over deals.

Writes ``DIR/<rules>-<players>p-tiers.json`` and the tiers' policy files; with
``--ship`` copies them to ``yaniv_sim/data/solved/``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import time
from pathlib import Path

from yaniv_sim import equity, solve, tiers
from yaniv_sim.compare import compare
from yaniv_sim.engine.specs import canonical_spec
from yaniv_sim.rules import Rules
from yaniv_sim.runs import simulate
from yaniv_sim.storage import open_dataset


def _write_tier(path: Path, rule, name: str, threshold: int, what: str, command: str) -> Path:
    words = rule.words() if name == "one line" else "small table " + json.dumps(
        rule.to_dict()["cuts"])  # fmt: skip
    header = [f"made by {command}", f"{what}: {words}"]
    path.write_text(solve.policy_text("best", tiers.table_of(rule, threshold), header),
                    encoding="utf-8")  # fmt: skip
    return path


def measure(rules_name: str, players: int, args, command: str) -> dict:
    rules = Rules.preset(rules_name)
    solved = solve.shipped(rules_name, players)
    stem = f"{rules_name}-{players}p"
    start = time.time()
    table = equity.shipped(rules_name, players)
    fits = {"one line": tiers.fit_one_line, "small table": tiers.fit_small_table}

    def points_of(specs: list[str], name: str, policy_spec: str | None):
        folder = args.out / f"fit-{stem}-{name}"
        simulate(rules, players, specs, games=args.games, seed=args.seed, workers=args.workers,
                 out=folder, resume=True, quiet=True, branches=True, branch_games=8)  # fmt: skip
        data = open_dataset(folder)
        if policy_spec is None:
            return solve.decision_gains(data, rules, "best", table)
        # the manifest names each policy by its canonical spec, not by its file
        wanted = canonical_spec(policy_spec)
        ids = [i for i, spec in data.policy_names().items() if spec == wanted]
        if len(ids) != 1:
            raise SystemExit(f"{folder}: the tier {policy_spec} is not one of its policies")
        return solve.decision_gains(data, rules, "best", table, policy=ids[0])

    full_points = points_of([str(solved)] * players, "full", None)
    rules_fitted, history, refits = {}, {}, {}
    for name, fit in fits.items():
        rule = fit(full_points, rules.threshold)
        history[name] = [rule.to_dict()]
        refits[name] = []
        for k in range(1, args.iterations + 1):
            path = _write_tier(args.out / f"{stem}-{name.replace(' ', '-')}-{k}.toml", rule,
                               name, rules.threshold, f"fit iteration {k}", command)  # fmt: skip
            spec = str(path)
            points = points_of([spec] + [str(solved)] * (players - 1), f"{name}-{k}", spec)
            again = fit(points, rules.threshold)
            refits[name].append({"iteration": k, "points": len(points), **again.to_dict()})
            if again == rule:
                break
            rule = again
            history[name].append(rule.to_dict())
        rules_fitted[name] = rule
    points = full_points
    result = {"command": command, "rules": rules_name, "players": players, "seed": args.seed,
              "games": args.games, "deals": args.deals, "decision_points": len(points),
              "solved": solved.name, "tiers": {}}  # fmt: skip
    full_calls = float(points["called"].mean())
    for name, rule in rules_fitted.items():
        what = f"the {name} tier of {solved.name}"
        path = _write_tier(args.out / f"{stem}-{name.replace(' ', '-')}.toml", rule, name,
                           rules.threshold, what, command)  # fmt: skip
        result["tiers"][name] = {"file": path.name, **rule.to_dict(),
                                 "agreement": tiers.agreement(rule, points),
                                 "fits": history[name], "refits": refits[name]}  # fmt: skip
    result["full_call_share"] = full_calls
    specs = {name: str(args.out / entry["file"]) for name, entry in result["tiers"].items()}
    specs["best"] = "best"
    for name, spec in specs.items():
        c = compare([spec, str(solved)], rules, players, args.deals, seed=args.seed + 1,
                    workers=args.workers)  # fmt: skip
        row = c.pairs.iloc[0]
        win = [-row.difference, -row.high, -row.low]  # full less tier
        points_more = list(c.points_difference(0, 1))  # tier less full
        entry = result["tiers"].setdefault(name, {})
        entry.update({"win_cost": win, "points_cost": points_more,
                      "win_share": float(c.table.win_rate[0]),
                      "assaf_per_call": float(c.table.assaf_per_call[0]),
                      "full_assaf_per_call": float(c.table.assaf_per_call[1])})  # fmt: skip
        print(stem, name, entry, flush=True)
    result["seconds"] = round(time.time() - start)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", choices=["standard", "nordic"])
    parser.add_argument("--players", default="2,3,4,5")
    parser.add_argument("--games", type=int, default=4_000)
    parser.add_argument("--deals", type=int, default=6_000)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ship", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    command = shlex.join(["python", "scripts/tiers.py", *(sys.argv[1:] if argv is None else argv)])
    for players in [int(p) for p in args.players.split(",")]:
        result = measure(args.rules, players, args, command)
        stem = f"{args.rules}-{players}p"
        out = args.out / f"{stem}-tiers.json"
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        if args.ship:
            for name in [out.name] + [e["file"] for e in result["tiers"].values() if "file" in e]:
                shutil.copy(args.out / name, tiers.DATA / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
