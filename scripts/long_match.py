"""A long duplicate match of two policies, saved chunk by chunk so that it can be resumed.

Run: ``python scripts/long_match.py FIRST SECOND --rules R --players P --deals N
--out DIR [--chunk 250] [--seed 2026] [--workers 2] [--width W]``

Plays the deals of ``compare([FIRST, SECOND], Rules.preset(R), P, N, seed)``
in chunks of ``--chunk`` deals, each chunk written to ``DIR/chunk-NNN.npz``
as soon as it is played; a second run with the same arguments plays only
the chunks not yet on disk. Deals are seeded one by one, so the first K
chunks are exactly the first ``K * chunk`` deals of ``compare``, and a
stopped run is a complete, shorter match; a later run with a larger
``--deals`` (same match otherwise) makes it longer. ``DIR/match.json`` holds what the
chunks on disk add up to: deals, the win-share difference FIRST less
SECOND with its paired 95% interval over deals (``compare.deal_interval``),
each side's win share, points per round, calls and Assaf share of calls,
and the seconds spent. With ``--width W`` the run stops after the first
chunk at which that interval is at most W points wide (the deals on disk are
still the first chunks of ``compare``'s; W = 4 tells a 2-point difference).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import multiprocessing
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from yaniv_sim.compare import deal_interval, play_deals, seatings
from yaniv_sim.rules import Rules

FIELDS = ("wins", "points", "seats", "calls", "assafs", "rounds")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--rules", default="standard", choices=["standard", "nordic"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, required=True)
    parser.add_argument("--chunk", type=int, default=250)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--width",
        type=float,
        default=None,
        help="stop once the 95%% interval is at most this many points wide",
    )
    args = parser.parse_args(argv)
    if args.deals < 1 or args.chunk < 1:
        parser.error("--deals and --chunk: at least 1")
    if args.width is not None and not args.width > 0:
        parser.error("--width: a number of points above 0")
    args.out.mkdir(parents=True, exist_ok=True)
    settings = {"first": args.first, "second": args.second, "rules": args.rules,
                "players": args.players, "deals": args.deals, "chunk": args.chunk,
                "seed": args.seed}  # fmt: skip
    request = args.out / "request.json"
    if request.exists():
        held = json.loads(request.read_text())
        if _match_of(held) != _match_of(settings):
            parser.error(f"--out {args.out} holds another match ({request}); use a new folder")
        settings["deals"] = max(args.deals, held["deals"])  # the longest request made of it
    request.write_text(json.dumps(settings, indent=1) + "\n")
    policies = [args.first, args.second]
    rules = Rules.preset(args.rules)
    workers = min(args.workers, len(seatings(args.players, 2)))
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    pool = cf.ProcessPoolExecutor(workers, mp_context=context) if workers > 1 else None
    try:
        for index in range(-(-args.deals // args.chunk)):
            if args.width is not None and index and _width(args.out, index) <= args.width:
                break
            path = args.out / f"chunk-{index:03d}.npz"
            size = min(args.chunk, args.deals - index * args.chunk)
            if path.exists() and len(np.load(path)["wins"]) >= size:
                continue  # played (a chunk cut short by a smaller --deals is played again)
            start = time.time()
            sums = play_deals(policies, rules, args.players, args.deals, args.chunk, index,
                              args.seed, pool)  # fmt: skip
            part = path.with_suffix(".part.npz")
            np.savez(part, seconds=time.time() - start, **dict(zip(FIELDS, sums, strict=True)))
            part.replace(path)  # a chunk is on disk whole or not at all
            summary = summarise(args.out)
            summary["command"] = shlex.join(["python", "scripts/long_match.py", *sys.argv[1:]])
            (args.out / "match.json").write_text(json.dumps(summary, indent=1) + "\n")
            print(f"chunk {index}: {summary['deals']} deals, difference "
                  f"{summary['difference']}", flush=True)  # fmt: skip
    finally:
        if pool is not None:
            pool.shutdown()
    return 0


def _match_of(settings: dict) -> dict:
    """What makes a match: its settings but the number of deals (a match may be made longer)."""
    return {key: value for key, value in settings.items() if key != "deals"}


def _width(folder: Path, chunks: int) -> float:
    """Width in points of the interval over the first ``chunks`` chunks (inf if one is missing)."""
    summary = summarise(folder, chunks)
    if summary is None:
        return float("inf")
    _, low, high = summary["difference"]
    return high - low


def summarise(folder: Path, most: int | None = None) -> dict | None:
    """What the chunks in ``folder`` add up to (the first chunks in order, up to a gap).

    With ``most``: the first ``most`` chunks, or None if one of them is missing.
    """
    chunks = []
    while (most is None or len(chunks) < most) and (
        folder / f"chunk-{len(chunks):03d}.npz"
    ).exists():
        chunks.append(np.load(folder / f"chunk-{len(chunks):03d}.npz"))
    if most is not None and len(chunks) < most:
        return None
    wins = np.concatenate([c["wins"] for c in chunks])
    points = np.concatenate([c["points"] for c in chunks])
    seats = np.concatenate([c["seats"] for c in chunks])
    calls = sum(c["calls"] for c in chunks)
    assafs = sum(c["assafs"] for c in chunks)
    return {
        "deals": len(wins),
        "difference": [100 * x for x in deal_interval(wins[:, 0] - wins[:, 1])],
        "win_share": list(100 * wins.mean(axis=0)),
        "points_per_round": list(points.sum(axis=0) / seats.sum(axis=0)),
        "calls": [int(x) for x in calls],
        "assaf_per_call": list(100 * assafs / np.maximum(calls, 1)),
        "seconds": float(sum(float(c["seconds"]) for c in chunks)),
    }


if __name__ == "__main__":
    sys.exit(main())
