"""Play one chunk of a request and return its tables as pandas DataFrames.

Tables (documented in ``docs/data.md``): ``rounds`` (one row per round),
``games`` (one row per game, games mode only) and ``decisions`` (one row per
turn start at which the acting seat could call).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from yaniv_sim.engine.kernel import (
    D_CALLED,
    D_HAND_CARDS,
    D_LOWEST,
    D_OPP_CARDS,
    D_OPP_KNOWN,
    D_OPP_KNOWN_VALUE,
    D_SEAT,
    D_TURN,
    D_VALUE,
    DECISION_WIDTH,
    LOG_WIDTH,
    N_SUMMARY,
    OUTCOME_NAMES,
    S_CALLER,
    S_CALLER_VALUE,
    S_OUTCOME,
    S_RESHUFFLES,
    S_STARTER,
    S_TURNS,
    S_WINNER,
    RoundOut,
    new_game_scratch,
    new_round_out,
    new_table,
    policy_records,
    rule_record,
    search_workspace,
)
from yaniv_sim.simulation import branches
from yaniv_sim.simulation.kernels import _games_chunk, _rounds_chunk
from yaniv_sim.simulation.request import SimRequest

TABLES = ("rounds", "games", "decisions")
OUTCOME_TYPE = pd.CategoricalDtype(list(OUTCOME_NAMES))


def play_chunk(request: SimRequest, index: int) -> dict[str, pd.DataFrame]:
    """Play chunk ``index`` of ``request``; its tables, keyed by name."""
    first, count = request.chunk_units(index)
    if request.mode == "rounds":
        return _play_rounds_chunk(request, first, count)
    return _play_games_chunk(request, first, count)


def _decision_buffer(rows: int):
    return np.zeros((rows, DECISION_WIDTH), np.int16), np.zeros(1, np.int64)


def _play_rounds_chunk(request: SimRequest, first: int, count: int) -> dict[str, pd.DataFrame]:
    players = request.players
    rules = rule_record(request.rules, players)
    matrices, ids = request.rotations()
    pols, search = policy_records(matrices), search_workspace(matrices, players, request.rules)
    t = new_table(players)
    summaries = np.zeros((count, N_SUMMARY), np.int64)
    values = np.zeros((count, players), np.int64)
    scores = np.zeros((count, players), np.int64)
    rotation = np.zeros(count, np.int64)
    no_log = np.zeros((0, LOG_WIDTH), np.int16)
    decisions = []
    done = 0
    capacity = 2 * count + 2 * request.rules.max_turns + 16
    while done < count:
        dec, dec_n = _decision_buffer(capacity)
        dec_unit = np.zeros(capacity, np.int64)
        out = RoundOut(summaries[done:], values[done:], scores[done:], no_log, dec, dec_n)
        run = (int(rules_rotate(request)), request.seed, first + done, count - done)
        n = _rounds_chunk(rules, pols, search, run, t, out, rotation[done:], dec_unit)
        rows = int(dec_n[0])
        decisions.append((dec[:rows], dec_unit[:rows] + done, np.zeros(rows, np.int64)))
        done += n
        if done < count:
            capacity *= 2
    units = np.arange(first, first + count)
    rounds = _rounds_frame(request, np.zeros(count, np.int64), units, summaries, values, scores,
                           ids[rotation], totals=None)  # fmt: skip
    dec_frame = _decisions_frame(request, decisions, game_of=np.zeros(count, np.int64),
                                 round_of=units, ids=ids[rotation])  # fmt: skip
    return {"rounds": rounds, "decisions": dec_frame}


def _play_games_chunk(request: SimRequest, first: int, count: int) -> dict[str, pd.DataFrame]:
    players = request.players
    rules = request.rules
    rules_rec = rule_record(rules, players)
    matrices, ids = request.rotations()
    pols, search = policy_records(matrices), search_workspace(matrices, players, request.rules)
    t = new_table(players)
    scratch = new_game_scratch(players)
    game_rounds = np.zeros(count, np.int64)
    game_winner = np.zeros(count, np.int64)
    game_totals = np.zeros((count, players), np.int64)
    game_landings = np.zeros((count, players), np.int64)
    game_out = np.zeros((count, players), np.int64)
    rotation = np.zeros(count, np.int64)
    no_log = np.zeros((0, LOG_WIDTH), np.int16)
    round_parts = []
    dec_parts = []
    round_cap = max(64 * min(count, 500), 2 * rules.max_rounds + 1)
    dec_cap = round_cap + 2 * rules.max_turns + 16
    done = 0
    while done < count:
        summaries = np.zeros((round_cap, N_SUMMARY), np.int64)
        values = np.zeros((round_cap, players), np.int64)
        scores = np.zeros((round_cap, players), np.int64)
        round_totals = np.zeros((round_cap, players), np.int64)
        round_alive = np.zeros((round_cap, players), np.int8)
        landed = np.zeros((round_cap, players), np.int8)
        round_unit = np.zeros(round_cap, np.int64)
        off = np.zeros(1, np.int64)
        dec, dec_n = _decision_buffer(dec_cap)
        dec_round = np.zeros(dec_cap, np.int64)
        dec_unit = np.zeros(dec_cap, np.int64)
        out = RoundOut(summaries, values, scores, no_log, dec, dec_n)
        rounds = (out, round_totals, round_alive, landed, round_unit, off, dec_round, dec_unit)
        games = (game_rounds[done:], game_winner[done:], game_totals[done:],
                 game_landings[done:], game_out[done:], rotation[done:])  # fmt: skip
        run = (int(rules_rotate(request)), request.seed, first + done, count - done)
        if request.branches:
            br_points = np.zeros((dec_cap, branches.WIDTH), np.int64)
            br_win = np.zeros((dec_cap, 2), np.int64)
            branch = (br_points, br_win, *_branch_scratch(players), scratch)
            run = (*run, request.branch_games)
            n = branches._branch_games_chunk(rules_rec, pols, search, run, t, rounds, games,
                                             branch)  # fmt: skip
        else:
            n = _games_chunk(rules_rec, pols, search, run, t, rounds, games, scratch)
        r = int(off[0])
        rows = int(dec_n[0])
        unit = round_unit[:r] + done
        round_parts.append((unit, summaries[:r], values[:r], scores[:r], round_totals[:r]))
        part = (dec[:rows], dec_unit[:rows] + done, dec_round[:rows])
        if request.branches:
            part += (br_points[:rows], br_win[:rows])
        dec_parts.append(part)
        if n == 0 and rows == 0 and r == 0:
            dec_cap *= 2  # one game's decisions did not fit
        done += n
    game_ids = ids[rotation]
    units = np.concatenate([p[0] for p in round_parts])
    round_index = np.concatenate(
        [np.arange(len(p[0])) - _first_row_of_unit(p[0]) for p in round_parts]
    )
    rounds = _rounds_frame(request, first + units, round_index,
                           np.concatenate([p[1] for p in round_parts]),
                           np.concatenate([p[2] for p in round_parts]),
                           np.concatenate([p[3] for p in round_parts]),
                           game_ids[units],
                           totals=np.concatenate([p[4] for p in round_parts]))  # fmt: skip
    dec_frame = _decisions_frame(request, dec_parts, game_of=first + np.arange(count),
                                 round_of=None, ids=game_ids)  # fmt: skip
    games = _games_frame(request, first, game_rounds, game_winner, game_totals, game_landings,
                         game_out, game_ids)  # fmt: skip
    return {"rounds": rounds, "games": games, "decisions": dec_frame}


def _branch_scratch(players: int):
    """Scratch for :func:`branches._branch_games_chunk`: a two-row round output and its rows."""
    b_out = new_round_out(players, rows=2)
    b_rounds = (
        np.zeros((2, players), np.int64),  # totals after the round
        np.zeros((2, players), np.int8),  # alive after the round
        np.zeros((2, players), np.int8),  # landed
        np.zeros(0, np.int64),  # no decision rounds
    )
    totals, alive = np.zeros(players, np.int64), np.zeros(players, np.int8)
    return b_out, b_rounds, totals, alive, totals.copy(), alive.copy()


def rules_rotate(request: SimRequest) -> bool:
    return request.seating == "rotate"


def _first_row_of_unit(unit: np.ndarray) -> np.ndarray:
    """For rows sorted by unit, the row index where each row's unit starts."""
    if len(unit) == 0:
        return unit
    starts = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])
    return np.repeat(starts, np.diff(np.r_[starts, len(unit)]))


def _rounds_frame(request, game, round_index, summaries, values, scores, seat_ids, totals):
    players = request.players
    data = {
        "game": game.astype(np.int32),
        "round": round_index.astype(np.int32),
        "players": np.full(len(game), players, np.int8),
        "starter": summaries[:, S_STARTER].astype(np.int8),
        "caller": summaries[:, S_CALLER].astype(np.int8),
        "caller_value": summaries[:, S_CALLER_VALUE].astype(np.int8),
        "outcome": pd.Categorical.from_codes(summaries[:, S_OUTCOME], dtype=OUTCOME_TYPE),
        "winner": summaries[:, S_WINNER].astype(np.int8),
        "turns": summaries[:, S_TURNS].astype(np.int16),
        "reshuffles": summaries[:, S_RESHUFFLES].astype(np.int16),
    }
    for s in range(players):
        data[f"hand_{s}"] = values[:, s].astype(np.int16)
    for s in range(players):
        data[f"score_{s}"] = scores[:, s].astype(np.int16)
    if totals is not None:
        for s in range(players):
            data[f"total_{s}"] = totals[:, s].astype(np.int16)
    for s in range(players):
        data[f"policy_{s}"] = seat_ids[:, s].astype(np.int8)
    return pd.DataFrame(data)


def _decisions_frame(request, parts, game_of, round_of, ids):
    players = request.players
    dec = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, DECISION_WIDTH))
    unit = np.concatenate([p[1] for p in parts]).astype(np.int64)
    rnd = np.concatenate([p[2] for p in parts]).astype(np.int64)
    seat = dec[:, D_SEAT].astype(np.int64)
    data = {
        "game": game_of[unit].astype(np.int32),
        "round": (round_of[unit] if round_of is not None else rnd).astype(np.int32),
        "turn": dec[:, D_TURN].astype(np.int16),
        "seat": seat.astype(np.int8),
        "policy": ids[unit, seat].astype(np.int8),
        "hand_value": dec[:, D_VALUE].astype(np.int8),
        "hand_cards": dec[:, D_HAND_CARDS].astype(np.int8),
    }
    cards = dec[:, D_OPP_CARDS : D_OPP_CARDS + players - 1]
    for k in range(1, players):
        data[f"opp{k}_cards"] = dec[:, D_OPP_CARDS + k - 1].astype(np.int8)
    for k in range(1, players):
        data[f"opp{k}_took"] = dec[:, D_OPP_KNOWN + k - 1].astype(np.int8)
    for k in range(1, players):
        data[f"opp{k}_took_value"] = dec[:, D_OPP_KNOWN_VALUE + k - 1].astype(np.int8)
    live = np.where(cards >= 0, cards, 99)
    data["fewest_opponent_cards"] = live.min(axis=1).astype(np.int8)
    data["called"] = dec[:, D_CALLED].astype(bool)
    data["lowest_opponent"] = dec[:, D_LOWEST].astype(np.int8)
    if request.branches:
        points = np.concatenate([p[3] for p in parts]) if parts else np.zeros((0, branches.WIDTH))
        win = np.concatenate([p[4] for p in parts]) if parts else np.zeros((0, 2))
        data["points_if_call"] = points[:, branches.CALL].astype(np.int16)
        data["points_if_wait"] = points[:, branches.WAIT].astype(np.int16)
        data["others_if_call"] = points[:, branches.OTHERS + branches.CALL].astype(np.int16)
        data["others_if_wait"] = points[:, branches.OTHERS + branches.WAIT].astype(np.int16)
        data["win_if_call"] = win[:, branches.CALL].astype(np.int8)
        data["win_if_wait"] = win[:, branches.WAIT].astype(np.int8)
        for way, name in ((branches.CALL, "call"), (branches.WAIT, "wait")):
            for s in range(players):
                column = branches.SEATS + way * branches.MAX_SEATS + s
                data[f"score_{s}_if_{name}"] = points[:, column].astype(np.int16)
        for way, name in ((branches.CALL, "call"), (branches.WAIT, "wait")):
            data[f"round_winner_if_{name}"] = points[:, branches.ROUND_WINNER + way].astype(np.int8)
    return pd.DataFrame(data)


def _games_frame(request, first, rounds, winner, totals, landings, out, seat_ids):
    players = request.players
    count = len(rounds)
    data = {
        "game": np.arange(first, first + count, dtype=np.int32),
        "players": np.full(count, players, np.int8),
        "rounds": rounds.astype(np.int16),
        "winner": winner.astype(np.int8),
        "winner_policy": np.where(
            winner >= 0, seat_ids[np.arange(count), np.maximum(winner, 0)], -1
        ).astype(np.int8),
    }
    # finishing place: 1 for the winner, then by the round a seat went out (later is better)
    out_key = np.where(out < 0, np.iinfo(np.int64).max, out)
    for s in range(players):
        data[f"total_{s}"] = totals[:, s].astype(np.int16)
    for s in range(players):
        data[f"landings_{s}"] = landings[:, s].astype(np.int16)
    for s in range(players):
        data[f"out_round_{s}"] = out[:, s].astype(np.int16)
    for s in range(players):
        data[f"place_{s}"] = (1 + (out_key > out_key[:, [s]]).sum(axis=1)).astype(np.int8)
    for s in range(players):
        data[f"policy_{s}"] = seat_ids[:, s].astype(np.int8)
    return pd.DataFrame(data)
