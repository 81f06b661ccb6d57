"""Time opening a simulation dataset with and without its checks.

    python bench/bench_open.py [--rounds 10000000] [--out /tmp/yaniv-bench-open]

Simulates the dataset once (max-shed, 4 players, standard rules) if it is not
there yet, then opens it five ways, best of three each: plain pandas over the
part files (no checks), ``open_dataset(verify=False)`` (sizes and row
counts), ``open_dataset()`` (also every SHA-256), and the lazy forms.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import time
from pathlib import Path

import pandas as pd

import yaniv_sim
from yaniv_sim.storage import open_dataset


def _plain(path: str):
    return {
        t: pd.concat([pd.read_parquet(f) for f in sorted(glob.glob(f"{path}/{t}/part-*.parquet"))])
        for t in ("rounds", "decisions")
    }


def _hash_only(path: str):
    for file in sorted(glob.glob(f"{path}/*/part-*.parquet")):
        hashlib.sha256(Path(file).read_bytes()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000_000)
    parser.add_argument("--out", default="/tmp/yaniv-bench-open")
    args = parser.parse_args()
    path = f"{args.out}-{args.rounds}"
    yaniv_sim.simulate("standard", 4, "max-shed", rounds=args.rounds, out=path, resume=True)
    size = sum(f.stat().st_size for f in Path(path).rglob("*.parquet"))
    print(f"{args.rounds:,} rounds, {size / 1e6:.0f} MB of parquet in {path}")
    ways = {
        "pandas, no checks": lambda: _plain(path),
        "open_dataset(verify=False)": lambda: open_dataset(path, verify=False),
        "open_dataset()": lambda: open_dataset(path),
        "open_dataset(lazy=True, verify=False)": lambda: open_dataset(
            path, lazy=True, verify=False
        ),
        "open_dataset(lazy=True)": lambda: open_dataset(path, lazy=True),
        "sha256 of every part alone": lambda: _hash_only(path),
    }
    for name, way in ways.items():
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            way()
            best = min(best, time.perf_counter() - start)
        print(f"{name:<40} {best:6.2f} s")


if __name__ == "__main__":
    main()
