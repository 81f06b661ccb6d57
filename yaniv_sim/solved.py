"""The solved calling strategies shipped with the package: where they are and what they say.

:mod:`yaniv_sim.solve` makes them (``yaniv-sim solve``); this module only
finds and reads them, without pandas or scipy, so that the advisor can
quote one quickly. Everything here is also reachable from
:mod:`yaniv_sim.solve`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from yaniv_sim.policies import TABLE_BAND_EDGES, TABLE_CARDS, TABLE_OPPONENTS, TABLE_VALUES

__all__ = [
    "DATA",
    "SolveError",
    "population_verdicts",
    "read_table",
    "shipped",
    "table_cell_of",
]

DATA = Path(__file__).parent / "data" / "solved"


class SolveError(ValueError):
    """A solve that cannot be started, resumed or read."""


def read_table(path: str | os.PathLike) -> dict[tuple[int, int, int, int, int], int]:
    """The call table a policy file sets, by cell (only the cells set to 0 or 1)."""
    from yaniv_sim.datafiles import read_data_file
    from yaniv_sim.engine.specs import TABLE_GROUPS

    data = read_data_file(str(path), "policy file")
    params = {**dict(data.get("params", {})), **{k: v for k, v in data.items() if k != "params"}}
    table = {}
    for key, value in params.items():
        if not key.startswith("call_v") or value not in (0, 1):
            continue
        for name in TABLE_GROUPS.get(key, (key,)):
            v, c, b, o, k = (int(part[1:]) for part in name.split("_")[1:])
            table[(v, c, b, o, k)] = int(value)
    return table


def table_cell_of(value: int, opponents, turn: int, known_values) -> tuple[int, int, int, int, int]:
    """The call-table cell of a position, as the heuristic reads it.

    ``opponents``: each opponent's card count; ``known_values``: for each
    opponent the values of the cards it took from the pile and still holds.
    """
    fewest = min(min(opponents), TABLE_CARDS)
    band = int(np.searchsorted(np.array(TABLE_BAND_EDGES), turn, side="right"))
    pickup = int(any(known and sum(known) <= value for known in known_values))
    return (min(value, TABLE_VALUES - 1), fewest, band, min(len(opponents), TABLE_OPPONENTS),
            pickup)  # fmt: skip


def population_verdicts(rules_name: str, players: int, cell) -> dict | None:
    """The shipped best responses' verdicts for one cell, by opponent population.

    ``{population: 1, 0 or None}`` (``None``: the cell defers to ``best``),
    from ``<rules>-<players>p-populations.json`` (made by
    ``scripts/populations.py``), or ``None`` when no such file ships.
    """
    path = DATA / f"{rules_name}-{players}p-populations.json"
    if not path.exists():
        return None
    saved = json.loads(path.read_text(encoding="utf-8"))
    names = ["fixed point", *saved["populations"]]
    said = saved["cells"].get(",".join(map(str, cell)), {})
    return {name: said.get(name) for name in names}


def shipped(rules_name: str, players: int) -> Path:
    """The solved policy file shipped with the package for a preset and table size."""
    path = DATA / f"{rules_name}-{players}p.toml"
    if not path.exists():
        have = sorted(p.stem for p in DATA.glob("*p.toml"))  # not the tiers' files
        raise SolveError(
            f"no solved strategy ships for {rules_name} at {players} players; shipped: "
            f"{', '.join(have) or 'none'} (make one with yaniv-sim solve)"
        )
    return path
