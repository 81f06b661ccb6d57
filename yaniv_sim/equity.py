"""Game equity: the chance of winning the game from the totals, under a named policy.

An :class:`Equity` answers "with these totals, these players still in and
this player to start the next round, how likely is each to win the game?"
for one rule set, one table size (the seats dealt at the start: it fixes the
deck) and one policy played by every seat. docs/equity.md explains it.

Two players still in
    A full table by both totals and who starts next, exact for the model:
    the next rounds' scores are drawn from the round outcomes of
    whole-game self-play with two players in (the same deck), and the
    game's rules (milestones, theft, the limit, the all-over-the-limit
    replay) are applied exactly, by value iteration over every pair of
    totals.
Three or more still in
    A conditional logit fitted to whole-game self-play: each player's
    weight is ``exp(f_k(total) + h_k(gap) + g_k(place after the starter))``:
    ``f_k`` a piecewise-linear curve over the totals (knots every 10
    points), ``h_k`` one over the gap between the player's total and the
    lowest other total (knots every 20), ``k`` the number still in; its win
    chance is its share of the weights.
    :func:`calibration` checks it on fresh games.

The values are the win chances of the policy's self-play, not of perfect
play: under another policy they differ (build another table).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import io
import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize

from yaniv_sim._equity_file import FORMAT, KNOT_STEP, EquityError, read, shipped_path
from yaniv_sim._equity_file import knots as logit_knots
from yaniv_sim._numba import njit
from yaniv_sim._version import __version__
from yaniv_sim.engine import settle_round, settle_rounds
from yaniv_sim.engine.specs import canonical_spec
from yaniv_sim.rules import Rules
from yaniv_sim.simulation.chunks import play_chunk
from yaniv_sim.simulation.request import SimRequest

THEFT_CHARGE = 30
STARTER_WINNER, STARTER_OTHER, STARTER_NOBODY = 0, 1, 2


@dataclasses.dataclass(frozen=True)
class Equity:
    """Win chances from the totals, for one rule set, table size and policy.

    Attributes
    ----------
    rules : Rules
    players : int
        Seats dealt at the start of the game (2 to 8).
    policy : str
        The policy every seat played in the games behind the table.
    two : float64[2, limit + 1, limit + 1]
        ``two[s, a, b]``: the chance that the player at total ``a`` beats
        the one at ``b``; ``s`` = 0 when the player at ``a`` starts the next
        round, 1 when the other does.
    tied : float64[2]
        The same for two players tied above the limit (they play on).
    logit : dict
        For ``k`` = 3 .. players still in: ``(curve, gap, places)``, the
        weights' logarithm at each knot of the totals, at each knot of the
        gap to the lowest other total (-limit to limit) and at each place
        after the starter (0: the starter).
    meta : dict
        How it was made: command, seed, games, rounds, package version.
    """

    rules: Rules
    players: int
    policy: str
    two: np.ndarray
    tied: np.ndarray
    logit: dict[int, tuple[np.ndarray, np.ndarray]]
    meta: dict[str, Any]

    def win_chances(self, totals, alive=None, starter: int = 0) -> np.ndarray:
        """Each seat's chance of winning the game from these totals (0 for a seat out).

        ``totals`` has one entry per seat dealt; ``alive`` marks the seats
        still in (default: every seat at or below the limit); ``starter`` is
        the seat that starts the next round.
        """
        totals, alive = self._state(totals, alive, starter)
        seats = np.flatnonzero(alive)
        out = np.zeros(len(totals))
        limit = self.rules.limit
        if len(seats) == 1:
            out[seats[0]] = 1.0
            return out
        if len(seats) == 2:
            a, b = int(totals[seats[0]]), int(totals[seats[1]])
            s = 0 if seats[0] == starter else 1
            if a > limit or b > limit:
                if a != b:
                    raise EquityError(
                        f"totals: {a} and {b}: a player above the limit is out "
                        "(two players stay in above the limit only when tied)"
                    )
                p = float(self.tied[s])
            else:
                p = float(self.two[s, a, b])
            out[seats[0]], out[seats[1]] = p, 1.0 - p
            return out
        k = len(seats)
        if k not in self.logit:
            raise EquityError(f"alive: {k} players still in; this table covers 2 to {self.players}")
        curve, gap, places = self.logit[k]
        place = _places(seats, starter, len(totals))
        t = np.minimum(totals[seats], limit)[None]
        u = (_basis(t, limit) @ curve + _gap_basis(t, limit) @ gap)[0] + places[place]
        w = np.exp(u - u.max())
        out[seats] = w / w.sum()
        return out

    def after_round(self, totals, scores, alive=None, starter: int = 0, winner: int = -1):
        """Win chances after a round with these ``scores`` is settled (the round's value).

        ``winner`` is the round's winner (-1 for none): it starts the next
        round under ``starter = "winner"``. A settled game gives 1 to its
        winner and 0 to everyone else.
        """
        totals, alive = self._state(totals, alive, starter)
        new_totals, new_alive, game_winner = settle_round(totals, scores, alive, self.rules)
        if game_winner is not None:
            out = np.zeros(len(totals))
            out[game_winner] = 1.0
            return out
        return self.win_chances(new_totals, new_alive, _next_starter(self.rules, starter, winner,
                                                                    new_alive))  # fmt: skip

    def win_chances_many(self, totals, alive, starter) -> np.ndarray:
        """:meth:`win_chances` for many states at once: float64[n, seats].

        ``totals`` and ``alive`` are ``[n, seats]``, ``starter`` ``[n]``
        (every row as :meth:`win_chances` takes it; ``alive`` is given).
        """
        totals = np.asarray(totals, dtype=np.int64)
        alive = np.asarray(alive, dtype=bool)
        starter = np.asarray(starter, dtype=np.int64)
        n, seats = totals.shape
        if seats != self.players or alive.shape != totals.shape or starter.shape != (n,):
            raise EquityError(f"totals, alive: give [n, {self.players}] arrays and n starters")
        limit = self.rules.limit
        out = np.zeros((n, seats))
        k = alive.sum(axis=1)
        one = np.flatnonzero(k == 1)
        out[one, alive[one].argmax(axis=1)] = 1.0
        rows = np.flatnonzero(k == 2)
        if len(rows):
            pair = np.nonzero(alive[rows])[1].reshape(-1, 2)
            a = totals[rows, pair[:, 0]]
            b = totals[rows, pair[:, 1]]
            s = np.where(pair[:, 0] == starter[rows], 0, 1)
            over = (a > limit) | (b > limit)
            if (over & (a != b)).any():
                raise EquityError("totals: a player above the limit is out unless tied")
            p = np.where(
                over, self.tied[s], self.two[s, np.minimum(a, limit), np.minimum(b, limit)]
            )
            out[rows, pair[:, 0]] = p
            out[rows, pair[:, 1]] = 1.0 - p
        for m in range(3, seats + 1):
            rows = np.flatnonzero(k == m)
            if not len(rows):
                continue
            if m not in self.logit:
                raise EquityError(f"alive: {m} players still in; this table covers 2 to {seats}")
            curve, gap, places = self.logit[m]
            seat = np.nonzero(alive[rows])[1].reshape(-1, m)
            order = (seat - starter[rows, None]) % seats
            place = np.argsort(np.argsort(order, axis=1), axis=1)
            t = np.minimum(totals[rows[:, None], seat], limit)
            u = _basis(t, limit) @ curve + _gap_basis(t, limit) @ gap + places[place]
            w = np.exp(u - u.max(axis=1, keepdims=True))
            out[rows[:, None], seat] = w / w.sum(axis=1, keepdims=True)
        return out

    def values_after(self, totals, scores, alive, starter, winner) -> np.ndarray:
        """:meth:`after_round` for many rounds at once: float64[n, seats].

        One row per round: the totals and seats in before it (``[n, seats]``),
        its scores (``[n, seats]``), its starter and its winner (``[n]``, -1
        for none).
        """
        totals = np.asarray(totals, dtype=np.int64)
        new_totals, new_alive, game_winner = settle_rounds(totals, scores, alive, self.rules)
        starter = np.asarray(starter, dtype=np.int64)
        winner = np.asarray(winner, dtype=np.int64)
        nxt = next_starters(self.rules, starter, winner, new_alive)
        done = game_winner >= 0
        out = np.zeros(totals.shape)
        out[np.flatnonzero(done), game_winner[done]] = 1.0
        going = np.flatnonzero(~done)
        if len(going):
            out[going] = self.win_chances_many(new_totals[going], new_alive[going], nxt[going])
        return out

    def _state(self, totals, alive, starter):
        totals = np.asarray(totals, dtype=np.int64)
        if totals.ndim != 1 or len(totals) != self.players:
            raise EquityError(f"totals: give {self.players} totals, one per seat dealt")
        if (totals < 0).any():
            raise EquityError("totals: a total is never negative")
        if alive is None:
            alive = totals <= self.rules.limit
        alive = np.asarray(alive, dtype=bool)
        if len(alive) != self.players or alive.sum() < 1:
            raise EquityError(f"alive: give {self.players} flags with at least one seat in")
        if not (isinstance(starter, int | np.integer) and 0 <= starter < self.players):
            raise EquityError(f"starter: {starter!r}; use a seat 0 to {self.players - 1}")
        if not alive[starter] and alive.sum() > 1:
            raise EquityError(f"starter: seat {starter} is out of the game")
        return totals, alive

    def save(self, path) -> Path:
        """Write the table as one ``.npz`` file (arrays and a JSON header)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        header = {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "policy": self.policy,
            "meta": self.meta,
        }
        # in 1/65535ths, as differences along both totals (they are small: the file is small)
        steps = np.round(self.two * 65535).astype(np.int32)
        steps = np.diff(np.diff(steps, axis=2, prepend=0), axis=1, prepend=0)
        arrays = {"two_steps": steps, "tied": self.tied}
        for k, (curve, gap, places) in self.logit.items():
            arrays[f"curve_{k}"], arrays[f"gap_{k}"], arrays[f"places_{k}"] = curve, gap, places
        buffer = io.BytesIO()
        np.savez_compressed(buffer, header=np.array(json.dumps(header, sort_keys=True)), **arrays)
        path.write_bytes(buffer.getvalue())
        return path


def load(path) -> Equity:
    """Read a table written by :meth:`Equity.save`."""
    header, two, tied, logit = read(path)
    return Equity(
        rules=Rules.from_dict(header["rules"]),
        players=int(header["players"]),
        policy=header["policy"],
        two=two,
        tied=tied,
        logit=logit,
        meta=header["meta"],
    )


def shipped(rules_name: str, players: int) -> Equity:
    """The table shipped with the package for a preset and table size (policy ``best``)."""
    return load(shipped_path(rules_name, players))


# --- building a table --------------------------------------------------------------


def build(
    rules: Rules,
    players: int,
    policy: str = "best",
    *,
    games: int = 20_000,
    seed: int = 0,
    workers: int = 1,
    command: str = "",
) -> Equity:
    """Build an equity table from whole-game self-play of ``policy``.

    ``games`` games of ``players`` seats (and as many two-player games with
    the same deck, for the two-players-in table) seeded by ``seed``.
    """
    if not isinstance(rules, Rules):
        raise EquityError(f"rules: expected a Rules, got {type(rules).__name__}")
    rules.check_players(players)
    if isinstance(games, bool) or not isinstance(games, int) or games < 100:
        raise EquityError(f"games: {games!r}; use a whole number of at least 100")
    policy = canonical_spec(policy)
    rounds, games_df = simulate_games(rules, players, policy, games, seed, workers)
    states = round_states(rounds, games_df, rules, players)
    two, tied = two_player_table(rules, round_outcomes(rounds, games_df, players, rules))
    logit = {}
    n_states = {}
    for k in range(3, players + 1):
        part = states[states["alive"] == k]
        n_states[k] = int(part["game"].nunique())
        logit[k] = fit_logit(part, k, rules.limit)
    meta = {
        "command": command,
        "seed": seed,
        "games": games,
        "two_in_rounds": int(sum(alive_in_rounds(rounds, games_df, players).sum(1) == 2)),
        "games_with_k_in": n_states,
        "version": __version__,
    }
    return Equity(rules, players, policy, two, tied, logit, meta)


def simulate_games(rules: Rules, players: int, policy: str, games: int, seed: int, workers: int):
    """The rounds and games tables of ``games`` self-play games (chunks on ``workers``)."""
    request = SimRequest.make(rules, players, policy, games=games, seed=seed)
    chunks = range(request.n_chunks)
    if workers > 1 and len(chunks) > 1:
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        with cf.ProcessPoolExecutor(workers, mp_context=context) as pool:
            parts = list(pool.map(_chunk_tables, [(request, i) for i in chunks]))
    else:
        parts = [_chunk_tables((request, i)) for i in chunks]
    rounds = pd.concat([p[0] for p in parts], ignore_index=True)
    games_df = pd.concat([p[1] for p in parts], ignore_index=True)
    return rounds, games_df


def _chunk_tables(job):
    request, index = job
    tables = play_chunk(request, index)
    return tables["rounds"], tables["games"]


def alive_in_rounds(rounds: pd.DataFrame, games_df: pd.DataFrame, players: int) -> np.ndarray:
    """bool[rounds, seats]: who was in each round (from the games' out rounds)."""
    g = games_df.set_index("game").loc[rounds["game"].to_numpy()]
    out_round = g[[f"out_round_{s}" for s in range(players)]].to_numpy(np.int64)
    round_index = rounds["round"].to_numpy(np.int64)[:, None]
    return (out_round < 0) | (round_index <= out_round)


N_CLASSES = 4  # round models: (starter near the limit, other near the limit)
MIN_CLASS_ROUNDS = 500  # fewer rounds in a class: it uses the rounds of every class


def near_limit(total, rules: Rules):
    """Whether an Assaf (even with a hand of 0) would put a player at ``total`` out."""
    return np.asarray(total) > rules.limit - rules.assaf_penalty


def round_outcomes(rounds: pd.DataFrame, games_df: pd.DataFrame, players: int, rules: Rules):
    """The round model: the outcomes of the rounds played with two players in, by class.

    A round's class is 2 * (its starter is near the limit) + (the other is):
    a policy may play differently when an Assaf would put it out (``best``
    does), so each class has its own outcomes. Returns one ``(outcomes,
    probs)`` per class: ``outcomes`` int64[n, 3] (the starter's score, the
    other's, who won the round: 0 the starter, 1 the other, 2 nobody).
    """
    rounds = rounds.sort_values(["game", "round"], kind="stable").reset_index(drop=True)
    before = totals_before(rounds, players)
    alive = alive_in_rounds(rounds, games_df, players)
    two = alive.sum(axis=1) == 2
    if not two.any():
        raise EquityError("no round was played with two players in: play more games")
    rounds, alive, before = rounds[two], alive[two], before[two]
    scores = rounds[[f"score_{s}" for s in range(players)]].to_numpy(np.int64)
    starter = rounds["starter"].to_numpy(np.int64)
    pair = np.nonzero(alive)[1].reshape(-1, 2)
    other = np.where(pair[:, 0] == starter, pair[:, 1], pair[:, 0])
    rows = np.arange(len(rounds))
    winner = rounds["winner"].to_numpy(np.int64)
    who = np.where(winner < 0, STARTER_NOBODY, np.where(winner == starter, 0, 1))
    keys = np.stack([scores[rows, starter], scores[rows, other], who], axis=1)
    cls = 2 * near_limit(before[rows, starter], rules) + near_limit(before[rows, other], rules)
    model = []
    for c in range(N_CLASSES):
        part = keys[cls == c] if (cls == c).sum() >= MIN_CLASS_ROUNDS else keys
        outcomes, counts = np.unique(part, axis=0, return_counts=True)
        model.append((outcomes.astype(np.int64), counts / counts.sum()))
    return model


def totals_before(rounds: pd.DataFrame, players: int) -> np.ndarray:
    """Every seat's total before each round (``rounds`` sorted by game and round)."""
    after = rounds[[f"total_{s}" for s in range(players)]].to_numpy(np.int64)
    game = rounds["game"].to_numpy()
    first = np.r_[True, game[1:] != game[:-1]]
    before = np.zeros_like(after)
    before[~first] = after[np.flatnonzero(~first) - 1]
    return before


def two_player_table(rules: Rules, model):
    """``two[s, a, b]`` and ``tied[s]`` (see :class:`Equity`) by value iteration.

    ``model``: one ``(outcomes, probs)`` per class (see :func:`round_outcomes`),
    or a single pair for every class.
    """
    if isinstance(model, tuple):
        model = [model] * N_CLASSES
    limit = rules.limit
    marks = np.full(limit + 1, -1, np.int64)  # the total a landing lowers it to, else -1
    for at, to in rules.milestones:
        if at <= limit:
            marks[at] = to
    params = np.array([limit, int(rules.milestone_theft), int(rules.starter == "winner"),
                       THEFT_CHARGE, limit - rules.assaf_penalty], np.int64)  # fmt: skip
    outcomes = np.concatenate([m[0] for m in model]).astype(np.int64)
    probs = np.concatenate([m[1] for m in model]).astype(np.float64)
    offsets = np.cumsum([0] + [len(m[1]) for m in model]).astype(np.int64)
    two = np.full((2, limit + 1, limit + 1), 0.5)
    tied = np.full(2, 0.5)
    _iterate(params, marks, (outcomes, probs, offsets), two, tied)
    return two, tied


@njit
def _iterate(params, marks, model, two, tied):
    """Value iteration (Gauss-Seidel, from the highest totals down) until nothing moves.

    ``model = (outcomes, probs, offsets)``: the outcomes of class ``c`` are rows
    ``offsets[c] .. offsets[c + 1] - 1``.
    """
    limit, theft, by_winner, charge, near = params[0], params[1], params[2], params[3], params[4]
    outcomes, probs, offsets = model
    for _ in range(10_000):
        change = 0.0
        for s in range(2):
            v = 0.0  # tied above the limit: the lower round score wins, a tie plays on
            for o in range(offsets[N_CLASSES - 1], offsets[N_CLASSES]):  # both near the limit
                xa, xb, nxt = _scores_of(outcomes, o, s, by_winner)
                if xa < xb:
                    v += probs[o]
                elif xa == xb:
                    v += probs[o] * tied[nxt]
            change = max(change, abs(v - tied[s]))
            tied[s] = v
        for a in range(limit, -1, -1):
            for b in range(limit, -1, -1):
                for s in range(2):
                    starter_total, other_total = (a, b) if s == 0 else (b, a)
                    c = 2 * (starter_total > near) + (other_total > near)
                    v = 0.0
                    for o in range(offsets[c], offsets[c + 1]):
                        xa, xb, nxt = _scores_of(outcomes, o, s, by_winner)
                        a1, b1 = a + xa, b + xb
                        landed_a = xa > 0 and a1 <= limit and marks[a1] >= 0
                        landed_b = xb > 0 and b1 <= limit and marks[b1] >= 0
                        if landed_a:
                            a1 = marks[a1]
                        if landed_b:
                            b1 = marks[b1]
                        if theft:
                            if landed_a:
                                b1 += charge
                            if landed_b:
                                a1 += charge
                        over_a, over_b = a1 > limit, b1 > limit
                        if over_a and over_b:
                            if a1 < b1:
                                v += probs[o]
                            elif a1 == b1:
                                v += probs[o] * tied[nxt]
                        elif over_b:
                            v += probs[o]
                        elif not over_a:
                            v += probs[o] * two[nxt, a1, b1]
                    change = max(change, abs(v - two[s, a, b]))
                    two[s, a, b] = v
        if change < 1e-13:
            return


@njit(inline="always")
def _scores_of(outcomes, o, s, by_winner):
    """(score of the player at ``a``, of the other, who starts next: 0 that player, 1 the other)."""
    xs, xo, who = outcomes[o, 0], outcomes[o, 1], outcomes[o, 2]
    if s == 0:
        xa, xb = xs, xo
    else:
        xa, xb = xo, xs
    if not by_winner:
        return xa, xb, 1 - s  # rotate: the other starts next
    if who == STARTER_NOBODY:
        return xa, xb, s
    starter_is_a = s == 0
    winner_is_a = starter_is_a if who == STARTER_WINNER else not starter_is_a
    return xa, xb, 0 if winner_is_a else 1


def round_states(rounds: pd.DataFrame, games_df: pd.DataFrame, rules: Rules, players: int):
    """One row per round start of every game: totals before it, who is in, starter, game winner."""
    rounds = rounds.sort_values(["game", "round"], kind="stable").reset_index(drop=True)
    before = totals_before(rounds, players)
    game = rounds["game"].to_numpy()
    g = games_df.set_index("game").loc[game]
    alive = alive_in_rounds(rounds, games_df, players)
    frame = pd.DataFrame(before, columns=[f"total_{s}" for s in range(players)])
    for s in range(players):
        frame[f"in_{s}"] = alive[:, s]
    frame["alive"] = alive.sum(axis=1)
    frame["starter"] = rounds["starter"].to_numpy()
    frame["game"] = game
    frame["winner"] = g["winner"].to_numpy()
    return frame[frame["winner"] >= 0].reset_index(drop=True)


def _places(seats: np.ndarray, starter: int, players: int) -> np.ndarray:
    """Each seat's place after the starter among ``seats`` (0: the starter)."""
    order = [(s - starter) % players for s in seats]
    ranks = np.argsort(np.argsort(order))
    return ranks


def _basis(totals: np.ndarray, limit: int, step: int = KNOT_STEP) -> np.ndarray:
    """Hat functions over the knots (every ``step`` points up to the limit) at ``totals``."""
    knots = logit_knots(limit, step)
    t = np.clip(totals.astype(np.float64), 0, limit)
    i = np.clip(np.searchsorted(knots, t, side="right") - 1, 0, len(knots) - 2)
    w = (t - knots[i]) / (knots[i + 1] - knots[i])
    out = np.zeros((*t.shape, len(knots)))
    np.put_along_axis(out, i[..., None], (1 - w)[..., None], axis=-1)
    np.put_along_axis(out, (i + 1)[..., None], w[..., None], axis=-1)
    return out


def fit_logit(states: pd.DataFrame, k: int, limit: int, smooth: float = 1.0):
    """Fit ``(curve, places)`` for ``k`` players in by penalised maximum likelihood."""
    if len(states) == 0:
        raise EquityError(f"no round started with {k} players in: play more games")
    in_cols = [c for c in states.columns if c.startswith("in_")]
    players = len(in_cols)
    alive = states[in_cols].to_numpy(bool)
    totals = states[[f"total_{s}" for s in range(players)]].to_numpy(np.int64)
    starter = states["starter"].to_numpy()
    winner = states["winner"].to_numpy()
    seat_rank = np.cumsum(alive, axis=1) - 1
    seats = np.nonzero(alive)[1].reshape(-1, k)  # [n, k], in seat order
    t = np.take_along_axis(totals, seats, axis=1)
    rel = (seats - starter[:, None]) % players
    place = np.argsort(np.argsort(rel, axis=1), axis=1)
    y = seat_rank[np.arange(len(states)), winner]
    basis = _basis(t, limit)  # [n, k, knots]
    n_knots = basis.shape[-1]
    gaps = _gap_basis(t, limit)  # [n, k, gap knots]
    n_gap = gaps.shape[-1]
    onehot = np.eye(k)[place]  # [n, k, k]
    design = np.concatenate([basis, gaps, onehot[..., 1:]], axis=-1)  # place 0: the reference
    n_smooth = n_knots + n_gap
    second = np.zeros((n_smooth - 4, n_smooth))
    second[: n_knots - 2, :n_knots] = np.diff(np.eye(n_knots), 2, axis=0)
    second[n_knots - 2 :, n_knots:] = np.diff(np.eye(n_gap), 2, axis=0)
    penalty = smooth * second.T @ second + 1e-4 * np.eye(n_smooth)

    def loss(beta):
        u = design @ beta
        u = u - u.max(axis=1, keepdims=True)
        logz = np.log(np.exp(u).sum(axis=1))
        p = np.exp(u - logz[:, None])
        rows = np.arange(len(y))
        nll = -(u[rows, y] - logz).sum()
        grad = np.einsum("nk,nkf->f", p, design) - design[rows, y].sum(axis=0)
        c = beta[:n_smooth]
        nll += c @ penalty @ c
        grad[:n_smooth] += 2 * penalty @ c
        return nll, grad

    beta0 = np.zeros(design.shape[-1])
    result = optimize.minimize(loss, beta0, jac=True, method="L-BFGS-B")
    beta = result.x
    curve = beta[:n_knots] - beta[0]  # total 0 is the reference
    gap = beta[n_knots:n_smooth] - beta[n_knots + n_gap // 2]  # a gap of 0 is the reference
    places = np.r_[0.0, beta[n_smooth:]]
    return curve, gap, places


def _gap_basis(t: np.ndarray, limit: int) -> np.ndarray:
    """Hat functions at each player's total less the lowest other total still in (``t``: [n, k])."""
    others = np.where(np.eye(t.shape[1], dtype=bool)[None], np.iinfo(np.int64).max, t[:, None, :])
    gap = t - others.min(axis=2)
    return _basis(gap + limit, 2 * limit, step=2 * KNOT_STEP)


def next_starters(rules: Rules, starter, winner, alive) -> np.ndarray:
    """Who starts the next round, for many rounds (``starter``, ``winner`` [n], ``alive`` [n, P]).

    Under ``starter = "winner"`` the round's winner if still in (the same
    starter after a round nobody won); otherwise, or if that seat is out, the
    next seat still in after it.
    """
    alive = np.asarray(alive, dtype=bool)
    winner = np.asarray(winner, dtype=np.int64)
    n, players = alive.shape
    rows = np.arange(n)
    seat = np.asarray(starter, dtype=np.int64).copy()
    out = np.full(n, -1, np.int64)
    if rules.starter == "winner":
        seat = np.where(winner < 0, seat, winner)
        keep = alive[rows, seat]
        out[keep] = seat[keep]
    for step in range(1, players + 1):
        nxt = (seat + step) % players
        take = (out < 0) & alive[rows, nxt]
        out[take] = nxt[take]
    return np.where(out < 0, seat, out)


def _next_starter(rules: Rules, starter: int, winner: int, alive) -> int:
    return int(next_starters(rules, [starter], [winner], np.asarray(alive)[None])[0])


# --- checking a table on fresh games -----------------------------------------------


def calibration(table: Equity, games: int = 5_000, seed: int = 1, workers: int = 1, bins=10):
    """Predicted against observed win chances on fresh self-play games.

    Every round start of every fresh game gives each seat still in a
    prediction and an outcome (won the game or not). Per bin of the
    prediction and per number of players in: the mean prediction, the
    observed share of wins with a 95% interval clustered by game (the
    round starts of one game are not independent), and how many games and
    (round start, seat) pairs fell in it.
    """
    rules, players = table.rules, table.players
    rounds, games_df = simulate_games(rules, players, table.policy, games, seed, workers)
    states = round_states(rounds, games_df, rules, players)
    rows = []
    for st in states.itertuples(index=False):
        tot = np.array([getattr(st, f"total_{s}") for s in range(players)])
        alive = np.array([getattr(st, f"in_{s}") for s in range(players)])
        try:
            p = table.win_chances(tot, alive, int(st.starter))
        except EquityError:
            continue  # a state outside the table (e.g. above the limit, untied)
        for s in np.flatnonzero(alive):
            rows.append((st.game, st.alive, p[s], float(st.winner == s)))
    data = pd.DataFrame(rows, columns=["game", "alive", "predicted", "won"])
    data["bin"] = np.minimum((data["predicted"] * bins).astype(int), bins - 1)
    out = []
    for (k, b), part in data.groupby(["alive", "bin"]):
        n = len(part)
        observed = part["won"].mean()
        resid = (part["won"] - observed).groupby(part["game"]).sum()
        se = float(np.sqrt((resid**2).sum()) / n)
        out.append({
            "players_in": int(k), "bin": f"{b / bins:.1f}-{(b + 1) / bins:.1f}", "pairs": n,
            "games": int(part["game"].nunique()), "predicted": part["predicted"].mean(),
            "observed": observed, "low": observed - 1.96 * se, "high": observed + 1.96 * se,
        })  # fmt: skip
    return pd.DataFrame(out)


# --- what points are worth -----------------------------------------------------------


def point_values(table: Equity, opponent: int, starts: bool = True) -> pd.DataFrame:
    """Two players in: the win chance at each own total against an opponent at ``opponent``.

    Columns: ``total``, ``chance`` (of winning the game, the player starting
    the next round when ``starts``), ``last_point`` (the chance lost by the
    point that brought the total here from one less) and ``landing`` (for a
    milestone total: the chance gained by landing on it, i.e. being moved to
    the milestone's value, against staying at it).
    """
    limit = table.rules.limit
    if not 0 <= opponent <= limit:
        raise EquityError(f"opponent: {opponent!r}; use a total 0 to {limit}")
    chance = table.two[0 if starts else 1, :, opponent]
    frame = pd.DataFrame({"total": np.arange(limit + 1), "chance": chance})
    frame["last_point"] = np.r_[np.nan, chance[:-1] - chance[1:]]
    landing = np.full(limit + 1, np.nan)
    for at, to in table.rules.milestones:
        if at <= limit:
            landing[at] = chance[to] - chance[at]
    frame["landing"] = landing
    return frame
