"""The advice tables: the files a strategy report leaves for the call advisor.

A report folder holds two CSV tables and a JSON file describing them::

    assaf-risk.csv        the simulated Assaf risk, cell by cell
    decision-table.csv    the call-or-wait table, cell by cell
    report-tables.json    the format version and what made the tables

This module declares that format once (:data:`TABLES`, :data:`META`,
:data:`FORMAT_VERSION`); docs/advice-tables.md documents exactly these
columns (a test checks it). The report writes through :func:`table_csv` and
:func:`meta_json`, which refuse a table that does not match the declaration;
the advisor reads through :func:`read_tables`, which parses every column by
its declared type and reports anything else as one line naming the folder,
the file and what is wrong.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is read or written: the advisor
    import pandas as pd  # without tables starts faster

from yaniv_sim._version import __version__
from yaniv_sim.rules import Rules

__all__ = [
    "BAND_EDGES",
    "BAND_NAMES",
    "FEWEST_CAP",
    "FILES",
    "FORMAT_VERSION",
    "META",
    "META_FILE",
    "TABLES",
    "AdviceTables",
    "Column",
    "TableFormat",
    "TablesError",
    "meta_json",
    "read_tables",
    "table_csv",
]

# 2: decision-table.csv intervals clustered by game, games, p-values, FDR
# 3: assaf-risk.csv intervals clustered by game, and its games column
FORMAT_VERSION = 3
META_FILE = "report-tables.json"

# the turn bands of the ``band`` column: turns played in the round (every
# player's turns) below 10, below 20, and the rest
BAND_EDGES = (10, 20)
BAND_NAMES = ("0-9", "10-19", "20+")
FEWEST_CAP = 7  # the ``fewest`` column counts seven or more cards as 7
VERDICTS = ("call", "wait", "too close", "too few")
# the pandas dtype of each declared dtype (text stays Python str, whatever the pandas)
_DTYPES = {"int64": "int64", "float64": "float64", "str": object}


@dataclasses.dataclass(frozen=True)
class Column:
    """One column of a table: ``dtype`` is ``int64``, ``float64`` or ``str``.

    ``empty`` allows empty cells (read as NaN) in a ``float64`` column;
    ``values`` lists the texts a ``str`` column may hold.
    """

    name: str
    dtype: str
    meaning: str
    empty: bool = False
    values: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class TableFormat:
    """One CSV file: its columns in order, and the columns that name a row."""

    file: str
    columns: tuple[Column, ...]
    keys: tuple[str, ...]

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


_OPPONENTS = "opponents still in the game at the decision point"
_HAND = "the deciding player's hand value (0 to the threshold)"
_FEWEST = (
    f"fewest cards any opponent still in holds, 1 to {FEWEST_CAP} ({FEWEST_CAP}: that many or more)"
)
_BAND = "turn band: 0 for turns 0-9 of the round, 1 for 10-19, 2 for 20 or more"
_N = "decision points in the cell"

TABLES: dict[str, TableFormat] = {
    "assaf-risk.csv": TableFormat(
        "assaf-risk.csv",
        (
            Column("players", "int64", "seats at the table"),
            Column("opponents", "int64", _OPPONENTS),
            Column("hand_value", "int64", _HAND),
            Column("fewest", "int64", _FEWEST),
            Column("band", "int64", _BAND),
            Column("n", "int64", _N),
            Column("games", "int64", "the games the cell's decision points come from"),
            Column(
                "assafs",
                "int64",
                "decision points at which some opponent held the hand "
                "value or less, so a call would have been Assafed",
            ),
            Column("risk", "float64", "the Assaf risk: `assafs / n`"),
            Column(
                "low",
                "float64",
                "lower end of the 95% interval of `risk`: the wider of the Wilson interval "
                "of the points and the cluster-robust one with the game as the cluster "
                "(0 to 1 for a cell from one game)",
            ),
            Column("high", "float64", "upper end of that interval"),
        ),
        keys=("players", "opponents", "hand_value", "fewest", "band"),
    ),
    "decision-table.csv": TableFormat(
        "decision-table.csv",
        (
            Column("opponents", "int64", _OPPONENTS + " (every table size pooled)"),
            Column("hand_value", "int64", _HAND),
            Column("fewest", "int64", _FEWEST),
            Column(
                "turns", "str", "the turn band as text: `0-9`, `10-19` or `20+`", values=BAND_NAMES
            ),
            Column("band", "int64", _BAND),
            Column("n", "int64", _N),
            Column("games", "int64", "the games the cell's decision points come from"),
            Column(
                "gain",
                "float64",
                "mean gain of calling, in points relative to the table: "
                "the round margin (own round score minus the opponents' "
                "mean) if waiting minus if calling; positive: call",
            ),
            Column(
                "gain_low",
                "float64",
                "lower end of the 95% interval of `gain`, clustered by game; "
                "empty when the cell's points come from one game",
                empty=True,
            ),
            Column(
                "gain_high", "float64", "upper end of that interval; empty likewise", empty=True
            ),
            Column(
                "points_gain",
                "float64",
                "mean own round score saved by calling: the "
                "round score if waiting minus if calling",
            ),
            Column(
                "points_low",
                "float64",
                "lower end of the 95% interval of `points_gain`; empty likewise",
                empty=True,
            ),
            Column(
                "points_high", "float64", "upper end of that interval; empty likewise", empty=True
            ),
            Column(
                "called",
                "float64",
                "share of the cell's decision points at which the policy called",
            ),
            Column(
                "win_n", "int64", "decision points whose games were played on to the end both ways"
            ),
            Column(
                "win_gain",
                "float64",
                "game win probability after calling minus after "
                "waiting; empty when `win_n` is under 2",
                empty=True,
            ),
            Column(
                "win_low",
                "float64",
                "lower end of the 95% interval of `win_gain`; empty when `win_n` is under 2",
                empty=True,
            ),
            Column(
                "win_high",
                "float64",
                "upper end of that interval; empty when `win_n` is under 2",
                empty=True,
            ),
            Column(
                "p_call",
                "float64",
                "one-sided p-value of `gain` above 0 (clustered by game)",
                empty=True,
            ),
            Column("p_wait", "float64", "one-sided p-value of `gain` below 0", empty=True),
            Column(
                "verdict",
                "str",
                "`call` or `wait` when `p_call` or `p_wait` passes the "
                "Benjamini-Hochberg procedure at a false-discovery rate of 5% over "
                "all the tests of the file's cells, `too close` otherwise, `too few` "
                "under 100 decision points",
                values=VERDICTS,
            ),
        ),
        keys=("opponents", "hand_value", "fewest", "band"),
    ),
}

# report-tables.json: (key, type, meaning); type is int, str, object or list[int]
META: tuple[tuple[str, str, str], ...] = (
    ("format_version", "int", "the version of the advice tables format these files follow"),
    ("rules", "object", "the rules the games were played under, as `yaniv-sim rules --json` "
                        "prints them"),
    ("policy", "str", "the policy at every seat (its canonical spec)"),
    ("seed", "int", "the seed of the simulations"),
    ("games", "int", "self-play games per table size"),
    ("players", "list[int]", "the table sizes simulated"),
    ("yaniv_sim", "str", "the yaniv-sim version that made the tables"),
)  # fmt: skip

FILES = (*TABLES, META_FILE)
RERUN = "re-run yaniv-sim report"


class TablesError(ValueError):
    """A report folder whose advice tables cannot be read; the message is one line."""


# -- writing ------------------------------------------------------------------------------


def _kind_ok(series: pd.Series, dtype: str) -> bool:
    import pandas as pd

    if dtype == "int64":
        return pd.api.types.is_integer_dtype(series.dtype)
    if dtype == "float64":
        return pd.api.types.is_float_dtype(series.dtype)
    return pd.api.types.is_string_dtype(series.dtype) or series.dtype == object


def table_csv(file: str, frame: pd.DataFrame) -> str:
    """``frame`` as the CSV text of ``file``, once it is checked against the declaration.

    The columns must be the declared ones in order, each of its declared
    kind (any integer width for ``int64``), with no empty cell where none
    is allowed, only the declared texts in ``str`` columns and one row per
    key. Raises ``ValueError`` otherwise.
    """
    import pandas as pd

    spec = TABLES[file]
    where = f"{file} (advice tables format {FORMAT_VERSION})"
    if list(frame.columns) != spec.names:
        raise ValueError(f"{where}: columns {list(frame.columns)}, declared {spec.names}")
    out = {}
    for column in spec.columns:
        series = frame[column.name]
        if not _kind_ok(series, column.dtype):
            raise ValueError(f"{where}: column {column.name!r} is {series.dtype}, "
                             f"declared {column.dtype}")  # fmt: skip
        if series.isna().any() and not column.empty:
            raise ValueError(f"{where}: column {column.name!r} has empty cells")
        if column.values and not series.isin(column.values).all():
            bad = series[~series.isin(column.values)].iloc[0]
            raise ValueError(f"{where}: column {column.name!r} holds {bad!r}, "
                             f"declared one of {list(column.values)}")  # fmt: skip
        out[column.name] = series.astype(_DTYPES[column.dtype])
    table = pd.DataFrame(out)
    if table.duplicated(list(spec.keys)).any():
        raise ValueError(f"{where}: several rows for one key {list(spec.keys)}")
    return table.to_csv(index=False)


def meta_json(rules: Rules, policy: str, seed: int, games: int, players) -> str:
    """The text of ``report-tables.json`` for tables made with these settings."""
    meta = {"format_version": FORMAT_VERSION, "rules": rules.to_dict(), "policy": policy,
            "seed": seed, "games": games, "players": [int(p) for p in players],
            "yaniv_sim": __version__}  # fmt: skip
    problem = _meta_problem(meta)
    if problem:
        raise ValueError(f"{META_FILE}: {problem}")
    return json.dumps(meta, indent=1)


# -- reading ------------------------------------------------------------------------------


@dataclasses.dataclass
class AdviceTables:
    """A report folder's advice tables, read and checked: typed frames and their settings."""

    folder: Path
    meta: dict
    rules: Rules
    frames: dict[str, pd.DataFrame]

    def row(self, file: str, **key: int) -> dict | None:
        """The row of ``file`` with these key values (every key column given), or None."""
        spec = TABLES[file]
        if sorted(key) != sorted(spec.keys):
            raise ValueError(f"{file}: give the key columns {list(spec.keys)}")
        frame = self.frames[file]
        mask = np.ones(len(frame), bool)
        for name, value in key.items():
            mask &= frame[name].to_numpy() == value
        if not mask.any():
            return None
        at = int(np.argmax(mask))
        # column by column: a row of a mixed frame would upcast the integers
        cells = {name: frame[name].to_numpy()[at] for name in spec.names}
        return {name: v.item() if isinstance(v, np.generic) else v for name, v in cells.items()}


def _meta_problem(meta) -> str:
    """What is wrong with a parsed ``report-tables.json`` (format version first), or ''."""
    if not isinstance(meta, dict):
        return "holds no JSON object"
    if "format_version" not in meta:
        return f"records no format_version (tables older than format {FORMAT_VERSION})"
    version = meta["format_version"]
    if version != FORMAT_VERSION or isinstance(version, bool):
        return f"is format {version!r}; this yaniv-sim reads format {FORMAT_VERSION}"
    checks = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "str": lambda v: isinstance(v, str), "object": lambda v: isinstance(v, dict),
              "list[int]": lambda v: isinstance(v, list) and all(
                  isinstance(x, int) and not isinstance(x, bool) for x in v)}  # fmt: skip
    for key, kind, _ in META:
        if key not in meta:
            return f"has no {key!r} (format {FORMAT_VERSION} expects {[k for k, _, _ in META]})"
        if not checks[kind](meta[key]):
            return f"{key!r} is {json.dumps(meta[key])[:40]}, not {kind}"
    return ""


_INTEGER = re.compile(r"[+-]?\d{1,18}")


def _cell(text: str, column: Column):
    """One cell parsed by its column's declared type; ValueError if it is not of that type."""
    if column.dtype == "int64":
        if not _INTEGER.fullmatch(text):
            raise ValueError("an integer")
        return int(text)
    if column.dtype == "float64":
        if text == "" and column.empty:
            return math.nan
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError("a number")
        return value
    if column.values and text not in column.values:
        raise ValueError("one of " + ", ".join(repr(v) for v in column.values))
    return text


def _read_csv(path: Path, spec: TableFormat) -> pd.DataFrame:
    """One table parsed by the declaration; raises TablesError with '<file> ...' text."""
    import pandas as pd

    file = spec.file
    expects = f"format {FORMAT_VERSION} expects {', '.join(spec.names)}"
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle, strict=True)
            lines = [(reader.line_num, row) for row in reader if row]
    except (UnicodeDecodeError, csv.Error) as error:
        raise TablesError(f"{file} is not a CSV table ({error})") from None
    if not lines:
        raise TablesError(f"{file} is empty ({expects})")
    header = lines[0][1]
    missing = [c for c in spec.names if c not in header]
    if missing:
        raise TablesError(f"{file} has no column {missing[0]!r} ({expects})")
    extra = [c for c in header if c not in spec.names]
    if extra:
        raise TablesError(f"{file} has a column {extra[0]!r} that format {FORMAT_VERSION} "
                          f"does not declare ({expects})")  # fmt: skip
    if len(header) != len(set(header)):
        twice = next(c for c in header if header.count(c) > 1)
        raise TablesError(f"{file} has the column {twice!r} twice ({expects})")
    at = [header.index(name) for name in spec.names]
    values: list[list] = [[] for _ in spec.columns]
    for line, row in lines[1:]:
        if len(row) != len(header):
            raise TablesError(f"{file} line {line}: {len(row)} fields; the header has "
                              f"{len(header)}")  # fmt: skip
        for k, column in enumerate(spec.columns):
            try:
                values[k].append(_cell(row[at[k]], column))
            except ValueError as expected:
                raise TablesError(f"{file} line {line}: column {column.name!r} holds "
                                  f"{row[at[k]]!r}, not {expected}") from None  # fmt: skip
    frame = pd.DataFrame({column.name: pd.Series(v, dtype=_DTYPES[column.dtype])
                          for column, v in zip(spec.columns, values, strict=True)})  # fmt: skip
    twice = frame.duplicated(list(spec.keys)).to_numpy()
    if twice.any():
        line = lines[1 + int(np.argmax(twice))][0]
        raise TablesError(f"{file} line {line}: a second row for the same "
                          f"{', '.join(spec.keys)}")  # fmt: skip
    return frame


def read_tables(folder: Path) -> AdviceTables:
    """Read and check a report folder's advice tables.

    Raises :class:`TablesError` (a ``ValueError``) with one line, ``tables
    <folder>: <file> <what is wrong>; re-run yaniv-sim report``, when a file
    is missing, ``report-tables.json`` is not JSON or records another format
    version or lacks a setting, or a CSV file lacks a declared column, has
    an undeclared one, a row of another length than its header, a cell that
    does not parse as its column's declared type, or two rows with one key.
    The CSV files are read with :mod:`csv` and each cell converted by its
    column's declaration: integers as written integers, numbers as finite
    floats (an empty cell is NaN where the column allows it), text among the
    declared values.
    """
    folder = Path(folder)

    def fail(problem: str) -> TablesError:
        return TablesError(f"tables {folder}: {problem}; {RERUN}")

    missing = [f for f in FILES if not (folder / f).is_file()]
    if missing:
        raise TablesError(f"tables {folder}: not a report folder (no {missing[0]}); "
                          "run yaniv-sim report")  # fmt: skip
    try:
        meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise fail(f"{META_FILE} is not valid JSON ({error})") from None
    problem = _meta_problem(meta)
    if problem:
        raise fail(f"{META_FILE} {problem}")
    try:
        rules = Rules.from_dict(meta["rules"])
    except (ValueError, TypeError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise fail(f"{META_FILE} has rules this yaniv-sim does not read ({message})") from None
    frames = {}
    for file, spec in TABLES.items():
        try:
            frames[file] = _read_csv(folder / file, spec)
        except TablesError as error:
            raise fail(str(error)) from None
    return AdviceTables(folder, meta, rules, frames)
