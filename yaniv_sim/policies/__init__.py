"""The policy families' parameters, each declared once.

A seat's policy is a vector of ``float64`` slots: slot 0 says the family,
each family's parameters have slots of their own. Each :class:`Param` below
says its name, default, allowed range, whether it is a whole number, and what
it does in one line; from these declarations come the slot numbers
(``HEURISTIC.slot("call_at")``), the record type the kernels read the
vectors through (:func:`record_type`: ``policy.call_at``), the spec parser's
defaults and ranges
(:mod:`yaniv_sim.engine.specs`), the tuner's whole-number rounding
(:mod:`yaniv_sim.tune`), and the parameter tables of docs/policies.md (a
test checks them). Nothing here imports the engine: the engine reads these.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

__all__ = [
    "FAMILIES",
    "HEURISTIC",
    "LONG_ROUND",
    "MAX_SHED",
    "PRESETS",
    "RANDOM",
    "SEARCH",
    "SEARCH_BASES",
    "Family",
    "Param",
    "record_type",
]

SLOT_KIND = 0  # slot 0 of every policy vector: which family


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of a policy family.

    ``size`` > 1 declares a row of slots named ``name_0 .. name_{size-1}``
    (each with this default and range).
    """

    name: str
    default: float
    low: float
    high: float
    whole: bool
    meaning: str
    size: int = 1
    choices: tuple[str, ...] = ()  # a named choice: the slot holds the index of the name


@dataclasses.dataclass(frozen=True)
class Family:
    """A policy family: its kernel code, its first slot, its parameters in slot order."""

    name: str
    kind: int
    first: int
    params: tuple[Param, ...]

    def slot(self, name: str) -> int:
        """The first slot of a parameter (a row of slots starts there)."""
        at = self.first
        for p in self.params:
            if p.name == name:
                return at
            at += p.size
        raise KeyError(name)

    @property
    def end(self) -> int:
        """One past the family's last slot."""
        return self.first + sum(p.size for p in self.params)

    def slots(self) -> dict[str, tuple[int, Param]]:
        """Every spec-level name (rows expanded) with its slot and declaration."""
        out = {}
        at = self.first
        for p in self.params:
            if p.size == 1:
                out[p.name] = (at, p)
            else:
                for i in range(p.size):
                    out[f"{p.name}_{i}"] = (at + i, p)
            at += p.size
        return out


# turns a seat after which max-shed (and, by default, the heuristic) plays to end the
# round: call whenever allowed, shed the most cards, take only a card that helps
LONG_ROUND = 20

MAX_SHED = Family("max-shed", kind=0, first=1, params=())

RANDOM = Family(
    "random",
    kind=1,
    first=1,
    params=(
        Param("call", 0.5, 0, 1, False, "chance of calling (and of slapping down) when allowed"),
        Param("pile", 0.5, 0, 1, False, "chance of taking a takeable card of the last discard"),
    ),
)

# the call table's shape: own hand value 0..15, fewest cards an opponent holds
# 1..7, turn band (turns played 0-9, 10-19, 20+), opponents still in (1, 2,
# 3 or more) and pickup (1 when an opponent still holds cards taken from the
# pile worth, together, no more than the seat's hand; else 0)
TABLE_VALUES = 16
TABLE_CARDS = 7
TABLE_BANDS = 3
TABLE_OPPONENTS = 3
TABLE_PICKUPS = 2
TABLE_BAND_EDGES = (10, 20)
TABLE_SIZE = TABLE_VALUES * TABLE_CARDS * TABLE_BANDS * TABLE_OPPONENTS * TABLE_PICKUPS

HEURISTIC = Family(
    "heuristic",
    kind=2,
    first=3,  # slots 1 and 2 belong to the random device
    params=(
        Param("call_at", 15, 0, 15, True, "call only with a hand worth at most this"),
        Param("few_cards", 0, 0, 7, True, "few_margin applies while an opponent holds this few"),
        Param("few_margin", 0, 0, 15, True, "lowers the cut while few_cards holds"),
        Param("pickup_value", -1, -1, 10, True, "pickup_margin applies to a pickup this low"),
        Param("pickup_margin", 0, 0, 15, True, "lowers the cut while pickup_value holds"),
        Param("late_turn", 0, 0, 1000, True, "late_margin applies from this turn on"),
        Param("late_margin", 0, 0, 15, True, "lowers the cut from late_turn on"),
        Param("max_risk", 1, 0, 1, False, "call only if the Assaf risk is at most this"),
        Param("risk_table", 0, 0, 1, True, "switches on the risk_at_* table"),
        Param("risk_at", 1, -1, 1, False, "acceptable Assaf risk at each own hand value", 16),
        Param("suspicion", 0, 0, 2, False, "wait if a guessed opponent hand is as low"),
        Param("keep", 0, 0, 5, False, "weight of the combinations the discard leaves"),
        Param("pile_at", -1, -1, 10, True, "take a takeable card worth at most this"),
        Param("pile_combo", 0, 0, 1, True, "also take a takeable card that fits the hand"),
        Param("milestone", 0, 0, 1, True, "call when even an Assaf lands on a milestone"),
        Param("limit_margin", 0, 0, 15, True, "lowers the cut when an Assaf would put it out"),
        Param("protect", 0, 0, 1, True, "lay so the next player's takeable cards are worst"),
        Param("table", 0, 0, 1, True, "also consult the call table"),
        Param("hold_jokers", 0, 0, 1, True, "never discard a joker while a joker-free set exists"),
        Param("milestone_wait", 1, -1, 1, False, "acceptable risk when caught lands a milestone"),
        Param("milestone_slack", 0, 0, 15, True, "points given up to discard toward a milestone"),
        Param("theft_margin", 0, 0, 15, True, "raises the cut when theft would charge a leader"),
        Param("patience", LONG_ROUND, 0, 200, True,
              "turns a seat after which it plays to end the round (0: never)"),
        Param("call_table", 0.5, 0, 1, False, "call (1), wait (0) or defer (0.5) per cell",
              TABLE_SIZE),
    ),
)  # fmt: skip

# named presets of the heuristic family: parameter values over the defaults
PRESETS: dict[str, dict[str, float]] = {
    "cautious": {"call_at": 5, "few_cards": 2, "few_margin": 2, "late_turn": 24, "late_margin": 1},
    "risk-aware": {"max_risk": 0.2},
    "combo-keeper": {"keep": 0.3, "pile_combo": 1},
    "pile-picker": {"pile_at": 3, "pile_combo": 1},
    # risk-aware, aiming at milestones: calls when an Assaf lands on one, does not call away
    # a hand that lands on one when caught, and discards toward such a hand
    "milestone-hunter": {
        "max_risk": 0.2,
        "milestone": 1,
        "milestone_wait": 0.02,
        "milestone_slack": 1,
    },
    "risk-table": {
        "risk_table": 1,
        **dict(
            zip(
                [f"risk_at_{v}" for v in range(16)],
                [0.60, 0.55, 0.45, 0.32, 0.20, 0.12] + [-1] * 10,
                strict=True,
            )
        ),
    },
    "pile-threshold": {"pile_at": 4},
    "suspicious": {"suspicion": 0.5},
    "best": {
        "max_risk": 0.12,
        "pile_at": 3,
        "pile_combo": 1,
        "protect": 1,
        "milestone": 1,
        "limit_margin": 2,
    },
}

# the policies a search may play its rollouts with (by name)
SEARCH_BASES = ("best", "max-shed", "heuristic", *(name for name in PRESETS if name != "best"))

SEARCH = Family(
    "search",
    kind=3,
    first=HEURISTIC.end,
    params=(
        Param("worlds", 64, 1, 4096, True, "sampled deals of the hidden cards per decision"),
        Param("decide", 2, 0, 2, True, "what it searches: 0 calls, 1 calls and discards, 2 all"),
        Param("rollouts", 0, 0, 1_000_000, True,
              "at most this many rollouts per decision (0: worlds times candidates)"),
        Param("base", 0, 0, len(SEARCH_BASES) - 1, True,
              "the policy every seat plays in the rollouts", choices=SEARCH_BASES),
        Param("bias", 0.2, 0, 2, False,
              "how much lower than random the worlds deal opponents' unknown cards"),
        Param("recall", 0, 0, 1, True,
              "1: the worlds remember every card shown (after a reshuffle, cards not in the "
              "rebuilt stock are in hands; a card just drawn from the stock is dealt as one)"),
        Param("objective", 0, 0, 1, True,
              "what a rollout is worth: round points against the table, or the game-win "
              "chance once the round is settled (the shipped equity table)",
              choices=("points", "win")),
    ),
)  # fmt: skip

FAMILIES = {f.name: f for f in (MAX_SHED, RANDOM, HEURISTIC, SEARCH)}

N_SLOTS = max(f.end for f in FAMILIES.values())  # the length of a policy vector


@functools.cache
def record_type(families: frozenset[str]) -> np.dtype:
    """The record type that reads a policy vector by name, for tables of these families.

    A view of a ``float64[..., N_SLOTS]`` matrix as this type is an array of
    records, one per seat: ``policy.kind`` and each listed family's
    parameters (a row of slots is an array field). The kernels compile once
    per record type and leave out the code of families it does not name, so
    a table of max-shed players never compiles the heuristic.
    """
    names, formats, offsets = ["kind"], [np.float64], [8 * SLOT_KIND]
    for family in sorted((FAMILIES[name] for name in families), key=lambda f: f.first):
        at = family.first
        for p in family.params:
            names.append(p.name)
            formats.append(np.float64 if p.size == 1 else (np.float64, (p.size,)))
            offsets.append(8 * at)
            at += p.size
    return np.dtype(
        {"names": names, "formats": formats, "offsets": offsets, "itemsize": 8 * N_SLOTS},
        align=True,
    )
