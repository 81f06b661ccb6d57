"""Policy specs at the engine's edge: names and parameters to kernel vectors.

A spec is ``"NAME"``, ``"NAME:param=value,..."``, or the path of a TOML or JSON
file (data only) holding ``policy = "NAME"`` and the parameters, either at
the top level or in a ``params`` table::

    policy = "random"
    call = 0.2
    pile = 0.8

The engine knows the families its kernel implements; richer families
register here too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from yaniv_sim.datafiles import is_data_file, read_data_file
from yaniv_sim.engine._heuristic import table_index
from yaniv_sim.engine._policy import (
    KIND_HEURISTIC,
    KIND_MAX_SHED,
    KIND_RANDOM,
    KIND_SEARCH,
    N_POLICY_PARAMS,
    P_KIND,
)
from yaniv_sim.policies import FAMILIES as DECLARED
from yaniv_sim.policies import (
    HEURISTIC,
    PRESETS,
    SEARCH,
    TABLE_BANDS,
    TABLE_CARDS,
    TABLE_OPPONENTS,
    TABLE_PICKUPS,
    TABLE_VALUES,
    Family,
)
from yaniv_sim.policies import TABLE_BAND_EDGES as TABLE_BAND_EDGES  # public from here too


def _spec_params(family: Family) -> dict[str, tuple[int, float, float, float]]:
    """``{spec name: (slot, default, low, high)}`` of a family, from its declaration.

    Rows of slots get one name per slot: ``risk_at_0`` .. ``risk_at_15``, and
    the call table's cells ``call_v{value}_c{fewest cards}_t{turn band}_o{opponents
    still in}_p{pickup}`` (see :data:`TABLE_GROUPS` for the shorter names that set
    several cells at once).
    """
    out = {}
    for name, (slot, p) in family.slots().items():
        if p.name == "call_table":
            continue
        out[name] = (slot, float(p.default), float(p.low), float(p.high))
    if family is HEURISTIC:
        cell = HEURISTIC.params[-1]
        for name, (v, c, b, o, k) in _table_cells():
            out[name] = (table_index(v, c, b, o, k), cell.default, cell.low, cell.high)
    return out


def _table_cells():
    for v in range(TABLE_VALUES):
        for c in range(1, TABLE_CARDS + 1):
            for b in range(TABLE_BANDS):
                for o in range(1, TABLE_OPPONENTS + 1):
                    for k in range(TABLE_PICKUPS):
                        yield f"call_v{v}_c{c}_t{b}_o{o}_p{k}", (v, c, b, o, k)


def _table_groups() -> dict[str, tuple[str, ...]]:
    """Shorter names for groups of call-table cells: a part of the name left out means all.

    ``call_v6_c2_t0`` sets the 6 cells of every opponents-still-in and pickup
    value; ``call_v6_c2_t0_o1`` the 2 with one opponent in.
    """
    groups: dict[str, list[str]] = {}
    for name, (v, c, b, o, _k) in _table_cells():
        groups.setdefault(f"call_v{v}_c{c}_t{b}", []).append(name)
        groups.setdefault(f"call_v{v}_c{c}_t{b}_o{o}", []).append(name)
    return {key: tuple(names) for key, names in groups.items()}


TABLE_GROUPS = _table_groups()


# name -> (kind, {param name: (slot, default, low, high)})
FAMILIES: dict[str, tuple[int, dict[str, tuple[int, float, float, float]]]] = {
    "max-shed": (KIND_MAX_SHED, _spec_params(DECLARED["max-shed"])),
    "random": (KIND_RANDOM, _spec_params(DECLARED["random"])),
}

# the heuristic family; its defaults play like max-shed (ties in the discard
# go to the first card set listed instead of a random one)
HEURISTIC_PARAMS = _spec_params(HEURISTIC)

# whole-number parameters (the kernel compares integers with them)
WHOLE_PARAMS = frozenset(
    name for family in DECLARED.values() for name, (_, p) in family.slots().items() if p.whole
)

# parameters that name a choice (the slot holds its index): spec name -> the names
CHOICES = {
    name: p.choices
    for family in DECLARED.values()
    for name, (_, p) in family.slots().items()
    if p.choices
}

FAMILIES["search"] = (KIND_SEARCH, _spec_params(SEARCH))
FAMILIES["heuristic"] = (KIND_HEURISTIC, HEURISTIC_PARAMS)
for _name, _values in PRESETS.items():
    FAMILIES[_name] = (
        KIND_HEURISTIC,
        {k: (i, _values.get(k, d), lo, hi) for k, (i, d, lo, hi) in HEURISTIC_PARAMS.items()},
    )


def spec_from_file(path: str) -> str:
    """The text spec of a policy file (``.toml`` or ``.json``)."""
    data = read_data_file(path, "policy file")
    if not isinstance(data.get("policy"), str):
        raise ValueError(f'policy file {path}: needs a key policy = "NAME" (one of: '
                         + ", ".join(FAMILIES) + ")")  # fmt: skip
    data = dict(data)
    name = data.pop("policy")
    params = dict(data.pop("params", {}))
    params.update(data)
    return name + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")


def policy_vector(spec: str) -> np.ndarray:
    """The kernel parameter vector of one policy spec such as ``"random:call=0.2"``."""
    if not isinstance(spec, str):
        raise ValueError(f"policy: {spec!r} is not a policy spec; use a name such as 'max-shed'")
    if is_data_file(spec):
        return policy_vector(spec_from_file(spec.strip()))
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if name not in FAMILIES:
        raise ValueError(f"unknown policy {name!r}; known policies: " + ", ".join(FAMILIES))
    kind, params = FAMILIES[name]
    vector = np.zeros(N_POLICY_PARAMS, np.float64)
    vector[P_KIND] = kind
    for index, default, _low, _high in params.values():
        vector[index] = default
    items = []
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if kind == KIND_HEURISTIC and key in TABLE_GROUPS:
            items += [(cell, eq, value) for cell in TABLE_GROUPS[key]]
        else:
            items.append((key, eq, value))
    for key, eq, value in items:
        if key not in params:
            shown = [k for k in params if not k.startswith("call_v")]
            if len(shown) < len(params):
                shown.append("call_v<v>_c<c>_t<t>[_o<o>[_p<p>]] (the call table's cells)")
            allowed = ", ".join(shown) if shown else "none"
            raise ValueError(f"policy {name}: unknown parameter {key!r}; its parameters: {allowed}")
        index, _default, low, high = params[key]
        if key in CHOICES:
            choices = CHOICES[key]
            if not eq or value.strip() not in choices:
                raise ValueError(
                    f"policy {name}: {key}={value.strip()!r} is not allowed; use one of "
                    + ", ".join(choices)
                )
            vector[index] = choices.index(value.strip())
            continue
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not eq or not low <= number <= high:
            raise ValueError(
                f"policy {name}: {key}={value.strip()!r} is not allowed; use a number "
                f"from {low:g} to {high:g}"
            )
        vector[index] = number
    return vector


def canonical_spec(spec: str) -> str:
    """A policy spec written one way: ``name`` or ``name:param=value,...`` in parameter order.

    Specs that play the same policy get the same text, whatever their spacing,
    order or number format; defaults are left out.
    """
    if is_data_file(spec):
        spec = spec_from_file(spec.strip())
    vector = policy_vector(spec)
    name = spec.strip().partition(":")[0].strip()
    _, params = FAMILIES[name]
    parts = [
        f"{key}={CHOICES[key][int(vector[index])] if key in CHOICES else f'{vector[index]:g}'}"
        for key, (index, default, _low, _high) in params.items()
        if vector[index] != default
    ]
    return name + (":" + ",".join(parts) if parts else "")


def policy_matrix(policies: str | Sequence[str], players: int) -> np.ndarray:
    """One policy vector per seat: a single spec for every seat, or one per seat."""
    if isinstance(policies, str):
        policies = [policies] * players
    policies = list(policies)
    if len(policies) != players:
        raise ValueError(
            f"policies: {len(policies)} given for {players} players; give one for every "
            "seat or a single one for all"
        )
    return np.stack([policy_vector(p) for p in policies])
