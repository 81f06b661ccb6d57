"""Readable records of played rounds and games, turn by turn.

A record keeps card codes as numpy arrays (for checking) and prints as a
transcript a person can follow (``print(record)``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from yaniv_sim.cards import format_cards
from yaniv_sim.engine._layout import (
    KIND_NAMES,
    L_ACTION,
    L_DISCARD,
    L_DRAWN,
    L_HAND,
    L_HAND_N,
    L_KIND,
    L_NDISCARD,
    L_RESHUFFLED,
    L_SEAT,
    L_SOURCE,
    L_STOCK_LEFT,
    OUTCOME_NAMES,
    S_CALLER,
    S_CALLER_VALUE,
    S_OUTCOME,
    S_RESHUFFLES,
    S_STARTER,
    S_TURNS,
    S_WINNER,
)

ACTIONS = ("turn", "call", "slapdown")
SOURCES = {0: "stock", 1: "pile", -1: "none"}


@dataclasses.dataclass(frozen=True)
class Turn:
    """One step of a round: a discard-and-draw turn, a call or a slapdown."""

    seat: int
    action: str  # "turn", "call" or "slapdown"
    discard: np.ndarray  # cards as laid (empty for a call or slapdown)
    kind: str | None  # "single", "set", "run"
    source: str  # "stock", "pile", or "none" (no draw)
    drawn: int | None  # card code drawn
    reshuffled: bool  # the pile was turned into a new stock before this draw
    stock_left: int
    hand: np.ndarray  # the seat's hand after the step

    def __str__(self) -> str:
        if self.action == "call":
            return f"seat {self.seat} calls Yaniv holding {format_cards(self.hand)}"
        if self.action == "slapdown":
            return f"seat {self.seat} slaps down holding {format_cards(self.hand)}"
        text = f"seat {self.seat} lays {self.kind} {format_cards(self.discard)}"
        if self.source == "none":
            text += ", the stock is empty: the round ends"
        else:
            shuffled = " (pile reshuffled into a new stock)" if self.reshuffled else ""
            text += f", draws {format_cards([self.drawn])} from the {self.source}{shuffled}"
        return text + f" -> {format_cards(self.hand)}"


@dataclasses.dataclass
class RoundRecord:
    """What happened in one round."""

    rules: Any
    seed: int
    game: int
    round: int
    policies: Any
    starter: int
    alive: np.ndarray
    dealt: list[np.ndarray]
    turned_up: int
    outcome: str  # yaniv, assaf, slapdown, void, stock_out
    caller: int | None
    caller_value: int | None
    winner: int | None  # the round's winner for the starter rule
    turns: int  # discard-and-draw turns played
    reshuffles: int
    hand_values: np.ndarray
    scores: np.ndarray
    steps: list[Turn] | None
    from_turn: int = 0  # the turn it was played on from (``engine.play_on``); 0: the deal

    def __str__(self) -> str:
        if self.from_turn:
            lines = [f"played on from turn {self.from_turn}, seat {self.starter} started"]
        else:
            lines = [
                f"game {self.game} round {self.round} (seed {self.seed}), "
                f"seat {self.starter} starts; turned up {format_cards([self.turned_up])}"
            ]
        for seat, hand in enumerate(self.dealt):
            if self.alive[seat]:
                lines.append(f"  seat {seat} {'holds' if self.from_turn else 'dealt'} "
                         f"{format_cards(hand)}")  # fmt: skip
        for number, step in enumerate(self.steps or [], start=1 + self.from_turn):
            lines.append(f"  {number:>3}. {step}")
        who = "" if self.caller is None else f" by seat {self.caller} with {self.caller_value}"
        lines.append(
            f"  {self.outcome}{who} after {self.turns} turns; hands "
            f"{self.hand_values.tolist()}, scores {self.scores.tolist()}"
        )
        return "\n".join(lines)


def round_record(
    *, rules, seed, game, round, policies, alive, dealt, turned_up, summary, values, scores, log,
    from_turn=0,
) -> RoundRecord:  # fmt: skip
    steps = None
    if log is not None:
        steps = []
        for row in log:
            n = int(row[L_NDISCARD])
            source = int(row[L_SOURCE])
            steps.append(
                Turn(
                    seat=int(row[L_SEAT]),
                    action=ACTIONS[int(row[L_ACTION])],
                    discard=row[L_DISCARD : L_DISCARD + n].copy(),
                    kind=KIND_NAMES[int(row[L_KIND])] if row[L_KIND] >= 0 else None,
                    source=SOURCES[source] if row[L_ACTION] == 0 else "none",
                    drawn=int(row[L_DRAWN]) if row[L_ACTION] == 0 and source >= 0 else None,
                    reshuffled=bool(row[L_RESHUFFLED]),
                    stock_left=int(row[L_STOCK_LEFT]),
                    hand=row[L_HAND : L_HAND + int(row[L_HAND_N])].copy(),
                )
            )
    caller = int(summary[S_CALLER])
    winner = int(summary[S_WINNER])
    return RoundRecord(
        rules=rules,
        seed=seed,
        game=game,
        round=round,
        policies=policies,
        starter=int(summary[S_STARTER]),
        alive=alive.astype(bool),
        dealt=dealt,
        turned_up=turned_up,
        outcome=OUTCOME_NAMES[int(summary[S_OUTCOME])],
        caller=None if caller < 0 else caller,
        caller_value=None if caller < 0 else int(summary[S_CALLER_VALUE]),
        winner=None if winner < 0 else winner,
        turns=int(summary[S_TURNS]),
        reshuffles=int(summary[S_RESHUFFLES]),
        hand_values=values.copy(),
        scores=scores.copy(),
        steps=steps,
        from_turn=from_turn,
    )


@dataclasses.dataclass
class GameRecord:
    """What happened in one game, round by round.

    Row ``r`` of ``values``, ``scores``, ``totals``, ``alive`` and ``landed``
    is round ``r``: hand values and scores of the round, running totals and
    who is still in after it, and who landed on a milestone in it.
    """

    rules: Any
    players: int
    seed: int
    game: int
    policies: Any
    winner: int | None
    summaries: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    totals: np.ndarray
    alive: np.ndarray
    landed: np.ndarray
    round_records: list[RoundRecord] = dataclasses.field(default_factory=list)

    @property
    def rounds(self) -> int:
        return len(self.summaries)

    def outcomes(self) -> list[str]:
        return [OUTCOME_NAMES[int(o)] for o in self.summaries[:, S_OUTCOME]]

    def eliminations(self) -> list[tuple[int, int]]:
        """``(round, seat)`` for every seat that went out, in order."""
        out = []
        before = np.ones(self.players, bool)
        for r in range(self.rounds):
            for seat in np.flatnonzero(before & ~self.alive[r]):
                out.append((r, int(seat)))
            before = self.alive[r]
        return out

    def __str__(self) -> str:
        lines = [f"game {self.game} (seed {self.seed}), {self.players} players"]
        for r in range(self.rounds):
            s = self.summaries[r]
            caller = "" if s[S_CALLER] < 0 else f" seat {s[S_CALLER]} with {s[S_CALLER_VALUE]}"
            marks = "".join(f" *{seat} milestone" for seat in np.flatnonzero(self.landed[r]))
            lines.append(
                f"  round {r:>3}: starts {s[S_STARTER]}, {OUTCOME_NAMES[s[S_OUTCOME]]}{caller}, "
                f"{s[S_TURNS]} turns; scores {self.scores[r].tolist()} -> totals "
                f"{self.totals[r].tolist()}{marks}"
            )
            if self.round_records:
                for line in str(self.round_records[r]).splitlines()[1:]:
                    lines.append("      " + line)
        result = "no winner" if self.winner is None else f"seat {self.winner} wins"
        lines.append(f"  {result} after {self.rounds} rounds")
        return "\n".join(lines)
