"""What a report is asked for, and the simulations its sections share.

Datasets are stored under ``data/`` with the names :func:`yaniv_sim.simulate`
gives them, so a second report with the same settings reuses them instead of
simulating again (a dataset is reused only when its manifest records the
same request and tool version).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

from yaniv_sim._version import __version__, source_digest
from yaniv_sim.rules import Rules, rules_label
from yaniv_sim.runs import default_out, simulate
from yaniv_sim.simulation.request import SimRequest
from yaniv_sim.storage import Dataset, open_dataset

__all__ = ["ReportOptions", "rules_label"]


@dataclasses.dataclass
class ReportOptions:
    """Settings of one report run; sections read their budgets from here.

    ``quick`` shrinks every budget so the whole report takes about two
    minutes; ``scale`` multiplies the default budgets (``--games`` sets it
    from a number of games per table).
    """

    rules: Rules = dataclasses.field(default_factory=Rules)
    # table sizes (players at the start of a game): every size the rules allow
    players: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8)
    # the player's page's table sizes (read from shipped files, so cheap), when not
    # ``players``: the command line's quick report simulates 2 to 5 players, its page has 2 to 8
    page_players: tuple[int, ...] | None = None
    policy: str = "best"
    seed: int = 0
    quick: bool = False
    scale: float = 1.0
    workers: int | None = None
    dask: str | None = None
    data: Path = Path("data")
    quiet: bool = False
    started: float = dataclasses.field(default_factory=time.perf_counter)

    command_line: str = "yaniv-sim report"
    _cache: dict = dataclasses.field(default_factory=dict, repr=False)

    # games with counterfactual branches, shared by the Assaf-risk and
    # when-to-call sections: (full, quick) games per table size, and one
    # game in BRANCH_GAMES is played on to its end both ways
    DECISION_GAMES = (3000, 300)
    BRANCH_GAMES = 8

    def decision_data(self, players: int) -> Dataset:
        """Self-play games of ``policy`` at ``players`` seats, with branches."""
        key = ("decisions", players)
        if key not in self._cache:
            games = self.budget(*self.DECISION_GAMES)
            self.say(f"{players} players: {games:,} games of {self.policy} with call branches")
            self._cache[key] = self.games(players, self.policy, games, branches=True,
                                          branch_games=self.BRANCH_GAMES)  # fmt: skip
        return self._cache[key]

    def decision_points(self, players: int):
        """The decision points of :meth:`decision_data`, without stand-offs.

        Rounds stopped by the turn cap (``max_turns``, outcome ``void``) are
        stand-offs in which no player will call; each adds up to a thousand
        decision points that would swamp the rest, so they are left out.
        Returns ``(decisions, void_rounds, rounds, dropped_points)``.
        """
        data = self.decision_data(players)
        keep = self.outside_standoffs(players)
        void = int((data.rounds["outcome"] == "void").sum())
        dec = data.decisions[keep].reset_index(drop=True)
        return dec, void, len(data.rounds), int((~keep).sum())

    def outside_standoffs(self, players: int) -> np.ndarray:
        """bool per row of :meth:`decision_data`'s decisions: not in a void round."""
        data = self.decision_data(players)
        rounds, dec = data.rounds, data.decisions
        void = rounds.loc[rounds["outcome"] == "void", ["game", "round"]]
        if not len(void):
            return np.ones(len(dec), bool)
        marker = dec[["game", "round"]].merge(void.assign(_void=True), on=["game", "round"],
                                              how="left")  # fmt: skip
        return marker["_void"].isna().to_numpy()

    def command(self) -> str:
        """The command that makes this report (for its preface)."""
        return self.command_line

    @property
    def label(self) -> str:
        return rules_label(self.rules)

    def budget(self, full: int, quick: int) -> int:
        """A count of games or deals: ``full`` by default, ``quick`` with ``--quick``."""
        return max(1, round((quick if self.quick else full) * self.scale))

    def say(self, message: str) -> None:
        """A progress line on stderr (with the time since the report started)."""
        if not self.quiet:
            elapsed = time.perf_counter() - self.started
            print(f"[{elapsed:6.0f} s] {message}", file=sys.stderr, flush=True)

    def setup(self, **fields: str) -> dict[str, str]:
        """The setup line of a section: rule set, then ``fields``, seed and tool version."""
        return {
            "rules": self.label,
            **fields,
            "seed": str(self.seed),
            "yaniv-sim": __version__,
        }

    def games(
        self,
        players: int,
        policies: str | list[str],
        games: int,
        *,
        rules: Rules | None = None,
        branches: bool = False,
        branch_games: int = 1,
    ) -> Dataset:
        """A games dataset for this request, simulated now or reused from ``data/``."""
        rules = rules or self.rules
        request = SimRequest.make(rules, players, policies, games=games, seed=self.seed,
                                  branches=branches, branch_games=branch_games)  # fmt: skip
        path = self.data / default_out(request).relative_to("data")

        def run(out: Path):
            return simulate(rules, players, policies, games=games, seed=self.seed,
                            workers=self.workers, dask=self.dask, out=out, resume=True,
                            quiet=self.quiet or not sys.stderr.isatty(), branches=branches,
                            branch_games=branch_games)  # fmt: skip

        try:
            result = run(path)
        except ValueError as error:
            if "different settings" not in str(error):
                raise
            # a dataset of another tool version or source: keep it, simulate beside it
            path = path.with_name(path.name + f"-v{__version__}-{source_digest()[:8]}")
            result = run(path)
        if result.chunks_run == 0:
            self.say(f"reused {path}")
        return open_dataset(path)
