"""Threads against processes: numba ``prange`` over the chunk kernel.

Run: ``python bench/bench_threads.py [--rounds 2000000]``

Plays the same rounds with the simulator's chunk kernel split over numba
threads (one workspace per thread) and compares with one thread; the
process-pool figures come from ``bench/bench_simulate.py``.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from yaniv_sim import Rules
from yaniv_sim.engine.kernel import (
    DECISION_WIDTH,
    N_SUMMARY,
    RoundOut,
    Table,
    new_table,
    policy_records,
    rule_record,
)
from yaniv_sim.simulation.kernels import _rounds_chunk
from yaniv_sim.simulation.request import SimRequest


@numba.njit(parallel=True, cache=True)
def _threaded(rp, pols, seed, count, blocks, tables, outputs, logs):
    summaries, values, scores, rotation = outputs
    decs, dec_ns, dec_units = logs
    per = -(-count // blocks)
    for b in numba.prange(blocks):
        first = b * per
        n = min(per, count - first)
        t = Table(tables[0][b], tables[1][b], tables[2][b], tables[3][b], tables[4][b],
                  tables[5][b], tables[6][b], tables[7][b], tables[8][b], tables[9][b],
                  tables[10][b], tables[11][b])  # fmt: skip
        out = RoundOut(summaries[first:], values[first:], scores[first:], decs[b][:0, :0],
                       decs[b], dec_ns[b])  # fmt: skip
        _rounds_chunk(rp, pols, None, (1, seed, first, n), t, out, rotation[first:], dec_units[b])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2_000_000)
    args = parser.parse_args()
    count = args.rounds
    request = SimRequest.make(Rules(), 4, rounds=count)
    rp = rule_record(request.rules, 4)
    pols = policy_records(request.rotations()[0])
    for threads in (1, 2):
        numba.set_num_threads(threads)
        blocks = threads
        spaces = [new_table(4) for _ in range(blocks)]
        tables = tuple(np.stack([s[k] for s in spaces]) for k in range(len(spaces[0])))
        per = -(-count // blocks)
        outputs = (np.zeros((count, N_SUMMARY), np.int64), np.zeros((count, 4), np.int64),
                   np.zeros((count, 4), np.int64), np.zeros(count, np.int64))  # fmt: skip
        rows = 2 * per + 2048
        logs = (np.zeros((blocks, rows, DECISION_WIDTH), np.int16),
                np.zeros((blocks, 1), np.int64), np.zeros((blocks, rows), np.int64))  # fmt: skip
        args_ = (rp, pols, 1, count, blocks, tables, outputs, logs)
        _threaded(*args_)  # compile and warm up
        logs[1][:] = 0
        start = time.perf_counter()
        _threaded(*args_)
        seconds = time.perf_counter() - start
        print(f"{threads} thread(s): {count / seconds:,.0f} rounds/s in the kernel")


if __name__ == "__main__":
    main()
