"""Counter-based random streams for the kernels (SplitMix64).

Every stream is keyed by ``(seed, game, round, stream)`` alone, so any round
can be replayed on its own and no result depends on how work was split among
threads, processes or chunks. Stream 0 of a round shuffles the cards; stream
``1 + seat`` is that seat's policy's own randomness, so one seat's choices
never shift the cards or another seat's choices.
"""

from __future__ import annotations

import numpy as np

from yaniv_sim._numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)

MAX_SEED = 2**63 - 1


def normalise_seed(seed) -> int:
    """Check a user's seed: an integer from 0 to 2**63 - 1."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(f"seed: {seed!r} is not allowed; use an integer from 0 to {MAX_SEED}")
    seed = int(seed)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed: {seed} is not allowed; use an integer from 0 to {MAX_SEED}")
    return seed


@njit
def _mix64(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit
def _round_key(seed, game, rnd):
    """A uint64 key of the round ``(seed, game, round)``."""
    z = _mix64(np.uint64(seed) + _GOLDEN)
    z = _mix64(z ^ (np.uint64(game) * _M2 + _GOLDEN))
    return _mix64(z ^ (np.uint64(rnd) * _M1 + _GOLDEN))


@njit
def _seed_round_streams(states, seed, game, rnd):
    """Fill ``states`` (uint64, length 1 + seats) with the round's streams."""
    key = _round_key(seed, game, rnd)
    for i in range(states.shape[0]):
        states[i] = _mix64(key ^ (np.uint64(i) * _GOLDEN))


@njit
def _next_u64(states, i):
    states[i] += _GOLDEN
    return _mix64(states[i])


@njit
def _below(states, i, n):
    """A uniform integer in ``[0, n)`` from stream ``i`` (``n < 2**32``)."""
    return np.int64(((_next_u64(states, i) >> _S32) * np.uint64(n)) >> _S32)


@njit
def _uniform(states, i):
    """A uniform float in ``[0, 1)`` from stream ``i``."""
    return np.float64(_next_u64(states, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def _shuffle(cards, n, states, i):
    """Fisher-Yates shuffle of ``cards[:n]`` in place with stream ``i``.

    Each 64-bit draw serves two swaps (32 bits each; ``n`` is at most 112,
    so the multiply-shift bias is below 3e-8).
    """
    k = n - 1
    while k > 0:
        z = _next_u64(states, i)
        j = np.int64(((z >> _S32) * np.uint64(k + 1)) >> _S32)
        t = cards[k]
        cards[k] = cards[j]
        cards[j] = t
        k -= 1
        if k == 0:
            break
        j = np.int64(((z & _LOW32) * np.uint64(k + 1)) >> _S32)
        t = cards[k]
        cards[k] = cards[j]
        cards[j] = t
        k -= 1
