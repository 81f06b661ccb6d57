"""The batch simulator and its dataset: reproducible, resumable, never mixed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from yaniv_sim import Rules, engine
from yaniv_sim.runs import Interrupted, simulate
from yaniv_sim.storage import marked_chunks, open_dataset

RULES = Rules.preset("standard", ["slapdown"])
POLICIES = ["max-shed", "random:call=0.6,pile=0.5", "max-shed"]


def _tables(path):
    data = open_dataset(path)
    return data.rounds, data.games, data.decisions


def _same(a: pd.DataFrame | None, b: pd.DataFrame | None) -> None:
    assert (a is None) == (b is None)
    if a is not None:
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


@pytest.fixture(scope="module")
def rounds_reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "rounds"
    simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=out, workers=1, chunk_size=4_000)
    return out


def test_rounds_identical_whatever_workers_and_chunks(rounds_reference, tmp_path):
    simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=tmp_path / "b", workers=2,
             chunk_size=2_500)  # fmt: skip
    for a, b in zip(_tables(rounds_reference), _tables(tmp_path / "b"), strict=True):
        _same(a, b)


def test_games_identical_whatever_workers_and_chunks(tmp_path):
    rules = Rules.preset("nordic", ["milestone-theft"])
    simulate(rules, 3, POLICIES, games=120, seed=3, out=tmp_path / "a", workers=1, chunk_size=50)
    simulate(rules, 3, POLICIES, games=120, seed=3, out=tmp_path / "b", workers=2, chunk_size=17)
    for a, b in zip(_tables(tmp_path / "a"), _tables(tmp_path / "b"), strict=True):
        _same(a, b)
    games = open_dataset(tmp_path / "a").games
    assert len(games) == 120 and (games["winner"] >= 0).all()
    assert (games["place_0"] >= 1).all()
    assert ((games[[f"place_{s}" for s in range(3)]] == 1).sum(axis=1) == 1).all()


def test_rounds_rows_replay_with_the_engine(rounds_reference):
    rounds = open_dataset(rounds_reference).rounds
    names = open_dataset(rounds_reference).policy_names()
    spread = np.unique(np.linspace(0, len(rounds) - 1, 40).astype(int))
    for i in spread:
        row = rounds.iloc[i]
        seats = [names[int(row[f"policy_{s}"])] for s in range(3)]
        rec = engine.play_round(RULES, 3, 7, seats, round=int(row["round"]),
                                starter=int(row["starter"]), record=False)  # fmt: skip
        assert rec.outcome == row["outcome"]
        assert rec.turns == row["turns"]
        assert rec.hand_values.tolist() == [row[f"hand_{s}"] for s in range(3)]
        assert rec.scores.tolist() == [row[f"score_{s}"] for s in range(3)]


def test_games_rows_replay_with_the_engine(tmp_path):
    simulate(RULES, 4, "max-shed", games=20, seed=5, out=tmp_path / "g", workers=1)
    data = open_dataset(tmp_path / "g")
    for game in (0, 7, 19):
        record = engine.play_game(RULES, 4, 5, "max-shed", game=game)
        rows = data.rounds[data.rounds["game"] == game]
        assert len(rows) == record.rounds
        assert rows[[f"score_{s}" for s in range(4)]].to_numpy().tolist() == record.scores.tolist()
        assert rows[[f"total_{s}" for s in range(4)]].to_numpy().tolist() == record.totals.tolist()
        assert data.games.loc[data.games["game"] == game, "winner"].item() == record.winner


def test_every_policy_sits_in_every_seat_equally(rounds_reference):
    rounds = open_dataset(rounds_reference).rounds
    full = rounds.iloc[: 9 * (len(rounds) // 9)]
    for seat in range(3):
        counts = full[f"policy_{seat}"].value_counts().sort_index()
        # policy 0 (max-shed) holds two of three seats, policy 1 the other
        assert counts.tolist() == [2 * len(full) // 3, len(full) // 3]
    starters = pd.crosstab(full["starter"], full["policy_0"])
    assert starters.to_numpy().min() > 0


def test_decisions_are_every_moment_a_call_was_possible(rounds_reference):
    data = open_dataset(rounds_reference)
    dec, rounds = data.decisions, data.rounds
    assert (dec["hand_value"] <= RULES.threshold).all()
    # max-shed calls at every such moment
    shed = dec[dec["policy"] == 0]
    assert shed["called"].all()
    # every called round is one called decision, at the round's last turn
    called = dec[dec["called"]]
    yaniv = rounds[rounds["outcome"].isin(["yaniv", "assaf"])]
    assert len(called) == len(yaniv)
    merged = called.merge(yaniv, on=["game", "round"])
    assert (merged["seat"] == merged["caller"]).all()
    assert (merged["hand_value"] == merged["caller_value"]).all()
    assert (merged["turn"] == merged["turns"]).all()
    assaf = merged["lowest_opponent"] <= merged["hand_value"]
    assert (assaf == (merged["outcome"] == "assaf")).all()


def test_a_decision_records_the_seats_own_card_count(tmp_path):
    # a seat's cards at the start of its turn are what the previous player saw it hold
    # (as its first opponent) a turn before: nobody else plays in between
    simulate(RULES, 3, "best", rounds=3_000, seed=3, out=tmp_path / "best", workers=1)
    dec = open_dataset(tmp_path / "best").decisions
    assert dec["hand_cards"].between(1, RULES.hand_size).all()
    before = dec[["game", "round", "turn", "seat", "opp1_cards"]].assign(turn=dec["turn"] + 1)
    pairs = dec.merge(before, on=["game", "round", "turn"], suffixes=("", "_before"))
    pairs = pairs[pairs["seat"] == (pairs["seat_before"] + 1) % 3]
    assert len(pairs) > 1_000
    assert (pairs["hand_cards"] == pairs["opp1_cards_before"]).all()


def test_schema_is_compact_and_documented(rounds_reference):
    data = open_dataset(rounds_reference)
    r = data.rounds
    assert list(r.columns[:10]) == [
        "game", "round", "players", "starter", "caller", "caller_value", "outcome", "winner",
        "turns", "reshuffles",
    ]  # fmt: skip
    assert isinstance(r["outcome"].dtype, pd.CategoricalDtype)
    assert r["hand_0"].dtype == np.int16 and r["policy_2"].dtype == np.int8
    assert data.decisions["called"].dtype == bool
    assert {"opp1_cards", "opp2_took", "opp2_took_value", "lowest_opponent"} <= set(
        data.decisions.columns
    )
    # plain pandas reads a table folder directly
    direct = pd.read_parquet(rounds_reference / "rounds")
    assert len(direct) == len(r)


def test_interrupted_run_resumes_to_the_identical_dataset(rounds_reference, tmp_path):
    out = tmp_path / "cut"

    def stop_after_first(index):
        raise KeyboardInterrupt

    with pytest.raises(Interrupted, match="kept 1 of 3 chunks"):
        simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=out, workers=1, chunk_size=4_000,
                 on_chunk=stop_after_first)  # fmt: skip
    assert marked_chunks(out) == {0}
    # a leftover temporary file of a killed writer trips no reader
    (out / "rounds" / ".part-000001.parquet.tmp-999").write_bytes(b"half a file")
    assert len(pd.read_parquet(out / "rounds")) == 4_000
    with pytest.raises(ValueError, match=r"resume it \(resume=True\)"):
        simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=out, workers=1, chunk_size=4_000)
    result = simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=out, workers=1,
                      chunk_size=4_000, resume=True)  # fmt: skip
    assert result.chunks_run == 2 and result.complete
    for a, b in zip(_tables(rounds_reference), _tables(out), strict=True):
        _same(a, b)


def test_a_different_request_is_refused(rounds_reference):
    with pytest.raises(ValueError, match=r"different settings \(seed\)"):
        simulate(RULES, 3, POLICIES, rounds=9_000, seed=8, out=rounds_reference, workers=1,
                 chunk_size=4_000)  # fmt: skip
    with pytest.raises(ValueError, match="rules"):
        simulate(Rules(), 3, POLICIES, rounds=9_000, seed=7, out=rounds_reference, workers=1,
                 chunk_size=4_000)  # fmt: skip


def test_a_folder_that_is_not_a_dataset_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="not a yaniv-sim dataset"):
        simulate(RULES, 3, rounds=10, out=tmp_path, workers=1)


def test_rerunning_a_complete_dataset_does_nothing(rounds_reference):
    result = simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=rounds_reference,
                      workers=1, chunk_size=4_000)  # fmt: skip
    assert result.chunks_run == 0 and result.complete
    assert "nothing to do" in result.summary()


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_data(rounds_reference, tmp_path):
    simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=tmp_path / "dask", workers=2,
             chunk_size=4_000, dask="local")  # fmt: skip
    for a, b in zip(_tables(rounds_reference), _tables(tmp_path / "dask"), strict=True):
        _same(a, b)


def test_policy_specs_are_written_one_way():
    from yaniv_sim.simulation import SimRequest

    a = SimRequest.make(RULES, 3, ["random:call=0.3, pile=0.5", " max-shed", "random"], rounds=9)
    b = SimRequest.make(RULES, 3, ["random:pile=0.50,call=0.3", "max-shed", "random:call=0.5"],
                        rounds=9)  # fmt: skip
    assert a.policies == b.policies == ("random:call=0.3", "max-shed", "random")
    assert a.to_dict() == b.to_dict()


def test_round_winner_is_stored(rounds_reference):
    rounds = open_dataset(rounds_reference).rounds
    yaniv = rounds[rounds["outcome"] == "yaniv"]
    assert (yaniv["winner"] == yaniv["caller"]).all()
    assert (rounds.loc[rounds["outcome"] == "void", "winner"] == -1).all()


def test_output_to_an_fsspec_url(rounds_reference, tmp_path):
    """Any fsspec URL works as the output: here the in-memory filesystem and file://."""
    simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out="memory://yaniv/run", workers=1,
             chunk_size=4_000)  # fmt: skip
    for a, b in zip(_tables(rounds_reference), _tables("memory://yaniv/run"), strict=True):
        _same(a, b)
    url = "file://" + str(tmp_path / "viaurl")
    simulate(RULES, 3, POLICIES, rounds=9_000, seed=7, out=url, workers=2, chunk_size=4_000)
    for a, b in zip(_tables(rounds_reference), _tables(url), strict=True):
        _same(a, b)


def test_an_unknown_url_scheme_is_a_clear_error():
    with pytest.raises(ValueError, match="cannot use this location"):
        simulate(RULES, 3, rounds=10, out="nosuchscheme://x/y", workers=1)


def test_policies_from_data_files(tmp_path):
    from yaniv_sim.simulation import SimRequest

    toml = tmp_path / "careful.toml"
    toml.write_text('policy = "random"\n[params]\ncall = 0.2\npile = 0.8\n')
    js = tmp_path / "careful.json"
    js.write_text('{"policy": "random", "pile": 0.8, "call": 0.2}')
    a = SimRequest.make(RULES, 2, [str(toml), str(js)], rounds=5)
    assert a.policies == ("random:call=0.2,pile=0.8",) * 2
    bad = tmp_path / "bad.toml"
    bad.write_text('policy = "random"\ncourage = 3\n')
    with pytest.raises(ValueError, match="unknown parameter 'courage'"):
        SimRequest.make(RULES, 2, str(bad), rounds=5)
    with pytest.raises(ValueError, match="no such file"):
        SimRequest.make(RULES, 2, str(tmp_path / "missing.toml"), rounds=5)
