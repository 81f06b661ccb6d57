"""The equity tables' file: one ``.npz`` per rule set and table size (format :data:`FORMAT`).

Only the file: what it holds and how its arrays are read back. The model
the arrays stand for, building and checking a table are in
:mod:`yaniv_sim.equity`; the kernels' form of a table is in
:mod:`yaniv_sim.engine._equity`. Both read the file through :func:`read`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from yaniv_sim.rules import Rules

__all__ = [
    "DATA",
    "FORMAT",
    "KNOT_STEP",
    "EquityError",
    "knots",
    "preset_of",
    "read",
    "shipped_path",
]

FORMAT = 1  # the file layout written by Equity.save
KNOT_STEP = 10  # points between the logit's knots (the gap's knots: twice as far apart)
DATA = Path(__file__).parent / "data" / "equity"
SHIPPED = ("standard", "nordic")


class EquityError(ValueError):
    """A table that cannot be built, read or asked."""


def knots(limit: int, step: int = KNOT_STEP) -> np.ndarray:
    """The logit curve's knots: every ``step`` points from 0, and the limit.

    The gap curve's are ``knots(2 * limit, 2 * KNOT_STEP)`` (over the gap plus the limit).
    """
    return np.array([*range(0, limit, step), limit], np.float64)


def read(path) -> tuple[dict, np.ndarray, np.ndarray, dict]:
    """``(header, two, tied, logit)`` of the table at ``path``: see :class:`~.equity.Equity`."""
    path = Path(path)
    if not path.is_file():
        raise EquityError(f"equity table {path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as f:
            header = json.loads(str(f["header"]))
            arrays = {name: f[name] for name in f.files}
    except (OSError, ValueError, KeyError) as exc:
        raise EquityError(f"equity table {path}: not an equity table ({exc})") from None
    if header.get("format") != FORMAT:
        raise EquityError(f"equity table {path}: format {header.get('format')!r}, not {FORMAT}")
    players = int(header["players"])
    logit = {
        k: (arrays[f"curve_{k}"], arrays[f"gap_{k}"], arrays[f"places_{k}"])
        for k in range(3, players + 1)
        if f"curve_{k}" in arrays
    }
    two = arrays["two_steps"].cumsum(axis=1).cumsum(axis=2) / 65535
    return header, two, arrays["tied"], logit


def shipped_path(rules_name: str, players: int) -> Path:
    """The shipped table of a preset and table size (policy ``best``)."""
    if rules_name not in SHIPPED:
        raise EquityError(f"rules: {rules_name!r}; tables ship for standard and nordic")
    if not 2 <= players <= 8:
        raise EquityError(f"players: {players!r}; use 2 to 8")
    return DATA / f"{rules_name}-{players}p.npz"


def preset_of(rules: Rules) -> str | None:
    """The name of the shipped preset ``rules`` equal, or None (house rules)."""
    return next((name for name in SHIPPED if rules == Rules.preset(name)), None)
