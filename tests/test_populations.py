"""scripts/populations.py: best responses against other tables, and extending a file with more."""

from __future__ import annotations

import json

import pytest

from tests.conftest import load_script
from yaniv_sim import solve


def _script():
    return load_script("populations")


SHIPPED = sorted(solve.DATA.glob("*-populations.json"))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_a_shipped_file_agrees_with_itself_and_with_the_shipped_solution(path):
    saved = json.loads(path.read_text())
    script = _script()
    tables = script.tables_of(saved)
    assert list(tables) == ["fixed point", *saved["populations"]]
    shipped = solve.shipped(saved["rules"], saved["players"])
    assert tables["fixed point"] == solve.read_table(shipped)
    cells, holds = script.verdicts(tables)
    assert cells == saved["cells"]
    assert holds == saved["holds"]
    for key, say in holds.items():
        assert len(set(say.values())) == 1, key
    # every population has its solve and its three matches, each mean inside its interval
    for entry in saved["populations"].values():
        assert entry["iterations"] >= 1
        for name in ("best response", "best", "fixed point"):
            low, high = entry[name][1], entry[name][2]
            assert low <= entry[name][0] <= high


SMALL = ["--rules", "standard", "--players", "2", "--games", "300", "--iterations", "1",
         "--deals", "40", "--workers", "1"]  # fmt: skip


def _run(script, out, against, *more):
    assert script.main([*SMALL, "--against", against, "--out", str(out), *more]) == 0
    return json.loads((out / "populations.json").read_text())


def test_adding_populations_gives_what_one_run_over_all_of_them_gives(tmp_path):
    script = _script()
    first = _run(script, tmp_path / "a", "max-shed")
    added = _run(script, tmp_path / "b", "max-shed,cautious", "--add",
                 str(tmp_path / "a" / "populations.json"))  # fmt: skip
    whole = _run(script, tmp_path / "c", "max-shed,cautious")
    assert list(added["populations"]) == ["max-shed", "cautious"]
    # the population already in the file is taken from it, not run again
    assert added["populations"]["max-shed"] == first["populations"]["max-shed"]
    assert not (tmp_path / "b" / "against-max-shed").exists()

    def timeless(result):  # the populations without their run times
        return {n: {k: v for k, v in e.items() if k != "seconds"}
                for n, e in result["populations"].items()}  # fmt: skip

    assert timeless(added) == timeless(whole)
    for key in ("cells", "holds", "rules", "players", "seed", "games", "deals"):
        assert added[key] == whole[key], key
    assert added["command"].startswith(first["command"] + "; ")


def test_adding_to_a_file_made_otherwise_is_refused(tmp_path, capsys):
    script = _script()
    _run(script, tmp_path / "a", "max-shed")
    other = [*SMALL[:-4], "--deals", "50", "--workers", "1"]
    with pytest.raises(SystemExit) as stop:
        script.main([*other, "--against", "cautious", "--out", str(tmp_path / "b"),
                     "--add", str(tmp_path / "a" / "populations.json")])  # fmt: skip
    assert stop.value.code != 0
    assert "deals 40, not 50" in capsys.readouterr().err


def test_by_default_every_preset_is_a_population():
    from yaniv_sim.policies import PRESETS

    assert set(_script().POPULATIONS) == {"max-shed", *PRESETS}
