"""The tables' declared schema, the files written, and docs/data.md say the same."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from yaniv_sim import Rules, storage
from yaniv_sim.runs import simulate

DOCS = Path(__file__).resolve().parents[1] / "docs" / "data.md"


def _documented(heading: str) -> list[tuple[str, str]]:
    """The (column, type) rows of the first table under a docs/data.md heading."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(heading)
    rows = []
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        match = re.match(r"\| `([^`]+)` \| (\w+) \|", line)
        if match:
            rows.append((match.group(1), match.group(2)))
        elif rows and not line.startswith("|"):
            break
    return rows


def _declared(table: str, when: set[str]) -> list[tuple[str, str]]:
    return [(name, kind) for name, kind, w in storage.COLUMNS[table] if w in when]


def test_the_documented_columns_are_the_declared_ones():
    assert _documented("### `rounds`") == _declared("rounds", {"all", "games"})
    assert _documented("### `games`") == _declared("games", {"all"})
    assert _documented("### `decisions`") == _declared("decisions", {"all"})
    assert _documented("### Call-or-wait branches") == _declared("decisions", {"branches"})


def test_games_only_columns_are_documented_as_such():
    text = DOCS.read_text(encoding="utf-8")
    for name, _, when in storage.COLUMNS["rounds"]:
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        assert ("games mode only" in row) == (when == "games"), row


SHAPES = [(2, "rounds", False), (5, "games", False), (3, "games", True)]


@pytest.mark.parametrize(("players", "mode", "branches"), SHAPES)
def test_written_files_have_the_declared_schema(tmp_path, players, mode, branches):
    out = tmp_path / "ds"
    count = {"rounds": 300} if mode == "rounds" else {"games": 20}
    simulate(Rules.preset("nordic"), players, "max-shed", out=out, workers=1, branches=branches,
             **count)  # fmt: skip
    tables = ("rounds", "games", "decisions") if mode == "games" else ("rounds", "decisions")
    for table in tables:
        schema = pq.read_schema(out / table / "part-000000.parquet").remove_metadata()
        assert schema.equals(storage.table_schema(table, players, mode, branches)), table
        assert schema.names == [c for c, _ in storage.table_columns(table, players, mode, branches)]
    assert not (out / "games").exists() or mode == "games"
