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
from yaniv_sim.engine._layout import DECISION_WIDTH, N_SUMMARY, rule_params
from yaniv_sim.engine._play import new_game_scratch, new_workspace
from yaniv_sim.simulation.kernels import _rounds_chunk
from yaniv_sim.simulation.request import SimRequest


@numba.njit(parallel=True, cache=True)
def _threaded(rp, pols, seed, count, blocks, wss, scratch, summaries, values, scores, rotation,
              decs, dec_ns, dec_units):  # fmt: skip
    per = -(-count // blocks)
    for b in numba.prange(blocks):
        first = b * per
        n = min(per, count - first)
        ws = (wss[0][b], wss[1][b], wss[2][b], wss[3][b], wss[4][b], wss[5][b], wss[6][b],
              wss[7][b], wss[8][b], wss[9][b])  # fmt: skip
        _rounds_chunk(rp, pols, True, seed, first, n, ws, scratch, np.ones(4, np.int8),
                      np.zeros(4, np.int64), summaries[first:], values[first:], scores[first:],
                      rotation[first:], decs[b], dec_ns[b], dec_units[b])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2_000_000)
    args = parser.parse_args()
    count = args.rounds
    request = SimRequest.make(Rules(), 4, rounds=count)
    rp, _ = rule_params(request.rules, 4)
    pols, _ = request.rotations()
    for threads in (1, 2):
        numba.set_num_threads(threads)
        blocks = threads
        spaces = [new_workspace(4) for _ in range(blocks)]
        wss = tuple(np.stack([s[k] for s in spaces]) for k in range(10))
        scratch = new_game_scratch(4)
        per = -(-count // blocks)
        summaries = np.zeros((count, N_SUMMARY), np.int64)
        values = np.zeros((count, 4), np.int64)
        scores = np.zeros((count, 4), np.int64)
        rotation = np.zeros(count, np.int64)
        decs = np.zeros((blocks, 2 * per + 2048, DECISION_WIDTH), np.int16)
        dec_ns = np.zeros((blocks, 1), np.int64)
        dec_units = np.zeros((blocks, 2 * per + 2048), np.int64)
        args_ = (rp, pols, 1, count, blocks, wss, scratch, summaries, values, scores, rotation,
                 decs, dec_ns, dec_units)  # fmt: skip
        _threaded(*args_)  # compile and warm up
        dec_ns[:] = 0
        start = time.perf_counter()
        _threaded(*args_)
        seconds = time.perf_counter() - start
        print(f"{threads} thread(s): {count / seconds:,.0f} rounds/s in the kernel")


if __name__ == "__main__":
    main()
