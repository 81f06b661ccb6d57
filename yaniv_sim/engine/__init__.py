"""The rules engine: legal discards, scoring, and seeded rounds and games.

Everything here is a thin layer over the numba kernels of ``yaniv_sim.engine``'s
private modules: it checks its input, converts cards and rules to integers,
calls a kernel and turns the result back into readable values. Cards may be
given as text (``"4D 5D JK 7D"``) or as codes from :func:`~yaniv_sim.cards.parse_cards`.

Examples
--------
>>> from yaniv_sim import Rules, engine
>>> [engine.format_cards(d) for d in engine.legal_discards("5C 5D JK", Rules.preset("nordic"))]
['5C', '5D', 'JK', '5C 5D']
>>> engine.format_cards(engine.takeable("4D 5D JK 7D", Rules()))
'4D 7D'
"""

from __future__ import annotations

import numpy as np

from yaniv_sim.cards import ORDER, card_codes, format_cards, parse_cards
from yaniv_sim.engine._discards import (
    C_MASK,
    _card_sets,
    _hand_value,
    _laid_readings,
    _layings,
    _mask_kind,
    _takeable_bits,
)
from yaniv_sim.engine._layout import (
    KIND_NAMES,
    LAY_KIND,
    LAY_WIDTH,
    MAX_CARD_SETS,
    MAX_HAND,
    MAX_LAYINGS,
    NO_FORCE,
    OUTCOME_NAMES,
    PREV,
    rule_record,
)
from yaniv_sim.engine._play import (
    _deal,
    _play_game,
    _play_on,
    _play_rounds,
    new_game_scratch,
    whole_game,
)
from yaniv_sim.engine._policy import policy_records
from yaniv_sim.engine._rng import normalise_seed
from yaniv_sim.engine._scoring import _score_round, _settle, _settle_rounds
from yaniv_sim.engine._search import search_workspace
from yaniv_sim.engine._table import new_round_out, new_table
from yaniv_sim.engine.positions import Position, play_on, position_at, sample_world
from yaniv_sim.engine.records import GameRecord, RoundRecord, round_record
from yaniv_sim.engine.search import SearchAnswer, SearchChoice, search_position, search_worlds
from yaniv_sim.engine.specs import policy_matrix
from yaniv_sim.rules import Rules

__all__ = [
    "OUTCOMES",
    "GameRecord",
    "Position",
    "RoundRecord",
    "SearchAnswer",
    "SearchChoice",
    "discard_kind",
    "discard_kinds",
    "format_cards",
    "hand_value",
    "legal_discards",
    "legal_layings",
    "parse_cards",
    "play_game",
    "play_on",
    "play_round",
    "play_rounds",
    "position_at",
    "sample_world",
    "score_round",
    "search_position",
    "search_worlds",
    "settle_round",
    "settle_rounds",
    "takeable",
]


def _hand(cards) -> np.ndarray:
    """A hand as a one-row 2-d array sorted by card order, as the kernels keep it."""
    codes = card_codes(cards, "hand")
    if not 1 <= len(codes) <= MAX_HAND - 1:
        raise ValueError(f"hand: {len(codes)} cards; a hand holds 1 to {MAX_HAND - 1} cards")
    return codes[np.argsort(ORDER[codes], kind="stable")][None, :]


def hand_value(cards) -> int:
    """Points of a hand: ace 1, 2-10 face value, J Q K 10, joker 0."""
    codes = card_codes(cards)
    return int(_hand_value(codes[None, :], 0, len(codes)))


def legal_layings(hand, rules: Rules) -> list[tuple[np.ndarray, str]]:
    """Every legal laying of ``hand``: the cards in the order laid, and the kind laid as.

    A card set that can be laid so that different cards are takeable appears
    once per such laying: each placement of the spare jokers of a run, and
    under ``set_draw="ends"`` each distinct pair of end cards of a set of
    three or more. Where jokers may stand in sets, one natural card with two
    or more jokers (``2C JK JK``) may be laid as a set or as a run, and the
    layings of both readings are listed; under ``set_draw="ends"`` a laying
    that is a set and a run in the same order offers the same cards either
    way and is listed once, as a run. Identical cards of two decks count once.
    """
    cards = _hand(hand)
    n = cards.shape[1]
    cand = np.zeros((3, MAX_CARD_SETS), np.int64)
    n_sets = _card_sets(cards, 0, n, rules.joker_in_sets, cand)
    lay = np.zeros((MAX_LAYINGS, LAY_WIDTH), np.int16)
    lay_len = np.zeros(MAX_LAYINGS, np.int64)
    rows = 0
    for mask in cand[C_MASK, :n_sets]:
        kind = _mask_kind(cards, 0, mask, rules.joker_in_sets)
        reading = (rules.joker_in_sets, rules.set_draw == "ends")
        rows += _layings(cards, 0, mask, kind, reading, lay, lay_len, rows)
    return [(lay[r, : lay_len[r]].copy(), KIND_NAMES[lay[r, LAY_KIND]]) for r in range(rows)]


def legal_discards(hand, rules: Rules) -> list[np.ndarray]:
    """Every legal discard of ``hand``, each as the cards in the order laid.

    The layings of :func:`legal_layings`, without the kind each is laid as.
    """
    return [cards for cards, _ in legal_layings(hand, rules)]


def _laid(discard) -> np.ndarray:
    cards = card_codes(discard, "discard")
    if not 1 <= len(cards) <= MAX_DISCARD:
        raise ValueError(f"discard: {len(cards)} cards; a discard holds 1 to {MAX_DISCARD}")
    return cards


def discard_kinds(discard, rules: Rules) -> tuple[str, ...]:
    """Every kind a laid discard may be read as: ``("set", "run")`` when it is both.

    Where jokers may stand in sets, one natural card with two or more jokers
    is a set and, if its ranks fit, a run (``JK 2C JK`` is three twos or A-2-3
    of clubs); the player who lays it chooses. ``ValueError`` if the discard is
    not legal. A run may be laid rising or falling.
    """
    cards = _laid(discard)
    readings = _laid_readings(cards, len(cards), rules.joker_in_sets)
    if readings == 0:
        raise ValueError(
            f"discard: {format_cards(cards)} is not a legal discard under these rules "
            "(a single card, a set of one rank, or a run of 3+ in one suit, laid in rank order)"
        )
    return tuple(name for k, name in enumerate(KIND_NAMES) if (readings >> k) & 1)


def discard_kind(discard, rules: Rules) -> str:
    """``"single"``, ``"set"`` or ``"run"``; ``ValueError`` if not a legal discard.

    A run may be laid rising or falling. A discard that may be read both as a
    set and as a run (see :func:`discard_kinds`) has no single kind: that is a
    ``ValueError`` too.
    """
    kinds = discard_kinds(discard, rules)
    if len(kinds) > 1:
        raise ValueError(
            f"discard: {format_cards(_laid(discard))} may be laid as a set or as a run; "
            "the player who lays it chooses (see discard_kinds)"
        )
    return kinds[0]


def takeable(discard, rules: Rules, kind: str | None = None) -> np.ndarray:
    """The cards of a laid discard that the next player may take.

    ``kind`` is the reading it was laid as (``"single"``, ``"set"`` or
    ``"run"``). It may be left out when the discard has one reading, or when
    its readings offer the same cards (under ``set_draw="ends"``); a discard
    such as ``JK 2C JK`` under ``standard`` needs it: laid as a set, any of
    its cards may be taken, laid as a run only its two ends.
    """
    cards = _laid(discard)
    kinds = discard_kinds(cards, rules)
    ends = rules.set_draw == "ends"
    if kind is None:
        options = {int(_takeable_bits(len(cards), KIND_NAMES.index(k), ends)) for k in kinds}
        if len(options) > 1:
            raise ValueError(
                f"kind: {format_cards(cards)} may be laid as a set or as a run, and that decides "
                "what may be taken; pass kind='set' or kind='run'"
            )
        bits = options.pop()
    elif kind not in kinds:
        raise ValueError(
            f"kind: {format_cards(cards)} cannot be laid as a {kind!r}; "
            "it reads as " + " or ".join(map(repr, kinds))
        )
    else:
        bits = _takeable_bits(len(cards), KIND_NAMES.index(kind), ends)
    return cards[[p for p in range(len(cards)) if (bits >> p) & 1]]


MAX_DISCARD = 13  # a run from ace to king; in play a discard never exceeds a hand


def _int_vector(values, what: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{what}: give a 1-d sequence of integers, one per seat")
    if not 2 <= len(array) <= 8:
        raise ValueError(f"{what}: {len(array)} seats; a table has 2 to 8 seats")
    return array.astype(np.int64)


def score_round(hand_values, caller, rules: Rules, slapdown: bool = False) -> np.ndarray:
    """Round scores, one per seat.

    Parameters
    ----------
    hand_values : sequence of int
        Every seat's hand value at the end of the round.
    caller : int or None
        The seat that called Yaniv (or slapped down); ``None`` when the round
        ended with no call (``empty_stock = "end_round"``): everyone scores
        their hand.
    rules : Rules
    slapdown : bool
        The caller ended the round with a slapdown.
    """
    values = _int_vector(hand_values, "hand_values")
    if (values < 0).any():
        raise ValueError("hand_values: hand values are never negative")
    if caller is None:
        if slapdown:
            raise ValueError("slapdown: a slapdown needs the seat that slapped down as caller")
        caller = -1
    elif isinstance(caller, bool) or not 0 <= int(caller) < len(values):
        raise ValueError(f"caller: {caller!r} is not a seat; use 0 to {len(values) - 1} or None")
    elif slapdown and values[caller] != 0:
        raise ValueError("slapdown: a player can slap down only with a hand value of 0")
    elif not slapdown and values[caller] > rules.threshold:
        raise ValueError(
            f"caller: seat {caller} holds {values[caller]}, above the threshold "
            f"{rules.threshold}; a call is allowed only at or below it"
        )
    scores = np.zeros(len(values), np.int64)
    alive = np.ones(len(values), np.int8)
    _score_round(values, alive, int(caller), bool(slapdown), rule_record(rules, None), scores)
    return scores


def settle_round(totals, round_scores, alive, rules: Rules):
    """Add a round's scores to the running totals.

    Applies milestones (only on a positive score landing exactly on one),
    milestone theft, elimination above ``limit`` and the
    all-over-the-limit rule.

    Returns
    -------
    totals : numpy.ndarray
    alive : numpy.ndarray of bool
    winner : int or None
        The game's winner, or ``None`` while the game goes on.
    """
    new_totals = _int_vector(totals, "totals").copy()
    scores = _int_vector(round_scores, "round_scores")
    still_in = np.asarray(alive, dtype=bool)
    if not (len(new_totals) == len(scores) == len(still_in)):
        raise ValueError("totals, round_scores and alive must have one entry per seat each")
    if (new_totals < 0).any() or (scores < 0).any():
        raise ValueError("totals and round_scores are never negative")
    if still_in.sum() < 1:
        raise ValueError("alive: at least one seat must still be in the game")
    alive8 = still_in.astype(np.int8)
    landed = np.zeros(len(new_totals), np.int8)
    charges = np.zeros(len(new_totals), np.int64)
    winner = _settle(new_totals, scores, alive8, rule_record(rules, None), landed, charges)
    return new_totals, alive8.astype(bool), (None if winner < 0 else int(winner))


def settle_rounds(totals, round_scores, alive, rules: Rules):
    """:func:`settle_round` for many rounds at once: one row per round.

    ``totals``, ``round_scores`` and ``alive`` are ``[rounds, seats]``.
    Returns ``(totals, alive, winner)``: the new totals and seats still in
    (arrays of the same shape) and each row's game winner, -1 while the
    game goes on.
    """
    new_totals = np.array(totals, dtype=np.int64, ndmin=2, copy=True)
    scores = np.ascontiguousarray(round_scores, dtype=np.int64)
    still_in = np.array(alive, dtype=np.int8, ndmin=2, copy=True)
    if scores.ndim != 2 or not (new_totals.shape == scores.shape == still_in.shape):
        raise ValueError("totals, round_scores and alive must be [rounds, seats] arrays alike")
    if (new_totals < 0).any() or (scores < 0).any():
        raise ValueError("totals and round_scores are never negative")
    if (still_in.sum(axis=1) < 1).any():
        raise ValueError("alive: at least one seat must still be in the game in every row")
    seats = new_totals.shape[1]
    scratch = (np.zeros(seats, np.int64), np.zeros(seats, np.int8))
    winners = np.zeros(len(new_totals), np.int64)
    _settle_rounds(new_totals, scores, still_in, rule_record(rules, None), scratch, winners)
    return new_totals, still_in.astype(bool), winners


def _table(rules: Rules, players: int, policies):
    if not isinstance(rules, Rules):
        raise ValueError(f"rules: expected a Rules, got {type(rules).__name__}")
    matrix = policy_matrix(policies, players)
    return (
        rule_record(rules, players),
        policy_records(matrix),
        search_workspace(matrix, players, rules),
    )


def play_round(
    rules: Rules,
    players: int,
    seed: int,
    policies="max-shed",
    *,
    game: int = 0,
    round: int = 0,
    starter: int = 0,
    totals=None,
    alive=None,
    record: bool = True,
) -> RoundRecord:
    """Play one seeded round and return its record.

    The deal depends only on ``(seed, game, round)`` and the seats in play,
    so a round of a game can be replayed on its own.

    Parameters
    ----------
    rules : Rules
    players : int
        Seats at the table, 2 to 8.
    seed : int
    policies : str or sequence of str
        One policy spec for every seat, or one per seat.
    game, round : int
        Which round of which game (keys of the random streams).
    starter : int
        The seat that plays first.
    totals, alive : sequence, optional
        Running totals before the round (policies may look at them) and the
        seats still in the game (default: everyone).
    record : bool
        Keep every turn in the record.
    """
    seed = normalise_seed(seed)
    rules_rec, pol, search = _table(rules, players, policies)
    alive8 = np.ones(players, np.int8) if alive is None else np.asarray(alive, np.int8)
    totals64 = np.zeros(players, np.int64) if totals is None else _int_vector(totals, "totals")
    if len(alive8) != players or len(totals64) != players:
        raise ValueError("totals and alive need one entry per seat")
    if alive8.sum() < 2:
        raise ValueError("alive: a round needs at least two seats still in the game")
    if not 0 <= starter < players or not alive8[starter]:
        raise ValueError(f"starter: {starter!r} is not a seat still in the game")
    t = new_table(players)
    t.alive[:] = alive8
    t.totals[:] = totals64
    _deal(rules_rec, t, starter, (seed, game, round))
    dealt = [t.hands[s, : t.hand_n[s]].copy() for s in range(players)]
    turned_up = int(t.piles[PREV, 0])
    out = new_round_out(players, rules.max_turns + 2 if record else 0)
    rows = _play_on(rules_rec, pol, search, t, out, 0, -1, NO_FORCE)
    summary, values, scores, log = out.summary, out.values, out.scores, out.log
    return round_record(
        rules=rules,
        seed=seed,
        game=game,
        round=round,
        policies=policies,
        alive=alive8,
        dealt=dealt,
        turned_up=turned_up,
        summary=summary[0],
        values=values[0],
        scores=scores[0],
        log=log[:rows] if record else None,
    )


def play_game(
    rules: Rules,
    players: int,
    seed: int,
    policies="max-shed",
    *,
    game: int = 0,
    turns: bool = False,
) -> GameRecord:
    """Play one seeded game to its winner and return its record.

    With ``turns=True`` every round is replayed with :func:`play_round` to
    keep its turns; the game kernel and the replay must agree.
    """
    seed = normalise_seed(seed)
    rules_rec, pol, search = _table(rules, players, policies)
    n = rules.max_rounds
    out = new_round_out(players, 0, rows=n)
    round_totals = np.zeros((n, players), np.int64)
    round_alive = np.zeros((n, players), np.int8)
    landed = np.zeros((n, players), np.int8)
    game_out = (out, round_totals, round_alive, landed, np.zeros(0, np.int64))
    plan = whole_game(seed, game, rules.max_rounds)
    rounds, winner = _play_game(rules_rec, pol, search, new_table(players), plan, game_out,
                                new_game_scratch(players))  # fmt: skip
    summaries, values, scores = out.summary, out.values, out.scores
    record = GameRecord(
        rules=rules,
        players=players,
        seed=seed,
        game=game,
        policies=policies if isinstance(policies, str) else list(policies),
        winner=None if winner < 0 else int(winner),
        summaries=summaries[:rounds],
        values=values[:rounds],
        scores=scores[:rounds],
        totals=round_totals[:rounds],
        alive=round_alive[:rounds].astype(bool),
        landed=landed[:rounds].astype(bool),
    )
    if turns:
        before_totals = np.zeros(players, np.int64)
        before_alive = np.ones(players, np.int8)
        for r in range(rounds):
            rec = play_round(
                rules,
                players,
                seed,
                policies,
                game=game,
                round=r,
                starter=int(summaries[r, 6]),
                totals=before_totals,
                alive=before_alive,
            )
            record.round_records.append(rec)
            before_totals = round_totals[r]
            before_alive = round_alive[r]
    return record


def play_rounds(
    rules: Rules,
    players: int,
    seed: int,
    rounds: int,
    policies="max-shed",
    *,
    first: int = 0,
) -> dict[str, np.ndarray]:
    """Play a batch of independent seeded rounds (rounds ``first .. first + rounds - 1``).

    Every seat is in with a total of 0; round ``r`` is started by seat
    ``r % players`` and dealt exactly as ``play_round(..., round=r,
    starter=r % players)`` deals it.

    Returns
    -------
    dict
        ``outcome`` (codes, see ``OUTCOMES``), ``caller``, ``caller_value``,
        ``turns``, ``reshuffles``, ``winner``, ``starter`` (one per round) and
        ``hand_values``, ``scores`` (rounds x players).
    """
    seed = normalise_seed(seed)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
        raise ValueError(f"rounds: {rounds!r} is not allowed; use a whole number >= 0")
    rules_rec, pol, search = _table(rules, players, policies)
    out = new_round_out(players, 0, rows=rounds)
    _play_rounds(rules_rec, pol, search, seed, first, rounds, new_table(players), out)
    summaries, values, scores = out.summary, out.values, out.scores
    names = ("outcome", "caller", "caller_value", "turns", "reshuffles", "winner", "starter")
    out = {name: summaries[:, i].copy() for i, name in enumerate(names)}
    out["hand_values"] = values
    out["scores"] = scores
    return out


OUTCOMES = OUTCOME_NAMES
