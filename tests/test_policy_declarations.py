"""Each policy parameter is declared once; the kernel slots, the spec parser, the tuner
and the tables of docs/policies.md all agree with the declaration."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from yaniv_sim.engine.specs import FAMILIES, WHOLE_PARAMS, policy_vector
from yaniv_sim.policies import FAMILIES as DECLARED
from yaniv_sim.policies import HEURISTIC, RANDOM
from yaniv_sim.tune import INTEGER_PARAMS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "policies.md"


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


def _rows(heading: str) -> list[list[str]]:
    """The cells of the first table under a heading of docs/policies.md (one table, no gaps)."""
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    rows, seen_table = [], False
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            seen_table = True
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set(cells[0]) <= set("-: "):
                rows.append(cells)
        elif seen_table:
            break
    return rows[1:]  # without the header


def test_the_heuristic_reference_table_is_the_declaration():
    rows = _rows("### Reference")
    documented = {}
    for cells in rows:
        slots, name, span, default = cells[0], cells[1], cells[2], cells[3]
        first = int(slots.split("–")[0])
        low, high = (_number(x) for x in span.split(" to "))
        documented[first] = (re.findall(r"`(\w+)`", name)[0], low, high, _number(default))
    declared = {}
    for p in HEURISTIC.params:
        shown = p.name if p.size == 1 else f"{p.name}_0"
        if p.name == "call_table":
            shown = "call_v0_c1_t0_o1_p0"
        declared[HEURISTIC.slot(p.name)] = (shown, p.low, p.high, p.default)
    assert documented == declared


def test_the_random_table_is_the_declaration():
    rows = _rows("**random** is a test device, not a strategy:")
    documented = {re.findall(r"`(\w+)`", c[0])[0]: (c[1], _number(c[2])) for c in rows}
    assert documented == {p.name: (f"{p.low:g} to {p.high:g}", p.default) for p in RANDOM.params}


def test_spec_parser_and_tuner_read_the_declaration():
    for family in DECLARED.values():
        _, params = FAMILIES[family.name]
        for name, (slot, p) in family.slots().items():
            if p.name == "call_table":
                continue
            assert params[name] == (slot, p.default, p.low, p.high)
    assert len(FAMILIES["heuristic"][1]) == HEURISTIC.end - HEURISTIC.first
    assert (
        INTEGER_PARAMS
        == WHOLE_PARAMS
        == {name for f in DECLARED.values() for name, (_, p) in f.slots().items() if p.whole}
    )
    # a parameter's slot is where the spec puts its value
    vector = policy_vector("heuristic:theft_margin=7,risk_at_3=0.25,call_v6_c2_t1=1")
    assert vector[HEURISTIC.slot("theft_margin")] == 7
    assert vector[HEURISTIC.slot("risk_at") + 3] == 0.25
    cell = ((6 * 7 + 1) * 3 + 1) * 3 * 2  # value 6, fewest 2, band 1; then 3 x 2 cells
    table = vector[HEURISTIC.slot("call_table") :][: 16 * 7 * 3 * 3 * 2]
    assert (table[cell : cell + 6] == 1).all()
    assert (np.delete(table, range(cell, cell + 6)) == 0.5).all()


def test_slots_do_not_overlap_and_fit_the_vector():
    taken = {}
    for family in DECLARED.values():
        for name, (slot, _) in family.slots().items():
            if family is RANDOM or family is HEURISTIC:
                assert slot not in taken or taken[slot][0] != family.name, name
            taken.setdefault(slot, (family.name, name))
    assert max(taken) < len(policy_vector("best"))
    # the random device's slots come before the heuristic's (a heuristic seat never reads them)
    assert RANDOM.end <= HEURISTIC.first


@pytest.mark.parametrize("name", ["call_at", "risk_at", "call_table"])
def test_every_declaration_says_what_it_does(name):
    (param,) = [p for p in HEURISTIC.params if p.name == name]
    assert param.meaning and len(param.meaning) < 80 and param.low <= param.default <= param.high


def test_the_search_table_is_the_declaration():
    from yaniv_sim.policies import SEARCH

    rows = _rows("## The search player")
    documented = {re.findall(r"`(\w+)`", c[0])[0]: (c[1], c[2].strip("`")) for c in rows}
    declared = {}
    for p in SEARCH.params:
        if p.choices:
            names = "a policy name" if p.name == "base" else " or ".join(p.choices)
            declared[p.name] = (names, p.choices[int(p.default)])
        else:
            declared[p.name] = (f"{p.low:.0f} to {p.high:.0f}", f"{p.default:g}")
    assert documented == declared
