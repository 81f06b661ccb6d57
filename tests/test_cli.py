"""The command line, as a user runs it: output, files, and one-line errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from yaniv_sim.cli import main


def run(*args):
    result = CliRunner().invoke(main, list(args))
    return result


def one_line_error(result, *fragments):
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_rules_shows_every_field_of_a_preset_with_variants_and_settings():
    result = run("rules", "--rules", "nordic", "--variant", "slapdown", "--set", "limit=100",
                 "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["threshold"] == 5 and data["slapdown"] is True and data["limit"] == 100
    assert data["milestones"] == {"100": 50, "200": 100}


def test_rules_from_a_toml_file(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('preset = "nordic"\nvariants = ["yaniv9"]\nmilestones = { 50 = 25 }\n')
    result = run("rules", "--rules", str(path), "--players", "4")
    assert result.exit_code == 0, result.output
    assert "threshold" in result.output and " 9" in result.output
    assert "4 players: 1 deck(s) of 54 cards" in result.output


def test_tune_optimizes_several_parameters():
    result = run("tune", "heuristic", "--param", "call_at", "--range", "3..7", "--param",
                 "max_risk", "--range", "0.05..0.5", "--method", "optimize", "--evaluations",
                 "3", "--players", "2", "--games", "40", "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "scipy.optimize: 3 settings, in the order tried" in result.output
    assert "best: heuristic:call_at=" in result.output


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["rules", "--rules", "swedish"], ["swedish", "standard"]),
        (["rules", "--variant", "fast"], ["unknown variant 'fast'", "yaniv5"]),
        (["rules", "--set", "threshold=99"], ["threshold", "0 to 15"]),
        (["rules", "--set", "colour=red"], ["unknown rule field 'colour'"]),
        (["rules", "--set", "threshold"], ["FIELD=VALUE"]),
        (["rules", "--rules", "missing.toml"], ["no such file"]),
        (["rules", "--set", "decks=1", "--set", "hand_size=7", "--players", "8"],
         ["8 players cannot be dealt 7 cards"]),
        (["legal", "4D 5D XX"], ["'XX'", "accepted"]),
        (["legal", "4D 4D 4D"], ["written 3 times"]),
        (["round", "--set", "decks=1", "--set", "hand_size=7", "--players", "8"],
         ["cannot be dealt"]),
        (["round", "--policy", "genius"], ["unknown policy 'genius'", "max-shed"]),
        (["round", "--policy", "random:call=2"], ["call=", "0 to 1"]),
        (["game", "--players", "3", "--policy", "max-shed", "--policy", "random"],
         ["2 given for 3 players"]),
    ],
)  # fmt: skip
def test_user_errors_are_one_clear_line(args, fragments):
    one_line_error(run(*args), *fragments)


def test_bad_option_values_exit_non_zero_without_traceback():
    result = run("round", "--players", "9")
    assert result.exit_code == 2
    assert "9 is not in the range 2<=x<=8" in result.output
    assert "Traceback" not in result.output


def test_legal_lists_discards_with_takeable_cards():
    result = run("legal", "4D 5D JK 7D", "--rules", "nordic")
    assert result.exit_code == 0, result.output
    assert "run    4D 5D JK 7D" in result.output
    assert "next may take 4D 7D" in result.output


def test_legal_lists_both_readings_of_one_card_with_jokers():
    result = run("legal", "2C JK JK")
    assert result.exit_code == 0, result.output
    offers = {}
    for line in result.output.splitlines()[1:]:
        laid, _, take = line.partition("next may take ")
        kind, *cards = laid.split()[:-2]  # drop "2 points;"
        offers[kind, " ".join(cards)] = take
    assert offers["set", "2C JK JK"] == "2C JK JK"
    assert offers["run", "2C JK JK"] == "2C JK"
    assert offers["run", "JK 2C JK"] == "JK JK"
    assert ("run", "JK JK 2C") not in offers


def test_round_prints_a_replayable_transcript():
    a = run("round", "--players", "3", "--seed", "7")
    b = run("round", "--players", "3", "--seed", "7")
    assert a.exit_code == 0 and a.output == b.output
    assert "seat 0 dealt" in a.output
    assert ("calls Yaniv" in a.output) or ("slaps down" in a.output)


def test_game_prints_the_winner():
    result = run("game", "--players", "2", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert "wins after" in result.output


def test_demo_writes_a_report(tmp_path):
    out = tmp_path / "reports"
    result = run("demo", "--rounds", "20000", "--out", str(out), "--seed", "5")
    assert result.exit_code == 0, result.output
    text = (out / "selfplay.md").read_text()
    assert "20,000 rounds" in text
    assert "## Assaf risk by the caller's hand value" in text
    assert "exact by combinatorics" in text


def test_demo_refuses_an_unwritable_path(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line_error(run("demo", "--rounds", "100", "--out", str(blocker / "sub")))


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["simulate", "--players", "4"], ["give either --rounds N or --games N"]),
        (["simulate", "--rounds", "10", "--games", "3"], ["give either --rounds N or --games N"]),
        (["simulate", "--rounds", "10", "--policy", "genius"], ["unknown policy 'genius'"]),
        (["simulate", "--rounds", "10", "--variant", "x"], ["unknown variant 'x'"]),
        (["simulate", "--rounds", "10", "--set", "hand_size=9"], ["hand_size", "5 to 7"]),
        (["simulate", "--rounds", "10", "--rules", "nordic", "--set", "decks=2", "--players", "3"],
         ["two decks are not allowed for 3 players"]),
        (["simulate", "--rounds", "10", "--policy", "max-shed", "--policy", "random"],
         ["2 given for 4 players"]),
    ],
)  # fmt: skip
def test_simulate_user_errors_are_one_clear_line(args, fragments, tmp_path):
    one_line_error(run(*args, "--out", str(tmp_path / "ds")), *fragments)
    assert not (tmp_path / "ds").exists(), "nothing is written for a bad request"


def test_simulate_refuses_an_unwritable_output(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line_error(run("simulate", "--rounds", "10", "--out", str(blocker / "ds")), "--out")


def test_simulate_reports_an_unreachable_scheduler(tmp_path):
    result = run("simulate", "--rounds", "10", "--dask", "tcp://127.0.0.1:9",
                 "--out", str(tmp_path / "ds"))  # fmt: skip
    one_line_error(result, "--dask tcp://127.0.0.1:9", "cannot reach the scheduler")


@pytest.mark.parametrize("option", [["--workers", "0"], ["--rounds", "-5"], ["--seed", "-1"]])
def test_simulate_bad_numbers_exit_2(option, tmp_path):
    result = run("simulate", "--rounds", "10", *option, "--out", str(tmp_path / "ds"))
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_simulate_writes_a_dataset_and_says_so(tmp_path):
    out = tmp_path / "ds"
    result = run("simulate", "--players", "3", "--rounds", "2000", "--workers", "1",
                 "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "2,000 rounds played" in result.output
    assert len(pd.read_parquet(out / "rounds")) == 2000
    again = run("simulate", "--players", "3", "--rounds", "2000", "--out", str(out))
    assert again.exit_code == 0 and "nothing to do" in again.output


def test_compare_prints_a_table_with_intervals():
    result = run("compare", "best", "max-shed", "--players", "3", "--games", "200",
                 "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "95% interval" in result.output
    assert "best beats max-shed" in result.output


def test_tune_shows_the_curve_and_the_best_value():
    result = run("tune", "heuristic", "--param", "call_at", "--values", "0,7", "--players", "2",
                 "--games", "150", "--workers", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.strip().startswith("0 ") for line in lines)
    assert "<- best" in result.output and "best: heuristic" in result.output


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["compare", "best"], ["at least two policies"]),
        (["compare", "best", "genius"], ["unknown policy 'genius'"]),
        (["compare", "a", "b", "c", "--players", "2"], ["3 policies cannot all sit"]),
        (["tune", "best", "--param", "nerve", "--values", "1,2"], ["unknown parameter 'nerve'"]),
        (["tune", "best", "--param", "call_at", "--values", "x"], ["--values 'x'"]),
        (["tune", "best", "--param", "call_at", "--values", "7..3"], ["--values '7..3'"]),
        (["tune", "best", "--param", "call_at", "--values", "16"], ["outside its range 0 to 15"]),
        (["tune", "best", "--param", "call_at", "--param", "keep", "--values", "3"],
         ["2 --param but 1 --values"]),
        (["tune", "best", "--param", "keep", "--range", "0..1"], ["--range is for --method"]),
        (["tune", "best", "--param", "keep", "--method", "optimize", "--values", "1"],
         ["--values is for --method grid"]),
        (["tune", "best", "--param", "keep", "--param", "call_at", "--method", "optimize",
          "--range", "0..1"], ["2 --param but 1 --range"]),
        (["tune", "best", "--param", "keep", "--method", "optimize", "--range", "1..0"],
         ["--range '1..0'"]),
        (["tune", "best", "--param", "keep", "--method", "optimize", "--range", "0..9"],
         ["outside its allowed range 0 to 5"]),
    ],
)  # fmt: skip
def test_compare_and_tune_user_errors(args, fragments):
    one_line_error(run(*args), *fragments)


def test_settings_files_that_are_not_text_or_not_files(tmp_path):
    binary = tmp_path / "rules.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    one_line_error(run("rules", "--rules", str(binary)), f"--rules {binary}: not a text file")
    policy = tmp_path / "policy.json"
    policy.write_bytes(b"\x9d\xff\x00 binary")
    result = run(
        "simulate", "--rounds", "10", "--policy", str(policy), "--out", str(tmp_path / "d")
    )
    one_line_error(result, f"policy file {policy}: not a text file")
    folder = tmp_path / "x.toml"
    folder.mkdir()
    one_line_error(run("rules", "--rules", str(folder)), f"{folder}: is a folder, not a file")


def test_legal_counts_copies_and_prints_nothing_before_an_error():
    result = run("legal", "AS AS AS AS AS")
    one_line_error(result, "card 'AS' written 5 times", "at most 2 copies")
    result = run("legal", "")
    one_line_error(result, "hand")
    assert result.output.startswith("Error: ")
