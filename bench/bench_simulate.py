"""End-to-end speed and memory of ``simulate`` (dataset with all tables written).

Run: ``python bench/bench_simulate.py [--rounds 1000000] [--players 4]``

Plays the same request with 1 and with 2 worker processes into fresh folders
and reports wall time, rounds per second, the speed-up, and the peak memory
of the worker processes.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from yaniv_sim.runs import simulate


def run(rounds: int, players: int, workers: int, folder: Path) -> float:
    out = folder / f"w{workers}"
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    simulate("standard", players, rounds=rounds, seed=1, workers=workers, out=out)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        simulate("standard", args.players, rounds=1000, workers=1, out=folder / "warm")
        times = {w: run(args.rounds, args.players, w, folder) for w in (1, 2)}
        size = sum(f.stat().st_size for f in (folder / "w2").rglob("*.parquet"))
    for w, seconds in times.items():
        print(f"{w} worker(s): {args.rounds:,} rounds in {seconds:.2f} s "
              f"({args.rounds / seconds:,.0f} rounds/s)")  # fmt: skip
    print(f"speed-up with 2 workers: {times[1] / times[2]:.2f}x")
    print(f"dataset size: {size / 2**20:.1f} MiB ({size / args.rounds:.1f} bytes per round)")
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)  # fmt: skip
    print(f"peak resident memory of any process: {peak / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
