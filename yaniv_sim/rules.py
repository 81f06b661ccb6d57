"""Rule sets: every rule of the game and its variants as data.

Terminology
-----------
threshold
    The highest hand value at which a player may call Yaniv.
Assaf
    A failed call: another player holds a hand at most the caller's value.
milestone
    An exact running total that is replaced by a lower one when a round lands
    the total on it (``50 -> 25``).
limit
    A player whose running total goes above it is out of the game.

A :class:`Rules` is frozen and validated when it is made: an unknown field, a
value out of range or an impossible combination raises ``ValueError`` with one
line naming the field, the bad value and what is allowed. Presets and variants
are small dictionaries of field values (:data:`PRESETS`, :data:`VARIANTS`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from yaniv_sim.cards import N_NATURAL

__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "PRESETS", "VARIANTS", "VARIANT_MEANINGS", "Rules"]

MIN_PLAYERS = 2
MAX_PLAYERS = 8

PresetName = Literal["standard", "nordic"]

PRESETS: dict[str, dict[str, Any]] = {
    "standard": dict(
        threshold=7,
        assaf=True,
        assaf_penalty=30,
        assaf_winner_scores="zero",
        joker_in_sets=True,
        set_draw="any",
        jokers_per_deck=2,
        decks="auto",
        auto_two_decks_from=6,
        two_decks_min_players=2,
        milestones={50: 25, 100: 50},
        limit=200,
        starter="rotate",
        slapdown=False,
        milestone_theft=False,
    ),
    "nordic": dict(
        threshold=5,
        assaf=True,
        assaf_penalty=30,
        assaf_winner_scores="hand",
        joker_in_sets=False,
        set_draw="ends",
        jokers_per_deck=2,
        decks=1,
        auto_two_decks_from=4,
        two_decks_min_players=4,
        milestones={100: 50, 200: 100},
        limit=200,
        starter="winner",
        slapdown=False,
        milestone_theft=False,
    ),
}

VARIANTS: dict[str, dict[str, Any]] = {
    "yaniv5": {"threshold": 5},
    "yaniv9": {"threshold": 9},
    "no-assaf": {"assaf": False},
    "slapdown": {"slapdown": True},
    "double-joker": {"jokers_per_deck": 4},
    "milestone-theft": {"milestone_theft": True},
}

# each variant in one line, in players' words
VARIANT_MEANINGS: dict[str, str] = {
    "yaniv5": "a call needs a hand of 5 or less",
    "yaniv9": "a call needs a hand of 9 or less",
    "no-assaf": "a call always wins the round: nobody can Assaf it",
    "slapdown": "a player left holding nothing but jokers (a hand of 0) right after the draw "
    "may end the round at once, and cannot be Assafed",
    "double-joker": "four jokers in each deck instead of two",
    "milestone-theft": "landing exactly on a milestone also charges 30 points to the leaders "
    "(the other players with the lowest total)",
}

# Allowed values: (low, high) for integers, a tuple of choices otherwise.
_INT_RANGES = {
    "threshold": (0, 15),
    "assaf_penalty": (0, 100),
    "jokers_per_deck": (0, 4),
    "auto_two_decks_from": (MIN_PLAYERS, MAX_PLAYERS),
    "two_decks_min_players": (MIN_PLAYERS, MAX_PLAYERS),
    "limit": (1, 10_000),
    "hand_size": (5, 7),
    "max_turns": (1, 30_000),  # turn and round counts are stored as int16
    "max_rounds": (1, 30_000),
}
_CHOICES = {
    "assaf_winner_scores": ("zero", "hand", "all_zero"),
    "set_draw": ("any", "ends"),
    "starter": ("rotate", "winner"),
    "empty_stock": ("reshuffle", "end_round"),
}
_BOOLS = ("assaf", "assaf_adds_hand", "joker_in_sets", "slapdown", "milestone_theft")
MAX_MILESTONES = 64


def _fail(field: str, value: Any, allowed: str) -> ValueError:
    return ValueError(f"rule {field}: {value!r} is not allowed; {allowed}")


def _normalise_milestones(value: Any) -> tuple[tuple[int, int], ...]:
    allowed = (
        "give a mapping of exact totals to lower new totals, such as {50: 25, 100: 50}, "
        f"with totals from 1 to 10000 and at most {MAX_MILESTONES} entries"
    )
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, Iterable) and not isinstance(value, str | bytes):
        items = list(value)
    else:
        raise _fail("milestones", value, allowed)
    pairs = []
    for item in items:
        try:
            old, new = item
            old_i, new_i = _as_int(old), _as_int(new)
        except (TypeError, ValueError):
            raise _fail("milestones", value, allowed) from None
        if not (1 <= old_i <= 10_000 and 0 <= new_i < old_i):
            raise _fail("milestones", {old: new}, allowed)
        pairs.append((old_i, new_i))
    olds = [p[0] for p in pairs]
    if len(set(olds)) != len(olds) or len(pairs) > MAX_MILESTONES:
        raise _fail("milestones", value, allowed)
    return tuple(sorted(pairs))


def _as_int(value: Any) -> int:
    """An integer from an int or a decimal string (TOML and JSON keys are strings)."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise ValueError(value)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Rules:
    """One complete rule set of Yaniv. Defaults are the ``standard`` preset.

    Build one with ``Rules.preset("nordic", variants=["slapdown"], limit=100)``
    or ``Rules(threshold=5)``. See ``docs/rules.md`` for every field.
    """

    threshold: int = 7
    assaf: bool = True
    assaf_penalty: int = 30
    assaf_adds_hand: bool = True
    assaf_winner_scores: Literal["zero", "hand", "all_zero"] = "zero"
    joker_in_sets: bool = True
    set_draw: Literal["any", "ends"] = "any"
    jokers_per_deck: int = 2
    decks: int | Literal["auto"] = "auto"
    auto_two_decks_from: int = 6
    two_decks_min_players: int = 2
    milestones: tuple[tuple[int, int], ...] = ((50, 25), (100, 50))
    limit: int = 200
    starter: Literal["rotate", "winner"] = "rotate"
    slapdown: bool = False
    milestone_theft: bool = False
    hand_size: int = 5
    empty_stock: Literal["reshuffle", "end_round"] = "reshuffle"
    max_turns: int = 1000
    max_rounds: int = 1000

    def __post_init__(self) -> None:
        for name, (low, high) in _INT_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise _fail(name, value, f"use an integer from {low} to {high}")
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise _fail(name, value, "use one of " + ", ".join(map(repr, choices)))
        for name in _BOOLS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise _fail(name, value, "use true or false")
        if not (self.decks == "auto" or (type(self.decks) is int and self.decks in (1, 2))):
            raise _fail("decks", self.decks, "use 1, 2 or 'auto'")
        if self.decks == "auto" and self.auto_two_decks_from < self.two_decks_min_players:
            raise _fail(
                "auto_two_decks_from",
                self.auto_two_decks_from,
                f"with decks='auto' it must be at least two_decks_min_players "
                f"({self.two_decks_min_players})",
            )
        object.__setattr__(self, "milestones", _normalise_milestones(self.milestones))

    # -- construction -------------------------------------------------------------

    @classmethod
    def preset(
        cls, name: PresetName = "standard", variants: Iterable[str] = (), **overrides: Any
    ) -> Rules:
        """A named preset with named variants and field overrides applied in that order.

        Parameters
        ----------
        name : {"standard", "nordic"}
            The base rule set.
        variants : iterable of str
            Names from :data:`VARIANTS`, such as ``"yaniv5"`` or ``"slapdown"``.
        **overrides
            Any field of :class:`Rules`.
        """
        if name not in PRESETS:
            raise ValueError(
                f"unknown preset {name!r}; use one of " + ", ".join(map(repr, PRESETS))
            )
        if isinstance(variants, str):
            variants = [variants]
        fields = dict(PRESETS[name])
        for variant in variants:
            if variant not in VARIANTS:
                raise ValueError(
                    f"unknown variant {variant!r}; use any of " + ", ".join(map(repr, VARIANTS))
                )
            fields.update(VARIANTS[variant])
        _check_field_names(overrides)
        fields.update(overrides)
        return cls(**fields)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """A rule set from a plain mapping (a JSON or TOML table), checked field by field.

        A key ``preset`` (and ``variants``) may name the base to start from; the
        other keys override its fields.
        """
        data = dict(data)
        preset = data.pop("preset", None)
        variants = data.pop("variants", ())
        _check_field_names(data)
        if preset is not None:
            return cls.preset(preset, variants, **data)
        if variants:
            return cls.preset("standard", variants, **data)
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON/TOML values; ``from_dict`` reads it back."""
        data = dataclasses.asdict(self)
        data["milestones"] = {str(old): new for old, new in self.milestones}
        return data

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (validated like a new rule set)."""
        _check_field_names(changes)
        return dataclasses.replace(self, **changes)

    # -- the deck for a table ------------------------------------------------------

    def decks_for(self, players: int) -> int:
        """How many decks a game of ``players`` players uses (1 or 2)."""
        self.check_players(players)
        return self._decks_for(players)

    def _decks_for(self, players: int) -> int:
        if self.decks == "auto":
            return 2 if players >= self.auto_two_decks_from else 1
        return int(self.decks)

    def deck_size(self, players: int) -> int:
        """Number of cards in the deck used by ``players`` players."""
        return self.decks_for(players) * (N_NATURAL + self.jokers_per_deck)

    def check_players(self, players: int) -> None:
        """Raise ``ValueError`` unless this rule set can deal to ``players`` players."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"players: {players!r} is not allowed; use an integer from 2 to 8")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(
                f"players: {players} is not allowed; use {MIN_PLAYERS} to {MAX_PLAYERS} players"
            )
        decks = self._decks_for(players)
        if decks == 2 and players < self.two_decks_min_players:
            raise ValueError(
                f"decks: two decks are not allowed for {players} players under these rules "
                f"(two_decks_min_players={self.two_decks_min_players}); use decks=1 or more players"
            )
        size = decks * (N_NATURAL + self.jokers_per_deck)
        needed = players * self.hand_size + 2
        if needed > size:
            raise ValueError(
                f"players: {players} players cannot be dealt {self.hand_size} cards each from "
                f"{decks} deck(s) of {size} cards (a deal needs {needed}: hands, the turned-up "
                f"card and at least one stock card); use fewer players, a smaller hand_size "
                f"or decks=2"
            )

    def milestone_dict(self) -> dict[int, int]:
        """Milestones as a mapping from exact total to new total."""
        return dict(self.milestones)


_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Rules))


def _check_field_names(fields: Mapping[str, Any]) -> None:
    for key in fields:
        if key not in _FIELD_NAMES:
            raise ValueError(
                f"unknown rule field {key!r}; the fields are: " + ", ".join(_FIELD_NAMES)
            )


def rules_label(rules: Rules) -> str:
    """``standard``, ``nordic``, or ``standard with`` the fields that differ from it."""
    for name in PRESETS:
        if Rules.preset(name) == rules:
            return name
    base = Rules().to_dict()
    changed = [f"{key}={value}" for key, value in rules.to_dict().items() if base.get(key) != value]
    return "standard with " + ", ".join(changed)
