"""scripts/long_match.py: a duplicate match in saved chunks is compare's match, and resumes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import load_script
from yaniv_sim.compare import compare, deal_interval
from yaniv_sim.rules import Rules

ARGS = ["cautious", "best", "--rules", "standard", "--players", "4", "--deals", "23",
        "--chunk", "7", "--workers", "1"]  # fmt: skip


def test_the_chunks_are_compares_deals_and_a_second_run_resumes(tmp_path):
    script = load_script("long_match")
    out = tmp_path / "m"
    assert script.main([*ARGS, "--out", str(out)]) == 0
    saved = json.loads((out / "match.json").read_text())
    c = compare(["cautious", "best"], Rules.preset("standard"), 4, 23, seed=2026, workers=1)
    wins = np.concatenate([np.load(out / f"chunk-{i:03d}.npz")["wins"] for i in range(4)])
    assert np.array_equal(wins, c.deal_wins)
    assert saved["deals"] == 23
    assert saved["difference"][0] == pytest.approx(100 * c.pairs["difference"].iloc[0])
    assert saved["win_share"][0] == pytest.approx(100 * c.table["win_rate"].iloc[0])
    assert saved["calls"] == list(c.table["calls"])
    # a lost chunk is played again, and only that one
    (out / "chunk-002.npz").unlink()
    before = (out / "chunk-001.npz").stat().st_mtime_ns
    assert script.main([*ARGS, "--out", str(out)]) == 0
    assert (out / "chunk-001.npz").stat().st_mtime_ns == before
    again = json.loads((out / "match.json").read_text())
    assert again["difference"] == saved["difference"]


def test_a_folder_of_another_match_is_refused(tmp_path, capsys):
    script = load_script("long_match")
    out = tmp_path / "m"
    assert script.main([*ARGS[:6], "--deals", "3", "--chunk", "3", "--workers", "1",
                        "--out", str(out)]) == 0  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        script.main([*ARGS, "--out", str(out)])
    assert stop.value.code != 0
    assert "holds another match" in capsys.readouterr().err


def test_width_stops_at_the_first_chunk_whose_interval_is_narrow_enough(tmp_path):
    script = load_script("long_match")
    args = ["best", "risk-aware", *ARGS[2:]]
    full, part = tmp_path / "full", tmp_path / "part"
    assert script.main([*args, "--out", str(full)]) == 0
    wins = [np.load(full / f"chunk-{i:03d}.npz")["wins"] for i in range(4)]
    widths = []
    for k in range(1, 5):
        w = np.concatenate(wins[:k])
        _, low, high = deal_interval(w[:, 0] - w[:, 1])
        widths.append(100 * (high - low))
    assert widths[2] < widths[1]  # the cut below lies between them
    cut = (widths[1] + widths[2]) / 2
    assert script.main([*args, "--width", str(cut), "--out", str(part)]) == 0
    assert len(list(part.glob("chunk-*.npz"))) == 3
    assert json.loads((part / "match.json").read_text())["deals"] == 21
    assert script.main([*args, "--width", "1000", "--out", str(tmp_path / "one")]) == 0
    assert len(list((tmp_path / "one").glob("chunk-*.npz"))) == 1


def test_a_larger_deals_makes_the_match_longer(tmp_path):
    script = load_script("long_match")
    out = tmp_path / "m"
    short = [*ARGS[:6], "--deals", "10", *ARGS[8:]]
    assert script.main([*short, "--out", str(out)]) == 0
    assert len(np.load(out / "chunk-001.npz")["wins"]) == 3  # a chunk cut short by --deals
    assert script.main([*ARGS, "--out", str(out)]) == 0  # 23 deals: chunk 1 played again
    c = compare(["cautious", "best"], Rules.preset("standard"), 4, 23, seed=2026, workers=1)
    wins = np.concatenate([np.load(out / f"chunk-{i:03d}.npz")["wins"] for i in range(4)])
    assert np.array_equal(wins, c.deal_wins)
    assert json.loads((out / "match.json").read_text())["deals"] == 23
    assert json.loads((out / "request.json").read_text())["deals"] == 23
    # a smaller --deals again plays nothing and keeps the longer chunks
    before = (out / "chunk-001.npz").stat().st_mtime_ns
    assert script.main([*short, "--out", str(out)]) == 0
    assert (out / "chunk-001.npz").stat().st_mtime_ns == before
    assert json.loads((out / "request.json").read_text())["deals"] == 23
