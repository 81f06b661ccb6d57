"""A self-play study: play many seeded rounds and summarise them with intervals.

This is what the quick start runs: it measures how rounds end, how often a
call is met by an Assaf at each hand value, and checks the simulated
first-turn call rate against the exact combinatorial odds of the deal.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from yaniv_sim import engine
from yaniv_sim._version import __version__
from yaniv_sim.odds import p_dealt_at_most
from yaniv_sim.rules import Rules
from yaniv_sim.stats import wilson_interval

__all__ = ["SelfPlay", "run_selfplay"]


@dataclasses.dataclass
class SelfPlay:
    """Summary of a batch of self-play rounds."""

    rules: Rules
    players: int
    policy: str
    seed: int
    rounds: int
    seconds: float
    outcomes: dict[str, int]
    turns_mean: float
    reshuffle_rounds: int
    calls_by_value: np.ndarray  # calls at each caller value 0..threshold
    assafs_by_value: np.ndarray
    first_turn_calls: int
    first_turn_exact: float

    def markdown(self) -> str:
        """The study as a Markdown report."""
        r = self.rounds
        lines = [
            "# Yaniv self-play study",
            "",
            f"yaniv-sim {__version__}: {r:,} rounds of `{self.policy}` self-play, "
            f"{self.players} players, seed {self.seed}; played in {self.seconds:.1f} s "
            f"({r / max(self.seconds, 1e-9):,.0f} rounds/s including compilation).",
            "",
            "Rules: " + ", ".join(f"`{k}={v}`" for k, v in self.rules.to_dict().items()),
            "",
            "Intervals are 95% Wilson score intervals.",
            "",
            "## How rounds end",
            "",
            "| outcome | rounds | share | 95% interval |",
            "|---|---:|---:|---|",
        ]
        for name, count in self.outcomes.items():
            lo, hi = wilson_interval(count, r)
            lines.append(f"| {name} | {count:,} | {count / r:.2%} | {lo:.2%} - {hi:.2%} |")
        lines += [
            "",
            f"Mean turns per round: {self.turns_mean:.2f}. Rounds with a reshuffle of the "
            f"pile: {self.reshuffle_rounds:,}.",
            "",
            "## Assaf risk by the caller's hand value",
            "",
            "The share of calls at each hand value that were met by an Assaf "
            "(another player at or below the caller).",
            "",
            "| caller's hand | calls | Assaf rate | 95% interval |",
            "|---:|---:|---:|---|",
        ]
        for value, (calls, assafs) in enumerate(
            zip(self.calls_by_value, self.assafs_by_value, strict=True)
        ):
            if calls == 0:
                lines.append(f"| {value} | 0 | - | - |")
                continue
            lo, hi = wilson_interval(assafs, calls)
            lines.append(f"| {value} | {calls:,} | {assafs / calls:.2%} | {lo:.2%} - {hi:.2%} |")
        lo, hi = wilson_interval(self.first_turn_calls, r)
        lines += [
            "",
            "## Check against exact odds",
            "",
            f"The starter calls at once whenever the dealt hand is at most the threshold "
            f"({self.rules.threshold}). Simulated: {self.first_turn_calls / r:.4%} "
            f"(95% interval {lo:.4%} - {hi:.4%}); exact by combinatorics: "
            f"{self.first_turn_exact:.4%}.",
            "",
        ]
        return "\n".join(lines)


def run_selfplay(
    rules: Rules, players: int, rounds: int, seed: int = 0, policy: str = "max-shed"
) -> SelfPlay:
    """Play ``rounds`` seeded rounds and summarise them."""
    start = time.perf_counter()
    data = engine.play_rounds(rules, players, seed, rounds, policy)
    seconds = time.perf_counter() - start
    outcome = data["outcome"]
    outcomes = {name: int((outcome == i).sum()) for i, name in enumerate(engine.OUTCOMES)}
    called = np.isin(outcome, [0, 1])
    values = data["caller_value"][called]
    calls = np.bincount(values, minlength=rules.threshold + 1)
    assafs = np.bincount(values[outcome[called] == 1], minlength=rules.threshold + 1)
    first_turn = int(((data["turns"] == 0) & called).sum())
    return SelfPlay(
        rules=rules,
        players=players,
        policy=policy,
        seed=seed,
        rounds=rounds,
        seconds=seconds,
        outcomes=outcomes,
        turns_mean=float(data["turns"].mean()) if rounds else 0.0,
        reshuffle_rounds=int((data["reshuffles"] > 0).sum()),
        calls_by_value=calls,
        assafs_by_value=assafs,
        first_turn_calls=first_turn,
        first_turn_exact=p_dealt_at_most(rules.threshold, rules, players),
    )


def report_path(path: Path) -> Path:
    """The report file for ``path`` (a ``.md`` file or a directory), its folder made.

    Raises ``ValueError`` when the folder cannot be made or written to.
    """
    path = Path(path)
    if path.suffix != ".md":
        path = path / "selfplay.md"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe = path.parent / f".{path.name}.probe"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise ValueError(f"out {path.parent}: cannot write there ({error.strerror})") from None
    return path


def write_report(study: SelfPlay, path: Path) -> Path:
    """Write the study's Markdown report to ``path`` (a file or a directory)."""
    path = report_path(path)
    path.write_text(study.markdown(), encoding="utf-8")
    return path
