"""The advice tables: declaration, docs/advice-tables.md, the report's files and the advisor.

The report folder is the session's quick report (the ``report`` fixture in
tests/conftest.py); the broken folders are copies of it with one thing
changed.
"""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from tests.conftest import REPORT_ARGS
from yaniv_sim import advice_tables as fmt
from yaniv_sim._version import __version__
from yaniv_sim.advice import advise
from yaniv_sim.analysis import assaf_risk, decision_table
from yaniv_sim.cli import main
from yaniv_sim.policies import TABLE_BAND_EDGES, TABLE_CARDS
from yaniv_sim.rules import Rules

DOCS = Path(__file__).resolve().parents[1] / "docs" / "advice-tables.md"


# -- the declaration and its page -----------------------------------------------------------


def _section(heading: str) -> list[str]:
    """The lines under a docs/advice-tables.md heading, up to the next heading."""
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    out = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        out.append(line)
    return out


def _rows(heading: str) -> list[tuple[str, str, str]]:
    """The (name, type, meaning) rows of the table under a heading."""
    rows = []
    for line in _section(heading):
        match = re.fullmatch(r"\| `([^`]+)` \| ([^|]+?) \| (.+) \|", line)
        if match:
            rows.append(match.groups())
    return rows


def test_the_documented_columns_are_the_declared_ones():
    for file, spec in fmt.TABLES.items():
        declared = [(c.name, c.dtype, c.meaning) for c in spec.columns]
        assert _rows(f"## `{file}`") == declared, file
        keys = [line for line in _section(f"## `{file}`") if line.startswith("Key: ")]
        assert keys == ["Key: " + ", ".join(f"`{k}`" for k in spec.keys) + "."], file
    assert _rows(f"## `{fmt.META_FILE}`") == list(fmt.META)


def test_the_page_names_the_declared_files_and_version():
    text = DOCS.read_text(encoding="utf-8")
    headings = re.findall(r"^## `([^`]+)`$", text, flags=re.M)
    assert sorted(headings) == sorted(fmt.FILES)
    assert re.findall(r"This page describes \*\*format (\d+)\*\*", text) == [
        str(fmt.FORMAT_VERSION)
    ]
    # the folder listing at the top names the same files
    listed = re.findall(r"^    (\S+\.(?:csv|json)) ", text, flags=re.M)
    assert sorted(listed) == sorted(fmt.FILES)


def test_the_format_agrees_with_the_code_that_makes_the_tables():
    """Bands, the fewest-cards cap and the verdicts are those of the analysis and policies."""
    assert tuple(TABLE_BAND_EDGES) == fmt.BAND_EDGES
    assert fmt.BAND_NAMES == assaf_risk.BAND_NAMES
    assert fmt.FEWEST_CAP == TABLE_CARDS
    verdicts = next(c for c in fmt.TABLES["decision-table.csv"].columns if c.name == "verdict")
    assert verdicts.values == decision_table.VERDICTS
    # each band name covers exactly the turns turn_band puts in that band
    for band, name in enumerate(fmt.BAND_NAMES):
        first = int(re.match(r"\d+", name).group())
        assert assaf_risk.turn_band(first) == band
        if first:
            assert assaf_risk.turn_band(first - 1) == band - 1


# -- what the report writes -----------------------------------------------------------------


def _option(name: str) -> str:
    return REPORT_ARGS[REPORT_ARGS.index(name) + 1]


def test_the_report_writes_the_declared_format(report):
    out = report / "out"
    for file, spec in fmt.TABLES.items():
        with open(out / file, newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle))
        assert header == spec.names, file
    meta = json.loads((out / fmt.META_FILE).read_text(encoding="utf-8"))
    assert list(meta) == [key for key, _, _ in fmt.META]
    assert meta["format_version"] == fmt.FORMAT_VERSION
    assert meta["yaniv_sim"] == __version__
    assert meta["games"] == int(_option("--games"))
    assert meta["players"] == [int(p) for p in _option("--players").split(",")]
    assert Rules.from_dict(meta["rules"]) == Rules()


def test_reading_parses_by_the_declared_types_and_writes_back_the_same_bytes(report):
    out = report / "out"
    tables = fmt.read_tables(out)
    assert tables.rules == Rules()
    for file, spec in fmt.TABLES.items():
        frame = tables.frames[file]
        assert list(frame.columns) == spec.names
        for column in spec.columns:
            kind = frame[column.name].dtype
            assert kind == (object if column.dtype == "str" else column.dtype), column.name
        # an independent parse of the same file holds the same values
        assert len(frame) > 0
        pd.testing.assert_frame_equal(frame, pd.read_csv(out / file), check_dtype=False)
        assert not frame.duplicated(list(spec.keys)).any()
        assert fmt.table_csv(file, frame) == (out / file).read_text(encoding="utf-8")


# -- the advisor on the report's folder -----------------------------------------------------


def _text_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _covered_cell(out: Path) -> tuple[dict[str, str], dict[str, str]]:
    """A decision-table row with a verdict and its assaf-risk row with 30+ points, as text."""
    risks = {
        (r["players"], r["opponents"], r["hand_value"], r["fewest"], r["band"]): r
        for r in _text_rows(out / "assaf-risk.csv")
    }
    best = None
    for row in _text_rows(out / "decision-table.csv"):
        players = str(int(row["opponents"]) + 1)
        risk = risks.get((players, row["opponents"], row["hand_value"], row["fewest"],
                          row["band"]))  # fmt: skip
        usable = row["verdict"] != "too few" and risk and int(risk["n"]) >= 30
        if usable and (best is None or int(row["n"]) > int(best[0]["n"])):
            best = (row, risk)
    assert best is not None, "the quick report covers no cell; the fixture is too small"
    return best


def _hand(value: int) -> str:
    """A one-card hand worth ``value`` points (0 to 10)."""
    return "JK" if value == 0 else {1: "AS", 10: "TS"}.get(value, f"{value}S")


def test_the_advisor_reads_the_cell_of_its_situation(report):
    out = report / "out"
    row, risk = _covered_cell(out)
    opponents, fewest = int(row["opponents"]), int(row["fewest"])
    turn = int(re.match(r"\d+", row["turns"]).group())  # the band's first turn
    counts = [fewest] + [Rules().hand_size] * (opponents - 1)
    advice = advise(_hand(int(row["hand_value"])), counts, turn, Rules(), tables=out)
    assert advice.value == int(row["hand_value"])
    assert advice.simulated["n"] == int(risk["n"]) and isinstance(advice.simulated["n"], int)
    for key in ("risk", "low", "high"):
        assert advice.simulated[key] == float(risk[key])
    assert set(advice.table) == set(row)
    for key, text in row.items():
        got = advice.table[key]
        if text == "":
            assert math.isnan(got), key
        elif key in ("turns", "verdict"):
            assert got == text
        else:
            assert got == (int(text) if re.fullmatch(r"-?\d+", text) else float(text)), key
            assert isinstance(got, int) == bool(re.fullmatch(r"-?\d+", text)), key
    said = str(advice)
    assert f"{int(risk['n']):,} positions" in said and f"{int(row['n']):,} simulated" in said
    word = {"call": "call.", "wait": "wait.", "too close": "too close to tell."}[row["verdict"]]
    assert f"Verdict: {word}" in said


def test_a_cell_the_tables_lack_gives_a_note(report):
    out = report / "out"
    covered = {
        (int(r["opponents"]), int(r["hand_value"]), int(r["fewest"]), r["turns"])
        for r in _text_rows(out / "decision-table.csv")
        if r["verdict"] != "too few"
    }
    lacking = [(value, fewest, name) for value in range(Rules().threshold + 1)
               for fewest in range(1, Rules().hand_size + 1) for name in fmt.BAND_NAMES
               if (2, value, fewest, name) not in covered]  # fmt: skip
    assert lacking, "the quick report covers every cell at 3 players"
    value, fewest, name = lacking[0]
    turn = int(re.match(r"\d+", name).group())
    advice = advise(_hand(value), [fewest, Rules().hand_size], turn, Rules(), tables=out)
    assert advice.table is None and "too few positions like this one" in advice.tables_note
    if advice.solved is not None and advice.solved["verdict"] is not None:
        # no simulated verdict: the shipped solved strategy's cell decides
        assert advice.verdict.startswith(f"Verdict: {advice.solved['verdict']}, as the solved")
    else:
        assert "no simulated verdict" in advice.verdict


# -- broken folders -------------------------------------------------------------------------


def _csv_edit(file: str, change):
    def edit(folder: Path) -> None:
        frame = pd.read_csv(folder / file, dtype=str, keep_default_na=False)
        change(frame).to_csv(folder / file, index=False)

    return edit


def _json_edit(change):
    def edit(folder: Path) -> None:
        path = folder / fmt.META_FILE
        meta = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(change(meta)), encoding="utf-8")

    return edit


def _text_edit(file: str, change):
    def edit(folder: Path) -> None:
        path = folder / file
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")

    return edit


def _set(frame: pd.DataFrame, column: str, text: str) -> pd.DataFrame:
    frame.loc[0, column] = text
    return frame


DECISION_FIELDS = len(fmt.TABLES["decision-table.csv"].columns)


def _one_more_field(text: str) -> str:
    """Every row but the header with a field more (pandas would take the first as an index)."""
    header, *rows = text.splitlines()
    return "\n".join([header] + [row + ",x" for row in rows]) + "\n"


BROKEN = {
    "missing column": (
        _csv_edit("decision-table.csv", lambda f: f.drop(columns="gain_low")),
        [
            "decision-table.csv has no column 'gain_low'",
            f"format {fmt.FORMAT_VERSION} expects opponents,",
        ],
    ),
    "extra column": (
        _csv_edit("assaf-risk.csv", lambda f: f.assign(colour="red")),
        ["assaf-risk.csv has a column 'colour'", "does not declare"],
    ),
    "newer version": (
        _json_edit(lambda m: {**m, "format_version": fmt.FORMAT_VERSION + 1}),
        [
            f"report-tables.json is format {fmt.FORMAT_VERSION + 1}",
            f"reads format {fmt.FORMAT_VERSION}",
        ],
    ),
    "no version": (
        _json_edit(lambda m: {k: v for k, v in m.items() if k != "format_version"}),
        ["report-tables.json records no format_version"],
    ),
    "malformed JSON": (
        _text_edit(fmt.META_FILE, lambda t: t[: len(t) // 2]),
        ["report-tables.json is not valid JSON"],
    ),
    "JSON not an object": (
        _text_edit(fmt.META_FILE, lambda t: "[1, 2]"),
        ["report-tables.json holds no JSON object"],
    ),
    "setting missing": (
        _json_edit(lambda m: {k: v for k, v in m.items() if k != "policy"}),
        ["report-tables.json has no 'policy'"],
    ),
    "setting of the wrong type": (
        _json_edit(lambda m: {**m, "seed": "zero"}),
        ["report-tables.json 'seed' is \"zero\", not int"],
    ),
    "unreadable rules": (
        _json_edit(lambda m: {**m, "rules": {**m["rules"], "threshold": "low"}}),
        ["report-tables.json has rules this yaniv-sim does not read", "threshold"],
    ),
    "text in an integer column": (
        _csv_edit("assaf-risk.csv", lambda f: _set(f, "n", "many")),
        ["assaf-risk.csv line 2: column 'n' holds 'many', not an integer"],
    ),
    "a fraction in an integer column": (
        _csv_edit("decision-table.csv", lambda f: _set(f, "win_n", "2.5")),
        ["decision-table.csv line 2: column 'win_n' holds '2.5', not an integer"],
    ),
    "empty cell where none is allowed": (
        _csv_edit("decision-table.csv", lambda f: _set(f, "gain", "")),
        ["decision-table.csv line 2: column 'gain' holds '', not a number"],
    ),
    "unknown verdict": (
        _csv_edit("decision-table.csv", lambda f: _set(f, "verdict", "maybe")),
        ["decision-table.csv line 2: column 'verdict' holds 'maybe', not one of 'call'"],
    ),
    "a key twice": (
        _csv_edit("assaf-risk.csv", lambda f: pd.concat([f, f.iloc[[0]]], ignore_index=True)),
        ["assaf-risk.csv line", "a second row for the same players, opponents"],
    ),
    "an empty file": (
        _text_edit("assaf-risk.csv", lambda t: ""),
        ["assaf-risk.csv is empty", f"format {fmt.FORMAT_VERSION} expects players,"],
    ),
    "a field too many on every row": (
        _text_edit("decision-table.csv", _one_more_field),
        [
            f"decision-table.csv line 2: {DECISION_FIELDS + 1} fields; the header has "
            f"{DECISION_FIELDS}"
        ],
    ),
    "not text": (
        lambda folder: (folder / "assaf-risk.csv").write_bytes(b"players,\xff\xfe\n"),
        ["assaf-risk.csv is not a CSV table"],
    ),
    "a file missing": (
        lambda folder: (folder / "decision-table.csv").unlink(),
        ["not a report folder (no decision-table.csv)"],
    ),
}


@pytest.fixture(params=list(BROKEN))
def broken(request, report, tmp_path) -> tuple[Path, list[str]]:
    folder = tmp_path / "tables"
    shutil.copytree(report / "out", folder)
    edit, expected = BROKEN[request.param]
    edit(folder)
    return folder, expected


def test_a_broken_folder_gives_one_line_naming_it(broken):
    folder, expected = broken
    with pytest.raises(fmt.TablesError) as caught:
        advise("AS 2D", [3, 4], 0, Rules(), tables=folder)
    message = str(caught.value)
    assert message.startswith(f"tables {folder}: ")
    assert "\n" not in message
    assert "run yaniv-sim report" in message
    for part in expected:
        assert part in message


def test_a_broken_folder_through_the_cli(broken):
    folder, expected = broken
    result = CliRunner().invoke(main, ["advise", "--hand", "AS 2D", "--opponents", "3,4",
                                       "--tables", str(folder)])  # fmt: skip
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"Error: --tables {folder}: ")
    for part in expected:
        assert part in lines[0]


# -- the writer's checks --------------------------------------------------------------------


@pytest.fixture
def frames(report) -> dict[str, pd.DataFrame]:
    return fmt.read_tables(report / "out").frames


def test_the_writer_refuses_what_the_declaration_does_not_allow(frames):
    risk, table = frames["assaf-risk.csv"], frames["decision-table.csv"]
    refused = {
        "columns": ("assaf-risk.csv", risk[risk.columns[::-1]]),
        "a column left out": ("decision-table.csv", table.drop(columns="called")),
        "float counts": ("assaf-risk.csv", risk.astype({"n": "float64"})),
        "an empty gain": ("decision-table.csv", table.assign(gain=float("nan"))),
        "an unknown verdict": ("decision-table.csv", table.assign(verdict="maybe")),
        "a key twice": ("assaf-risk.csv", pd.concat([risk, risk.iloc[[0]]])),
    }
    for file, frame in refused.values():
        with pytest.raises(ValueError, match=re.escape(file)):
            fmt.table_csv(file, frame)
    # narrower integers are the declared kind and write the same text
    narrow = risk.astype({"hand_value": "int8", "fewest": "int8"})
    assert fmt.table_csv("assaf-risk.csv", narrow) == fmt.table_csv("assaf-risk.csv", risk)


def test_the_metadata_writer_records_the_version_and_checks_its_fields():
    meta = json.loads(fmt.meta_json(Rules.preset("nordic"), "best", 7, 100, (3, 4)))
    assert meta["format_version"] == fmt.FORMAT_VERSION and meta["yaniv_sim"] == __version__
    assert Rules.from_dict(meta["rules"]) == Rules.preset("nordic")
    assert (meta["policy"], meta["seed"], meta["games"], meta["players"]) == ("best", 7, 100,
                                                                              [3, 4])  # fmt: skip
    with pytest.raises(ValueError, match="'seed'"):
        fmt.meta_json(Rules(), "best", "7", 100, (3, 4))


def test_the_advisor_without_tables_loads_neither_pandas_nor_scipy_stats():
    # a question at the table should not wait for the analysis stack: without report
    # tables the advisor reads only the shipped solution (yaniv_sim.solved) and the odds
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from yaniv_sim.advice import advise\n"
        "answer = advise('AS 2H', [5, 5, 5])\n"
        "assert answer.may_call and answer.solved is not None, answer\n"
        "print(sorted(m for m in ('pandas', 'scipy.stats', 'scipy.optimize', 'yaniv_sim.solve')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
