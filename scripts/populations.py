"""When to call against different tables: best responses, exploitability, robust verdicts.

Run: ``python scripts/populations.py --rules standard --players 4 --out DIR
[--games 20000] [--deals 3000] [--against SPEC,SPEC,...]``

For each opponent population ``X`` (every other seat plays ``X``; by
default ``max-shed`` and every preset, :data:`POPULATIONS`):

1. ``yaniv-sim solve --against X``: one seat plays ``best`` with a call table,
   improved until no cell changes against that table (a best response in
   the call table);
2. a duplicate match of that seat against three (or ``players - 1``) ``X``:
   its win share less the fair share, with the paired 95% interval; and the
   same for plain ``best`` and for the self-play solution (``--solved``,
   default the shipped one), so the gain of the calling alone is visible;
3. every cell's verdict against each population, and whether it holds
   against all of them.

Writes ``DIR/populations.json`` (and each solve's folder under ``DIR``); with
``--ship`` also ``yaniv_sim/data/solved/<rules>-<players>p-populations.json``.
``--add FILE`` extends a populations file made the same way (same rules,
table size, games, deals, seed and solution) with more populations: those
it already holds are not run again, and the result is what one run over
all of them would have written (the populations are solved and matched
independently), with both commands recorded.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from yaniv_sim import solve as solver
from yaniv_sim.compare import compare
from yaniv_sim.policies import PRESETS
from yaniv_sim.rules import Rules

# max-shed and every preset, the four of the first shipped files first
_FIRST = ("max-shed", "cautious", "pile-picker", "best")
POPULATIONS = (*_FIRST, *(name for name in PRESETS if name not in _FIRST))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", choices=["standard", "nordic"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("--deals", type=int, default=3_000)
    parser.add_argument("--against", default=",".join(POPULATIONS))
    parser.add_argument("--solved", default=None, help="the self-play solution's policy file")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ship", action="store_true")
    parser.add_argument("--add", type=Path, default=None, help="a populations file to extend")
    args = parser.parse_args(argv)
    rules = Rules.preset(args.rules)
    solved = args.solved or str(solver.shipped(args.rules, args.players))
    fixed = solver.read_table(solved)
    others = args.players - 1
    result = {"command": shlex.join(["python", "scripts/populations.py", *sys.argv[1:]]),
              "rules": args.rules, "players": args.players, "seed": args.seed,
              "games": args.games, "deals": args.deals, "solved": Path(solved).name,
              "populations": {}}  # fmt: skip
    tables = {"fixed point": fixed}
    if args.add is not None:
        saved = json.loads(args.add.read_text(encoding="utf-8"))
        for key in ("rules", "players", "seed", "games", "deals"):
            if saved[key] != result[key]:
                parser.error(f"--add: {args.add} has {key} {saved[key]}, not {result[key]}")
        tables = tables_of(saved)
        if tables["fixed point"] != fixed:
            parser.error(f"--add: {args.add} was made with another solution than {solved}")
        result["command"] = f"{saved['command']}; {result['command']}"
        result["solved"] = saved["solved"]
        result["populations"] = dict(saved["populations"])
    for against in [a.strip() for a in args.against.split(",") if a.strip()]:
        if against in result["populations"]:
            continue
        start = time.time()
        request = solver.SolveRequest(rules, args.rules, args.players, games=args.games,
                                      seed=args.seed, iterations=args.iterations,
                                      against=against)  # fmt: skip
        folder = args.out / f"against-{against}"
        solution = solver.solve(request, folder, workers=args.workers, say=print)
        tables[against] = solution.table
        row = {"converged": solution.converged, "iterations": len(solution.trace),
               "call_cells": sum(v == 1 for v in solution.table.values()),
               "wait_cells": sum(v == 0 for v in solution.table.values())}  # fmt: skip
        for name, spec in (("best response", str(solution.policy_file)), ("best", "best"),
                           ("fixed point", solved)):  # fmt: skip
            if spec == against:
                row[name] = [0.0, 0.0, 0.0]  # against itself: the fair share by symmetry
                continue
            c = compare([spec] + [against] * others, rules, args.players, args.deals,
                        seed=args.seed, workers=args.workers)  # fmt: skip
            row[name] = list(c.gain_over_fair(0))
        row["seconds"] = round(time.time() - start)
        result["populations"][against] = row
        print(against, row, flush=True)
    result["cells"], result["holds"] = verdicts(tables)
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(result, indent=1) + "\n"
    (args.out / "populations.json").write_text(text)
    if args.ship:
        (solver.DATA / f"{args.rules}-{args.players}p-populations.json").write_text(text)
    return 0


def verdicts(tables: dict[str, dict]) -> tuple[dict, dict]:
    """Every cell's verdict by table (``None``: left to ``best``), and the cells all agree on."""
    cells = sorted(set().union(*[t.keys() for t in tables.values()]))
    said = {",".join(map(str, cell)): {name: t.get(cell) for name, t in tables.items()}
            for cell in cells}  # fmt: skip
    holds = {key: v for key, v in said.items() if len(set(v.values())) == 1}
    return said, holds


def tables_of(saved: dict) -> dict[str, dict]:
    """The call tables a populations file records, by name, the self-play solution first."""
    names = ["fixed point", *saved["populations"]]
    tables = {name: {} for name in names}
    for key, say in saved["cells"].items():
        cell = tuple(int(part) for part in key.split(","))
        for name in names:
            if say.get(name) is not None:
                tables[name][cell] = say[name]
    return tables


if __name__ == "__main__":
    sys.exit(main())
