"""What a simulation run is asked to do, split into chunks with fixed indices.

Terminology
-----------
unit
    One round (``mode="rounds"``: independent deals, every seat at total 0)
    or one whole game (``mode="games"``).
chunk
    Units ``index * chunk_size`` up to the next chunk's first unit. Chunk
    indices are fixed by the request, so any chunk can be played, stored or
    played again on its own.
seating
    ``"rotate"`` (default): policy ``p`` of the request sits in seat
    ``(p + q) % players`` in rotation ``q``; rotations cycle over the units,
    so every policy sits in every seat equally often (each full cycle of
    ``players**2`` rounds, or ``players`` games). ``"fixed"``: policy ``p``
    always sits in seat ``p``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from yaniv_sim.engine.kernel import normalise_seed
from yaniv_sim.engine.specs import canonical_spec, policy_vector
from yaniv_sim.rules import Rules

DEFAULT_CHUNK = {"rounds": 100_000, "games": 2_000}
MAX_COUNT = 2**31 - 1  # the ``game`` and ``round`` columns are 32-bit
MAX_CHUNKS = 1_000_000  # one marker and two or three part files each
MODES = ("rounds", "games")
SEATINGS = ("rotate", "fixed")


@dataclasses.dataclass(frozen=True)
class SimRequest:
    """One simulation run: rules, table, policies, how much, and the seed."""

    rules: Rules
    players: int
    policies: tuple[str, ...]  # one spec per seat (of the base seating)
    mode: Literal["rounds", "games"]
    count: int
    seed: int
    seating: Literal["rotate", "fixed"] = "rotate"
    chunk_size: int = 0  # 0: the default for the mode
    branches: bool = False  # play both branches of every call decision (games mode)
    branch_games: int = 1  # with branches: play on to the game's end in one game in N

    @classmethod
    def make(
        cls,
        rules: Rules,
        players: int,
        policies: str | Sequence[str] = "max-shed",
        *,
        rounds: int | None = None,
        games: int | None = None,
        seed: int = 0,
        seating: str = "rotate",
        chunk_size: int | None = None,
        branches: bool = False,
        branch_games: int = 1,
    ) -> SimRequest:
        """Check and normalise a request; every problem is a one-line ``ValueError``."""
        if not isinstance(rules, Rules):
            raise ValueError(f"rules: expected a Rules, got {type(rules).__name__}")
        rules.check_players(players)
        if (rounds is None) == (games is None):
            raise ValueError("give either rounds or games (exactly one of them)")
        mode = "rounds" if rounds is not None else "games"
        count = rounds if rounds is not None else games
        if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 1:
            raise ValueError(f"{mode}: {count!r} is not allowed; use a whole number of at least 1")
        if count > MAX_COUNT:
            raise ValueError(
                f"{mode}: {count} is more than a dataset can index; use 1 to {MAX_COUNT:,}"
            )
        if isinstance(policies, str):
            policies = [policies] * players
        policies = tuple(canonical_spec(p) for p in policies)
        if len(policies) == 1:
            policies = policies * players
        if len(policies) != players:
            raise ValueError(
                f"policy: {len(policies)} given for {players} players; give one for every "
                "seat or a single one for all"
            )
        for spec in policies:
            policy_vector(spec)  # raises on unknown names or parameters
        if seating not in SEATINGS:
            raise ValueError(f"seating: {seating!r} is not allowed; use 'rotate' or 'fixed'")
        size = DEFAULT_CHUNK[mode] if chunk_size in (None, 0) else chunk_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"chunk_size: {size!r} is not allowed; use a whole number >= 1")
        if -(-count // size) > MAX_CHUNKS:
            raise ValueError(
                f"chunk_size: {size} makes {-(-count // size):,} chunks of {count:,} {mode}; "
                f"a dataset holds at most {MAX_CHUNKS:,}, so use a chunk_size of at least "
                f"{-(-count // MAX_CHUNKS):,}"
            )
        if branches and mode != "games":
            raise ValueError("branches: counterfactual branches need games mode (give games)")
        if isinstance(branch_games, bool) or not isinstance(branch_games, int) or branch_games < 1:
            raise ValueError(
                f"branch_games: {branch_games!r} is not allowed; use a whole number >= 1"
            )
        return cls(rules, players, policies, mode, int(count), normalise_seed(seed), seating, size,
                   bool(branches), int(branch_games) if branches else 1)  # fmt: skip

    # -- chunks ------------------------------------------------------------------

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size)

    def chunk_units(self, index: int) -> tuple[int, int]:
        """(first unit, number of units) of chunk ``index``."""
        if not 0 <= index < self.n_chunks:
            raise ValueError(f"chunk {index} is not in this request (0 to {self.n_chunks - 1})")
        first = index * self.chunk_size
        return first, min(self.chunk_size, self.count - first)

    # -- policies ----------------------------------------------------------------

    def policy_names(self) -> list[str]:
        """Distinct policy specs in order of first appearance; a policy's id is its index."""
        return list(dict.fromkeys(self.policies))

    def policy_ids(self) -> np.ndarray:
        """Policy id of each seat of the base seating."""
        names = self.policy_names()
        return np.array([names.index(p) for p in self.policies], np.int8)

    def rotations(self) -> tuple[np.ndarray, np.ndarray]:
        """Policy matrices and seat policy ids for every seating rotation.

        Returns ``pols`` of shape ``(rotations, players, N_POLICY_PARAMS)`` and
        ``ids`` of shape ``(rotations, players)``: in rotation ``q`` seat ``s``
        holds the base seating's policy ``(s - q) % players``.
        """
        base = np.stack([policy_vector(p) for p in self.policies])
        base_ids = self.policy_ids()
        n_rot = self.players if self.seating == "rotate" else 1
        order = [(np.arange(self.players) - q) % self.players for q in range(n_rot)]
        pols = np.stack([base[o] for o in order])
        ids = np.stack([base_ids[o] for o in order])
        return np.ascontiguousarray(pols), ids

    # -- identity ----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The request as plain data, for the dataset manifest."""
        return {
            "rules": self.rules.to_dict(),
            "players": self.players,
            "policies": list(self.policies),
            "mode": self.mode,
            "count": self.count,
            "seed": self.seed,
            "seating": self.seating,
            "chunk_size": self.chunk_size,
            "branches": self.branches,
            "branch_games": self.branch_games,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SimRequest:
        return cls.make(
            Rules.from_dict(data["rules"]),
            data["players"],
            data["policies"],
            **{data["mode"]: data["count"]},
            seed=data["seed"],
            seating=data["seating"],
            chunk_size=data["chunk_size"],
            branches=data.get("branches", False),
            branch_games=data.get("branch_games", 1),
        )
