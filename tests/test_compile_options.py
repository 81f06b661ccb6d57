"""How the package sets numba up: the cache folder per kernel digest, no vectorisers."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = (
    "import numba, yaniv_sim.engine; from yaniv_sim._version import kernel_digest; "
    "print(bool(numba.config.LOOP_VECTORIZE), bool(numba.config.SLP_VECTORIZE), "
    "numba.config.CACHE_DIR.endswith('numba-' + kernel_digest()))"
)


def _probe(**env) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    clean.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE], env=clean, capture_output=True,
                         text=True, check=True)  # fmt: skip
    return out.stdout.split()


def test_vectorisers_off_and_cache_per_digest():
    assert _probe() == ["False", "False", "True"]


def test_a_users_numba_settings_win():
    got = _probe(NUMBA_LOOP_VECTORIZE="1", NUMBA_SLP_VECTORIZE="1", NUMBA_CACHE_DIR="/tmp/x")
    assert got == ["True", "True", "False"]
