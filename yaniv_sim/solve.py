"""A calling strategy that no single cell's deviation improves: iterated policy improvement.

The report's decision table is one step of policy improvement: every
decision point of a policy's self-play is played both ways (call now, or
wait this turn) and each cell says where the policy should decide the other
way. That answer depends on the policy that made the data. :func:`solve`
iterates it until nothing changes:

1. every seat plays ``P(k)``: the base policy with the call table ``T(k)``
   (``T(0)`` empty: the base policy decides everywhere);
2. games are simulated with call-or-wait branches, and each decision point
   where the table decides (the Assaf rule on, no milestone landing forced,
   not a long round) is valued both ways: by the deciding seat's game-win
   chance after the round, from the equity tables (``objective="win"``), or
   by its round margin (its round score less the mean of its opponents',
   ``objective="points"``);
3. for each cell of the table (hand value, fewest opponent cards, turn
   band, opponents still in, and whether an opponent's pickups could make
   an Assaf: the features the heuristic family's call table reads) two
   one-sided tests: among the points where ``P(k)`` waited, is calling
   clearly better; among those where it called, is waiting. The tests'
   standard errors are clustered by game (the decision points of one game
   are not independent) and the whole family of tests is controlled at a
   false-discovery rate (Benjamini-Hochberg);
4. ``T(k+1)`` sets each cell with a discovery to the better choice (a cell
   with both, where the base policy decided both ways, to the one with the
   larger total gain); the others keep their value. Repeat until no cell
   changes.

The result is a fixed point of this improvement step: under its own play,
no cell's deviation is clearly profitable (:func:`check` tests it on a
fresh seed). Every iteration is written to the output folder (its policy
file, its dataset and one line of ``trace.json``), so a stopped run picks
up where it was.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from yaniv_sim._version import __version__
from yaniv_sim.engine.specs import (
    HEURISTIC,
    TABLE_BAND_EDGES,
    TABLE_CARDS,
    TABLE_OPPONENTS,
    TABLE_VALUES,
    canonical_spec,
    policy_vector,
)
from yaniv_sim.equity import Equity, alive_in_rounds, totals_before
from yaniv_sim.equity import shipped as shipped_equity
from yaniv_sim.rules import PRESETS, Rules
from yaniv_sim.solved import DATA as DATA  # the shipped solutions' folder (owned there)
from yaniv_sim.solved import (  # the shipped solutions, read without pandas or scipy
    SolveError,
    population_verdicts,
    read_table,
    shipped,
    table_cell_of,
)
from yaniv_sim.stats import benjamini_hochberg, clustered_means

__all__ = [
    "OBJECTIVES",
    "Solution",
    "SolveError",
    "SolveRequest",
    "branch_values",
    "cell_tests",
    "check",
    "decision_gains",
    "policy_text",
    "population_verdicts",
    "profitable_deviations",
    "read_table",
    "shipped",
    "solve",
    "table_cell_of",
]

OBJECTIVES = ("win", "points")
CELL = ["hand_value", "fewest", "band", "opponents", "pickup"]
TRACE = "trace.json"


@dataclasses.dataclass(frozen=True)
class SolveRequest:
    """What to solve.

    Attributes
    ----------
    rules : Rules
    rules_name : str
        A preset name, or any label of the rule set (recorded in the files).
    players : int
        Seats at the start of the game (2 to 8).
    base : str
        A heuristic-family policy spec (``best``, ``heuristic:...``): the
        policy that decides in the cells the table leaves open.
    games : int
        Games simulated per iteration.
    seed : int
        The run's seed; iteration ``k`` plays seed ``seed + 1000 * k``, the
        fresh-seed check seed ``seed + 999_999``.
    iterations : int
        At most this many improvement steps.
    fdr : float
        The false-discovery rate of each step's tests.
    objective : str
        ``"win"`` (game-win chance through the equity tables) or ``"points"``
        (round margin).
    branch_games : int
        One game in this many is also played on to its end both ways (the
        ``win_if_*`` columns: a check of the equity values, not used to decide).
    against : str, optional
        ``None`` (the default) solves self-play: every seat plays the
        strategy being solved. A policy spec here instead seats one player
        of the strategy against ``players - 1`` of this policy (the seat
        rotates from game to game) and improves that one player only: the
        result is a best response to this table, and its gain over the
        policy itself is how exploitable the policy is.
    """

    rules: Rules
    rules_name: str
    players: int
    base: str = "best"
    games: int = 20_000
    seed: int = 2026
    iterations: int = 8
    fdr: float = 0.05
    objective: str = "win"
    branch_games: int = 50
    against: str | None = None

    def __post_init__(self):
        if not isinstance(self.rules, Rules):
            raise SolveError(f"rules: expected a Rules, got {type(self.rules).__name__}")
        if not 2 <= self.players <= 8:
            raise SolveError(f"players: {self.players!r}; use 2 to 8")
        if self.games < 10:
            raise SolveError(f"games: {self.games!r}; use at least 10 games an iteration")
        if self.iterations < 1:
            raise SolveError(f"iterations: {self.iterations!r}; use at least 1")
        if not 0 < self.fdr < 1:
            raise SolveError(f"fdr: {self.fdr!r}; use a rate between 0 and 1, e.g. 0.05")
        if self.objective not in OBJECTIVES:
            raise SolveError(f"objective: {self.objective!r}; use one of {', '.join(OBJECTIVES)}")
        if self.branch_games < 1:
            raise SolveError(f"branch_games: {self.branch_games!r}; use 1 or more")
        if not self.rules.assaf:
            raise SolveError(
                "rules: without the Assaf every call wins the round, so there is nothing to "
                "solve (the heuristic always calls)"
            )
        try:
            vector = policy_vector(self.base)
        except ValueError as err:
            raise SolveError(f"base: {err}") from None
        if int(vector[0]) != HEURISTIC.kind:
            raise SolveError(
                f"base: {self.base!r} has no call table; use best, heuristic or another preset "
                "of the heuristic family"
            )
        if self.against is not None:
            try:
                canonical_spec(self.against)
            except ValueError as err:
                raise SolveError(f"against: {err}") from None

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["rules"] = self.rules.to_dict()
        out["base"] = canonical_spec(self.base)
        if self.against is None:
            del out["against"]  # a self-play request reads as it did before the option
        else:
            out["against"] = canonical_spec(self.against)
        return out


@dataclasses.dataclass
class Solution:
    """The result of :func:`solve`.

    ``table`` maps cells ``(hand_value, fewest, band, opponents, pickup)`` to 1 (call) or 0
    (wait); cells left out defer to the base policy. ``trace`` has one
    record per iteration (see :func:`solve`); ``converged`` is true when the
    last step changed no cell. ``policy_file`` is the playable policy.
    """

    request: SolveRequest
    table: dict[tuple[int, int, int], int]
    trace: list[dict]
    converged: bool
    policy_file: Path | None

    @property
    def spec(self) -> str:
        return str(self.policy_file)


# --- the values of both choices --------------------------------------------------


def branch_values(dataset, equity: Equity | None) -> pd.DataFrame:
    """Every decision point of a branch dataset with what the players could see and both values.

    One row per row of ``dataset.decisions`` (same order): ``game``, ``seat``,
    ``turn``, ``hand_value``, ``fewest``, ``band``, ``opponents`` (still in, 3
    meaning 3 or more), ``seats_in`` (the seats still in, the caller's too),
    ``pickup`` (1: an opponent still holds cards it took from the pile worth
    no more than the hand), ``hand_cards`` (cards in the seat's hand),
    ``one_card`` (1: the hand is a single card), ``next_fewest`` (1: the next
    opponent in playing order holds the fewest cards, ties included), ``total`` (the seat's game
    total before the round), ``assaf_out`` (1: an Assaf's points would take
    that total over the limit, milestones aside), ``leading`` (1: no other
    player still in has a lower total), ``called``, ``assafed``
    (1: some opponent held the hand value or less: the Assaf risk of calling
    here, hidden information recorded for analysis), ``points_gain`` (round
    margin if it waits less if it calls: positive means calling is better)
    and, with an ``equity``, ``win_gain`` (the seat's game-win chance after
    the round if it calls less if it waits).
    """
    dec, rounds, games = dataset.decisions, dataset.rounds, dataset.games
    needed = ["score_0_if_call", "round_winner_if_call"]
    if dec is None or any(c not in dec.columns for c in needed):
        raise SolveError(
            "the dataset has no per-seat branch scores: simulate games with branches=True"
        )
    players = int(dataset.manifest["request"]["players"])
    rules = Rules.from_dict(dataset.manifest["request"]["rules"])
    rounds = rounds.sort_values(["game", "round"], kind="stable").reset_index(drop=True)
    before = totals_before(rounds, players)
    alive = alive_in_rounds(rounds, games, players)
    index = pd.MultiIndex.from_arrays([rounds["game"], rounds["round"]])
    at = index.get_indexer(pd.MultiIndex.from_arrays([dec["game"], dec["round"]]))
    if (at < 0).any():
        raise SolveError("the dataset's decisions name rounds it does not hold")
    seat = dec["seat"].to_numpy(np.int64)
    rows = np.arange(len(dec))
    opp_cards = dec[[f"opp{k}_cards" for k in range(1, players)]].to_numpy(np.int64)
    opponents = (opp_cards >= 0).sum(axis=1)
    turn = dec["turn"].to_numpy(np.int64)
    value = dec["hand_value"].to_numpy(np.int64)
    cards = dec["hand_cards"].to_numpy(np.int64)
    took = dec[[f"opp{k}_took" for k in range(1, players)]].to_numpy(np.int64)
    took_value = dec[[f"opp{k}_took_value" for k in range(1, players)]].to_numpy(np.int64)
    pickup = ((took > 0) & (took_value <= value[:, None])).any(axis=1)
    fewest = dec["fewest_opponent_cards"].to_numpy(np.int64)
    held = np.where(opp_cards >= 0, opp_cards, np.iinfo(np.int64).max)
    first_in = np.argmax(opp_cards >= 0, axis=1)  # the next opponent still in
    total = before[at, seat]
    others = np.where(alive[at], before[at], np.iinfo(np.int64).max)
    others[rows, seat] = np.iinfo(np.int64).max
    leading = total <= others.min(axis=1)
    penalty = rules.assaf_penalty + (value if rules.assaf_adds_hand else 0)
    frame = pd.DataFrame(
        {
            "game": dec["game"].to_numpy(np.int64),
            "seat": seat,
            "turn": turn,
            "hand_value": np.minimum(value, TABLE_VALUES - 1),
            "fewest": np.minimum(fewest, TABLE_CARDS),
            "band": np.searchsorted(np.array(TABLE_BAND_EDGES), turn, side="right"),
            "opponents": np.minimum(opponents, TABLE_OPPONENTS),
            "seats_in": opponents + 1,
            "pickup": pickup.astype(np.int64),
            "hand_cards": cards,
            "one_card": (cards == 1).astype(np.int64),
            "next_fewest": (held[rows, first_in] == fewest).astype(np.int64),
            "total": total,
            "assaf_out": (total + penalty > rules.limit).astype(np.int64),
            "leading": leading.astype(np.int64),
            "called": dec["called"].to_numpy(bool),
            "assafed": (dec["lowest_opponent"].to_numpy(np.int64) <= value).astype(np.int64),
        }
    )
    per = np.maximum(opponents, 1)
    margin = {}
    for way in ("call", "wait"):
        others = dec[f"others_if_{way}"].to_numpy(np.float64)
        margin[way] = dec[f"points_if_{way}"].to_numpy(np.float64) - others / per
    frame["points_gain"] = margin["wait"] - margin["call"]
    if equity is not None:
        if equity.players != players:
            raise SolveError(
                f"equity: the table is for {equity.players} players, the games had {players}"
            )
        chance = {}
        for way in ("call", "wait"):
            scores = dec[[f"score_{s}_if_{way}" for s in range(players)]].to_numpy(np.int64)
            values = equity.values_after(
                before[at],
                scores,
                alive[at],
                rounds["starter"].to_numpy(np.int64)[at],
                dec[f"round_winner_if_{way}"].to_numpy(np.int64),
            )
            chance[way] = values[rows, seat]
        frame["win_gain"] = chance["call"] - chance["wait"]
    return frame


def decision_gains(
    dataset, rules: Rules, base: str, equity: Equity | None, policy: int | None = None
) -> pd.DataFrame:
    """One row per decision point where the call table decides: its cell and both gains.

    ``dataset`` is a games dataset simulated with branches; ``policy`` a
    policy id of its manifest to keep only that policy's decisions (default:
    all). Columns:
    ``game`` (the cluster), ``hand_value``, ``fewest``, ``band``,
    ``opponents`` (1, 2, 3 for 3 or more), ``pickup`` (the cell, as the
    policy's table reads it), ``called``, ``points_gain`` (round
    margin if it waits less if it calls: positive means calling is better)
    and, with an ``equity``, ``win_gain`` (the seat's game-win chance after
    the round if it calls less if it waits); ``row`` is the decision point's
    row in ``dataset.decisions`` (see :func:`branch_values`).
    """
    values = branch_values(dataset, equity)
    dec = dataset.decisions
    vector = policy_vector(base)
    control = np.ones(len(dec), bool)
    patience = int(vector[HEURISTIC.slot("patience")])
    if patience > 0:
        seats_in = values["seats_in"].to_numpy()
        turn = values["turn"].to_numpy()
        control &= ~((turn >= 2 * patience) & (turn >= patience * seats_in))
    if vector[HEURISTIC.slot("milestone")] > 0:
        value = dec["hand_value"].to_numpy(np.int64)
        penalty = rules.assaf_penalty + (value if rules.assaf_adds_hand else 0)
        landing = values["total"].to_numpy() + penalty
        marks = np.array([m for m, _ in rules.milestones] or [-1])
        control &= ~np.isin(landing, marks)
    if policy is not None:
        control &= dec["policy"].to_numpy() == policy
    columns = ["game", "hand_value", "fewest", "band", "opponents", "pickup", "called",
               "points_gain"] + (["win_gain"] if equity is not None else [])  # fmt: skip
    frame = values[columns].assign(row=np.arange(len(dec)))
    frame = frame[["row", *columns]]
    return frame[control].reset_index(drop=True)


def cell_tests(gains: pd.DataFrame, table: dict, objective: str, fdr: float) -> pd.DataFrame:
    """Each cell's two tests and its value in the next table.

    ``gains`` from :func:`decision_gains`; ``table`` the cells set now.
    Columns: the cell, ``now`` (1, 0 or -1 for a deferring cell),
    ``n_waited``, ``gain_waited``, ``se_waited``, ``p_call`` (the points
    where the policy waited: is calling better?), the same for ``called``
    and ``p_wait``, ``call`` and ``wait`` (the test's discovery at the
    false-discovery rate over every test of the table) and ``next``.
    """
    column = "win_gain" if objective == "win" else "points_gain"
    if column not in gains.columns:
        raise SolveError(f"objective {objective!r}: the gains have no {column} column")
    parts = {}
    for name, mask in (("waited", ~gains["called"]), ("called", gains["called"])):
        part = gains[mask]
        if len(part):
            m = clustered_means(part[column], part[CELL], part["game"].to_numpy())
        else:
            m = pd.DataFrame(columns=[*CELL, "n", "mean", "se", "p_above", "p_below"])
        parts[name] = m.rename(
            columns={"n": f"n_{name}", "mean": f"gain_{name}", "se": f"se_{name}"}
        )
    waited = parts["waited"][[*CELL, "n_waited", "gain_waited", "se_waited", "p_above"]]
    called = parts["called"][[*CELL, "n_called", "gain_called", "se_called", "p_below"]]
    out = waited.rename(columns={"p_above": "p_call"}).merge(
        called.rename(columns={"p_below": "p_wait"}), on=CELL, how="outer"
    )
    out = out.astype({c: np.int64 for c in CELL}).sort_values(CELL, ignore_index=True)
    for c in ("n_waited", "n_called"):
        out[c] = out[c].fillna(0).astype(np.int64)
    out["now"] = [table.get(tuple(int(v) for v in key), -1) for key in out[CELL].to_numpy()]
    found = benjamini_hochberg(np.r_[out["p_call"].to_numpy(), out["p_wait"].to_numpy()], fdr)
    out["call"] = found[: len(out)]
    out["wait"] = found[len(out) :]
    gain_call = (out["n_waited"] * out["gain_waited"]).fillna(0).to_numpy()
    gain_wait = (-out["n_called"] * out["gain_called"]).fillna(0).to_numpy()
    now = out["now"].to_numpy()
    call, wait = out["call"].to_numpy(), out["wait"].to_numpy()
    both = call & wait
    nxt = np.where(call & ~wait, 1, np.where(wait & ~call, 0, now))
    nxt = np.where(both, np.where(gain_call >= gain_wait, 1, 0), nxt)
    out["next"] = nxt
    return out


# --- the iterations ----------------------------------------------------------------


def policy_text(base: str, table: dict, header: list[str]) -> str:
    """A policy file (TOML) playing ``base`` with the call ``table`` switched on."""
    name, _, rest = canonical_spec(base).partition(":")
    lines = [f"# {line}" for line in header]
    lines += [f'policy = "{name}"', "", "[params]"]
    for item in (i.strip() for i in rest.split(",") if i.strip()):
        key, _, value = item.partition("=")
        if key.strip() == "table" or key.strip().startswith("call_v"):
            continue
        lines.append(f"{key.strip()} = {value.strip()}")
    lines.append("table = 1")
    for (value, fewest, band, opponents, pickup), verdict in sorted(table.items()):
        lines.append(f"call_v{value}_c{fewest}_t{band}_o{opponents}_p{pickup} = {int(verdict)}")
    return "\n".join(lines) + "\n"


def _equity_for(request: SolveRequest, equity: Equity | None) -> Equity | None:
    if request.objective != "win":
        return equity
    if equity is not None:
        return equity
    if request.rules_name in PRESETS and request.rules == Rules.preset(request.rules_name):
        return shipped_equity(request.rules_name, request.players)
    raise SolveError(
        "objective win: house rules need their own equity table; build one with "
        "yaniv-sim equity build and pass it (or use objective points)"
    )


def _read_trace(out: Path, request: SolveRequest) -> list[dict]:
    path = out / TRACE
    if not path.exists():
        return []
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise SolveError(f"{path}: not a solve trace ({err})") from None
    if not isinstance(saved, dict) or saved.get("request") != request.to_dict():
        raise SolveError(
            f"{out}: holds a solve of another request; use a new folder, or the same "
            "options to resume it"
        )
    return list(saved.get("iterations", []))


def _write_trace(out: Path, request: SolveRequest, trace: list[dict]) -> None:
    body = {"tool": "yaniv-sim", "version": __version__, "request": request.to_dict(),
            "iterations": trace}  # fmt: skip
    tmp = out / (TRACE + ".tmp")
    tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out / TRACE)


def _table_of(cells: dict) -> dict:
    """A table from its JSON form (``"v,c,b,o,p": verdict``)."""
    return {tuple(int(x) for x in key.split(",")): int(v) for key, v in cells.items()}


def _table_json(table: dict) -> dict:
    return {",".join(str(i) for i in key): int(x) for key, x in sorted(table.items())}


def _simulate(request, spec, seed, folder, games, workers, dask, resume):
    """Play the games of one iteration; returns the dataset and the solved policy's id."""
    from yaniv_sim.runs import simulate  # the batch runner sits above this module's layer
    from yaniv_sim.storage import open_dataset

    seats = spec if request.against is None else [spec] + [request.against] * (request.players - 1)
    simulate(request.rules, request.players, seats, games=games, seed=seed, workers=workers,
             dask=dask, out=folder, resume=resume, branches=True,
             branch_games=request.branch_games)  # fmt: skip
    data = open_dataset(folder)
    return data, (None if request.against is None else 0)  # the first spec listed: id 0


def solve(
    request: SolveRequest,
    out: str | os.PathLike,
    *,
    equity: Equity | None = None,
    workers: int | None = None,
    dask: str | None = None,
    command: str = "",
    say: Callable[[str], None] | None = None,
) -> Solution:
    """Iterate the improvement step from the empty table until no cell changes.

    Writes to ``out``: ``policy-K.toml`` (the policy of iteration ``K``),
    ``games-K/`` (its dataset), ``trace.json`` (the request and one record
    per iteration: the table played, decision points, cells set to call and
    to wait, the cells that changed, the self-play's Assaf share of calls)
    and, at the end, ``solved.toml`` (the last table). Run again with the
    same request and folder to resume (the datasets resume by chunk).
    """
    say = say or (lambda _: None)
    value_of = _equity_for(request, equity)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    trace = _read_trace(out, request)
    table = _table_of(trace[-1]["next"]) if trace else {}
    converged = bool(trace) and not trace[-1]["changed"]
    header = [f"made by yaniv-sim {__version__} solve: {command}".rstrip(": "),
              f"rules {request.rules_name}, {request.players} players, base "
              f"{canonical_spec(request.base)}, objective {request.objective}, seed "
              f"{request.seed}, {request.games:,} games an iteration"]  # fmt: skip
    while not converged and len(trace) < request.iterations:
        k = len(trace)
        policy = out / f"policy-{k}.toml"
        policy.write_text(policy_text(request.base, table, [*header, f"iteration {k}"]))
        seed = request.seed + 1000 * k
        folder = out / f"games-{k}"
        say(f"iteration {k}: {request.games:,} games, {len(table)} cells set")
        data, solved_id = _simulate(request, str(policy), seed, folder, request.games, workers,
                                    dask, resume=folder.exists())  # fmt: skip
        gains = decision_gains(data, request.rules, request.base, value_of, solved_id)
        tests = cell_tests(gains, table, request.objective, request.fdr)
        nxt = dict(table)  # a cell without decision points this time keeps its value
        for row in tests[[*CELL, "next"]].to_numpy():
            if row[-1] >= 0:
                nxt[tuple(int(x) for x in row[:-1])] = int(row[-1])
        changed = sorted(set(nxt.items()) ^ set(table.items()))
        rounds = data.rounds
        calls = rounds["caller"] >= 0
        assafed = (rounds["outcome"] == "assaf") & calls
        record = {
            "iteration": k,
            "seed": seed,
            "games": request.games,
            "table": _table_json(table),
            "next": _table_json(nxt),
            "decision_points": len(gains),
            "call_cells": sum(v == 1 for v in nxt.values()),
            "wait_cells": sum(v == 0 for v in nxt.values()),
            "changed": [",".join(map(str, key)) for key in sorted({key for key, _ in changed})],
            "discoveries": int(tests["call"].sum() + tests["wait"].sum()),
            "tests": int(tests["p_call"].notna().sum() + tests["p_wait"].notna().sum()),
            "assaf_share_of_calls": float(assafed.sum() / max(int(calls.sum()), 1)),
            "turns_per_round": float(rounds["turns"].mean()),
        }
        trace.append(record)
        _write_trace(out, request, trace)
        say(f"iteration {k}: {len(gains):,} decision points, {record['discoveries']} of "
            f"{record['tests']} tests clear, {len(record['changed'])} cells changed")  # fmt: skip
        table = nxt
        converged = not record["changed"]
    final = out / "solved.toml"
    state = "converged" if converged else f"not converged after {len(trace)} iterations"
    final.write_text(policy_text(request.base, table, [*header, state]))
    return Solution(request, table, trace, converged, final)


def check(
    solution: Solution,
    out: str | os.PathLike,
    *,
    games: int | None = None,
    equity: Equity | None = None,
    workers: int | None = None,
    dask: str | None = None,
) -> pd.DataFrame:
    """The fresh-seed check: the improvement step's tests at the solution, on new games.

    Plays ``games`` (default: the request's) games of the solved policy at
    a seed no iteration used, and returns :func:`cell_tests` for its table:
    at a fixed point no test should find a clearly profitable deviation
    (``call`` or ``wait`` true where the cell's value is the other one).
    """
    request = solution.request
    folder = Path(out) / "check"
    data, solved_id = _simulate(request, str(solution.policy_file), request.seed + 999_999,
                                folder, games or request.games, workers, dask,
                                resume=folder.exists())  # fmt: skip
    gains = decision_gains(data, request.rules, request.base, _equity_for(request, equity),
                           solved_id)  # fmt: skip
    return cell_tests(gains, solution.table, request.objective, request.fdr)


def profitable_deviations(tests: pd.DataFrame) -> pd.DataFrame:
    """The cells of :func:`cell_tests` whose deviation from the table is clearly profitable.

    A cell set to call is deviated from by waiting, one set to wait by
    calling, and a deferring cell by either (a cell left to the base policy
    where one choice is clearly better is a profitable deviation too).
    """
    now = tests["now"]
    bad = ((now == 1) & tests["wait"]) | ((now == 0) & tests["call"])
    bad |= (now == -1) & (tests["call"] | tests["wait"])
    return tests[bad]
