"""Fair comparisons of policies: duplicate games with common random numbers.

Terminology
-----------
duplicate format
    Every deal is played once per seating: the policies are seated cyclically
    (seat ``s`` gets policy ``s % k``) and the arrangement is turned one seat
    per replay; when ``k`` does not divide the table, the cyclic assignment is
    also shifted through all ``k`` policies, so each policy sits in every seat
    equally often on the same cards. A seating that turning gives twice (two
    policies at 4 players: ABAB, BABA, ABAB, BABA) is played once, since the
    same seating, seed and deal replay the same games. The luck of the deal
    cancels out of the differences.
deal
    A game index: its shuffles come from the seed, the game and the round
    alone, so every replay of a game index sees the same deck for each round.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import itertools
import math
import multiprocessing
import os
import sys

import numpy as np
import pandas as pd
from scipy import stats

from yaniv_sim.rules import Rules
from yaniv_sim.simulation.chunks import play_chunk
from yaniv_sim.simulation.request import SimRequest
from yaniv_sim.stats import wilson_interval

__all__ = ["Comparison", "compare", "deal_interval", "seatings"]

Z = float(stats.norm.ppf(0.975))


def deal_interval(values, clip: tuple[float, float] | None = None) -> tuple[float, float, float]:
    """Mean of one number per deal with its 95% interval over the deals.

    The deal is the unit of a duplicate comparison: its replays share the
    cards, so they are averaged into one value per deal first (a policy's
    win share of the deal, or the difference of two policies' shares), and
    the interval is the normal one over those values. This is the paired
    interval: the luck of the deal, common to every policy, cancels. ``clip``
    bounds the interval (``(0, 1)`` for a share).
    """
    d = np.asarray(values, dtype=np.float64)
    n = len(d)
    mean = float(d.mean()) if n else math.nan
    se = float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    low, high = mean - Z * se, mean + Z * se
    if clip is not None:
        low, high = max(clip[0], low), min(clip[1], high)
    return mean, low, high


@dataclasses.dataclass
class Comparison:
    """The result of a duplicate comparison."""

    rules: Rules
    players: int
    policies: list[str]
    games: int  # deals; each was played once per rotation
    seed: int
    table: pd.DataFrame  # one row per policy
    pairs: pd.DataFrame  # one row per ordered pair (a, b) with a before b
    sequential: str | None = None  # the SPRT's verdict when it stopped early
    # each deal's win share of each policy (deals x policies), averaged over its replays
    deal_wins: np.ndarray | None = dataclasses.field(default=None, repr=False)
    # each deal's round points of each policy's seats, summed over its replays, and the
    # round-seats they were scored over (deals x policies)
    deal_points: np.ndarray | None = dataclasses.field(default=None, repr=False)
    deal_seats: np.ndarray | None = dataclasses.field(default=None, repr=False)

    def gain_over_fair(self, policy: int = 0) -> tuple[float, float, float]:
        """A policy's win share less its fair share, with the paired 95% interval over deals.

        With one policy against copies of another (``[A, B, B, B]``) this is
        what a single seat gains by playing ``A`` at a table of ``B``.
        """
        return deal_interval(self.deal_wins[:, policy] - 1 / len(self.policies))

    def points_difference(self, a: int = 0, b: int = 1) -> tuple[float, float, float]:
        """Policy ``a``'s points per round less ``b``'s, with the paired 95% interval over deals.

        Each deal gives one value, ``a``'s mean round score on that deal's
        replays less ``b``'s, so the luck of the cards cancels; positive means
        ``a`` scores more (worse: low scores are good in Yaniv).
        """
        with np.errstate(invalid="ignore", divide="ignore"):
            per = self.deal_points / self.deal_seats
        d = per[:, a] - per[:, b]
        return deal_interval(d[np.isfinite(d)])

    def __str__(self) -> str:
        lines = [
            f"duplicate comparison: {self.games:,} deals, each replayed in every seating, "
            f"{self.players} players, seed {self.seed}",
            "",
            f"{'policy':<24} {'win rate (95% interval)':<24} {'fair':>6}  "
            f"{'round score (95%)':<20} {'Assaf per call (95%)':<23} {'rounds/game':>11}",
        ]
        for row in self.table.itertuples():
            win = f"{row.win_rate:.2%} ({row.win_low:.2%}-{row.win_high:.2%})"
            score = f"{row.mean_round_score:.2f} ({row.score_low:.2f}-{row.score_high:.2f})"
            assaf = f"{row.assaf_per_call:.2%} ({row.assaf_low:.2%}-{row.assaf_high:.2%})"
            lines.append(
                f"{row.policy:<24} {win:<24} {row.fair_share:>6.1%}  {score:<20} {assaf:<23} "
                f"{row.rounds_per_game:>11.2f}"
            )
        lines.append("")
        if self.sequential is not None:
            a, b = self.policies[:2]
            verdict = {
                "first better": f"{a} beats {b}",
                "second better": f"{b} beats {a}",
                "no difference": "no difference as large as the effect size",
            }[self.sequential]
            lines.append(f"sequential test stopped after {self.games:,} deals: {verdict}")
        for row in self.pairs.itertuples():
            # a verdict only where the 95% interval of the difference excludes 0
            if row.low > 0:
                verdict = "beats"
            elif row.high < 0:
                verdict = "loses to"
            else:
                verdict = "is not separable from"
            p = f"{row.p_value:.2g}" if row.p_value >= 1e-16 else "< 1e-16"
            lines.append(
                f"{row.a} {verdict} {row.b}: win-rate difference {row.difference:+.2%} "
                f"(95% interval {row.low:+.2%} to {row.high:+.2%}), "
                f"one-sided p {p} for '{row.a} beats {row.b}'"
            )
        return "\n".join(lines)


def seatings(players: int, k: int) -> list[tuple[int, ...]]:
    """The distinct seatings a deal is replayed in: which policy sits at each seat.

    The policies sit in turn round the table (``s % k``); every rotation of
    that, and, where ``k`` does not divide ``players``, every shift of which
    policy comes first, so that each policy plays every seat of every deal
    equally often. Rotations that give the same seating (two policies at 4
    players: ABAB turned twice is ABAB again) would replay the same games
    with the same seed, so each seating is played once.
    """
    shifts = 1 if players % k == 0 else k
    found = {}
    for t in range(shifts):
        for q in range(players):
            found.setdefault(tuple(((s - q) % players + t) % k for s in range(players)), None)
    return list(found)


def _rotation(job):
    """Play every deal in one seating rotation; per-policy sums (runs in a worker)."""
    rules_data, players, policies, games, chunk, index, seed, owner, replays = job
    k = len(policies)
    owner = np.array(owner)
    seating = [policies[i] for i in owner]
    request = SimRequest.make(Rules.from_dict(rules_data), players, seating, games=games,
                              seed=seed, seating="fixed", chunk_size=chunk)  # fmt: skip
    tables = play_chunk(request, index)
    deals = request.chunk_units(index)[1]
    wins = np.zeros((deals, k))
    # per deal and policy: round points and round-seats played (for paired score intervals)
    deal_points, deal_seats = np.zeros((deals, k)), np.zeros((deals, k))
    calls, assafs = np.zeros(k), np.zeros(k)
    g = tables["games"]
    winner = g["winner"].to_numpy()
    has = winner >= 0
    wins[np.flatnonzero(has), owner[winner[has]]] += 1.0 / replays
    r = tables["rounds"]
    game_of = r["game"].to_numpy() - request.chunk_units(index)[0]
    round_of = r["round"].to_numpy()
    caller = r["caller"].to_numpy()
    called = r["outcome"].isin(["yaniv", "assaf"]).to_numpy()
    assaf = (r["outcome"] == "assaf").to_numpy()
    for s in range(players):
        p = owner[s]
        out = g[f"out_round_{s}"].to_numpy()[game_of]
        playing = (out < 0) | (round_of <= out)
        scores = r[f"score_{s}"].to_numpy()[playing].astype(np.float64)
        np.add.at(deal_points[:, p], game_of[playing], scores)
        np.add.at(deal_seats[:, p], game_of[playing], 1.0)
        mine = called & (caller == s)
        calls[p] += mine.sum()
        assafs[p] += (mine & assaf).sum()
    return wins, deal_points, deal_seats, calls, assafs, len(r)


def play_deals(policies, rules, players, games, chunk, index, seed, pool=None) -> tuple:
    """Chunk ``index`` (of ``chunk`` deals) of a duplicate match of ``games`` deals, every seating.

    Returns per-deal and per-policy sums: ``(wins, deal_points, deal_seats,
    calls, assafs, rounds)``, ``wins`` of shape ``(deals, len(policies))``
    (a deal's share of games won, over its seatings). Deals are seeded one by
    one, so the chunks of any ``chunk`` size put together are the same deals.
    ``pool``: an executor to play the seatings on, or ``None`` for this process.
    """
    owners = seatings(players, len(policies))
    jobs = [(rules.to_dict(), players, list(policies), games, chunk, index, seed, owner,
             len(owners)) for owner in owners]  # fmt: skip
    results = list(pool.map(_rotation, jobs)) if pool else [_rotation(j) for j in jobs]
    return tuple(sum(r[i] for r in results) for i in range(6))


def compare(
    policies: list[str],
    rules: Rules | None = None,
    players: int = 4,
    games: int = 2000,
    seed: int = 0,
    workers: int | None = None,
    *,
    sequential: bool = False,
    effect: float = 0.02,
    alpha: float = 0.05,
    chunk: int = 500,
) -> Comparison:
    """Play ``games`` deals in duplicate format and compare the policies.

    Parameters
    ----------
    policies : list of str
        Two or more policy specs (at most ``players``).
    rules : Rules
    players : int
    games : int
        Deals; each is played once in every distinct seating (see :func:`seatings`).
    seed : int
    workers : int, optional
        Worker processes (default: all cores).
    sequential : bool
        Two policies only: play the deals in chunks of ``chunk`` and stop as
        soon as a sequential probability ratio test (Wald, on the per-deal
        win-share difference, Gaussian approximation) decides between "no
        difference" and a difference of ``effect`` either way, at error rates
        ``alpha``. Chunks are checked in order, so the stopping point is
        reproducible. ``games`` is then the most that will be played.
    """
    rules = rules or Rules()
    k = len(policies)
    if k < 2:
        raise ValueError("compare needs at least two policies")
    if k > players:
        raise ValueError(f"policies: {k} policies cannot all sit at a table of {players}")
    base = [policies[s % k] for s in range(players)]
    SimRequest.make(rules, players, base, games=games, seed=seed)  # check everything first
    owners = seatings(players, k)
    replays = len(owners)
    chunk = min(chunk, games) if sequential else games
    if sequential and k != 2:
        raise ValueError("sequential: compares exactly two policies")
    workers = min(workers or os.cpu_count() or 1, os.cpu_count() or 1)
    parts = []
    decision = None
    pool = None
    if workers > 1:
        context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
        pool = cf.ProcessPoolExecutor(min(workers, replays), mp_context=context)
    try:
        for index in range(-(-games // chunk)):
            parts.append(play_deals(policies, rules, players, games, chunk, index, seed, pool))
            if sequential:
                d = np.concatenate([p[0][:, 0] - p[0][:, 1] for p in parts])
                decision = _sprt(d, effect, alpha)
                if decision is not None:
                    break
    finally:
        if pool is not None:
            pool.shutdown()
    wins = np.concatenate([p[0] for p in parts])
    deal_points = np.concatenate([p[1] for p in parts])
    deal_seats = np.concatenate([p[2] for p in parts])
    calls, assafs = (sum(p[i] for p in parts) for i in (3, 4))
    rounds_total = sum(p[5] for p in parts)
    games = len(wins)
    n = games
    table_rows = []
    for i, name in enumerate(policies):
        # the win share with its interval over the deals (see deal_interval)
        share, low, high = deal_interval(wins[:, i], clip=(0.0, 1.0))
        mean_score, score_se = _ratio_mean(deal_points[:, i], deal_seats[:, i])
        assaf_low, assaf_high = wilson_interval(assafs[i], calls[i])
        table_rows.append(
            {
                "policy": name,
                "win_rate": share,
                "win_low": low,
                "win_high": high,
                "fair_share": 1 / k,
                "mean_round_score": mean_score,
                "score_low": mean_score - Z * score_se,
                "score_high": mean_score + Z * score_se,
                "assaf_per_call": assafs[i] / max(calls[i], 1),
                "assaf_low": assaf_low,
                "assaf_high": assaf_high,
                "calls": int(calls[i]),
                "rounds_per_game": rounds_total / (replays * n),
            }
        )
    pair_rows = []
    for a, b in itertools.combinations(range(k), 2):
        d = wins[:, a] - wins[:, b]
        mean, low, high = deal_interval(d)
        se = (high - mean) / Z if n > 1 else math.inf
        t = mean / se if se > 0 else (math.inf if mean > 0 else -math.inf if mean < 0 else 0.0)
        pair_rows.append(
            {
                "a": policies[a],
                "b": policies[b],
                "difference": mean,
                "low": low,
                "high": high,
                "p_value": float(stats.norm.sf(t)),
                "p_value_reverse": float(stats.norm.cdf(t)),
            }
        )
    return Comparison(rules, players, list(policies), games, seed, pd.DataFrame(table_rows),
                      pd.DataFrame(pair_rows), decision, wins, deal_points,
                      deal_seats)  # fmt: skip


def _ratio_mean(points: np.ndarray, seats: np.ndarray) -> tuple[float, float]:
    """Points per round-seat over all deals, with its standard error clustered by deal.

    A deal's rounds are not independent (one game's totals and eliminations
    shape every later round), so the error is the ratio estimator's, with the
    deal as the cluster: ``sqrt(sum_d (P_d - m N_d)^2 * n / (n - 1)) / sum_d N_d``.
    """
    total = float(seats.sum())
    if total == 0:
        return math.nan, math.inf
    mean = float(points.sum()) / total
    n = len(points)
    if n < 2:
        return mean, math.inf
    resid = points - mean * seats
    return mean, math.sqrt(float((resid**2).sum()) * n / (n - 1)) / total


def _sprt(d: np.ndarray, effect: float, alpha: float) -> str | None:
    """Wald's test of mean 0 against mean +effect and -effect; a verdict or None."""
    if len(d) < 2:
        return None
    var = max(float(d.var(ddof=1)), 1e-6)
    upper = math.log((1 - alpha) / alpha)
    lower = math.log(alpha / (1 - alpha))
    total = float(d.sum())
    n = len(d)
    llr_up = (effect * total - n * effect**2 / 2) / var
    llr_down = (-effect * total - n * effect**2 / 2) / var
    if llr_up >= upper:
        return "first better"
    if llr_down >= upper:
        return "second better"
    if llr_up <= lower and llr_down <= lower:
        return "no difference"
    return None
