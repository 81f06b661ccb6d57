"""Positions: a moment of a round, described in full, and playing on from it.

A :class:`Position` holds everything the round needs to go on: every hand
(and which of its cards were taken from the pile, so everyone saw them), the
stock in order, the cards under the pile, the previous discard as it was
laid, whose turn it is, the totals, and optionally the round's random
streams. :func:`position_at` cuts a seeded round at the start of any turn;
:func:`play_on` plays a position on to the round's end with given policies;
:func:`sample_world` deals a position one seat cannot tell from a given one.
A position cut from a round, with its streams, plays on to exactly the end
the round had.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from yaniv_sim.cards import N_CODES, ORDER, VALUE, card_codes, deck_codes, format_cards
from yaniv_sim.engine._discards import C_MASK, _card_sets, _layings, _mask_kind, _takeable_bits
from yaniv_sim.engine._layout import (
    DEAD,
    KIND_NAMES,
    MAX_HAND,
    NO_FORCE,
    PREV,
    PS_DEAD_N,
    PS_PILE_DRAWS,
    PS_PREV_KIND,
    PS_PREV_N,
    PS_REBUILT_N,
    PS_RESHUFFLES,
    PS_SEAT,
    PS_STARTER,
    PS_STOCK_N,
    PS_TURN,
    REBUILT,
    STOCK,
    Force,
    rule_record,
)
from yaniv_sim.engine._play import REACHED, _deal, _play_on
from yaniv_sim.engine._policy import policy_records
from yaniv_sim.engine._rng import _seed_round_streams, normalise_seed
from yaniv_sim.engine._search import search_workspace
from yaniv_sim.engine._table import Table, new_round_out, new_table
from yaniv_sim.engine._worlds import _sample_world, _seed_sampler
from yaniv_sim.engine.records import RoundRecord, round_record
from yaniv_sim.engine.specs import policy_matrix
from yaniv_sim.rules import Rules

__all__ = ["Position", "play_on", "position_at", "sample_world"]


@dataclasses.dataclass(frozen=True, eq=False)
class Position:
    """A round at the start of a turn, before the seat to act may call.

    Attributes
    ----------
    hands : tuple of int16 arrays
        Each seat's cards (codes of :func:`~yaniv_sim.cards.parse_cards`), in
        card order; empty for a seat out of the game.
    taken : tuple of bool arrays
        For each card of ``hands``, whether the seat took it from the pile
        (everyone saw it).
    stock : int16 array
        The stock, bottom first: the next card drawn is ``stock[-1]``.
    dead : int16 array
        The cards under the pile (out of play until the stock runs out).
    pile : int16 array
        The previous player's discard as laid; what may be taken from it
        follows ``pile_kind``.
    pile_kind : {"single", "set", "run"}
    seat : int
        The seat to act.
    turn : int
        Discard-and-draw turns played so far in the round.
    starter : int
        The seat that played first in the round.
    reshuffles : int
        Times the stock was rebuilt from the pile so far.
    alive : bool array
        Seats still in the game.
    totals : int64 array
        Running totals before the round.
    streams : uint64 array or None
        The round's random streams (stream 0 shuffles, ``1 + seat`` is a
        policy's own). With them, :func:`play_on` continues exactly as the
        round would have; without, it seeds fresh ones from its ``seed``.
    rebuilt : int16 array or None
        The cards the stock was rebuilt from at the last reshuffle, in any
        order (everyone saw them go under the pile, so the stock holds only
        these); ``None`` or empty before the first reshuffle, or when not
        known. Only a search with ``recall`` reads it.
    pile_draws : bool array or None
        Whether each seat's latest draw this round was from the pile (public);
        ``None`` when not known, read as "from the stock". Only a search with
        ``recall`` reads it.
    """

    hands: tuple[np.ndarray, ...]
    taken: tuple[np.ndarray, ...]
    stock: np.ndarray
    dead: np.ndarray
    pile: np.ndarray
    pile_kind: str
    seat: int
    turn: int
    starter: int
    reshuffles: int
    alive: np.ndarray
    totals: np.ndarray
    streams: np.ndarray | None = None
    rebuilt: np.ndarray | None = None
    pile_draws: np.ndarray | None = None

    @property
    def players(self) -> int:
        return len(self.hands)

    def same_as(self, other: Position) -> bool:
        """Whether two positions are equal in every field."""
        fields = [f.name for f in dataclasses.fields(self)]
        for name in fields:
            a, b = getattr(self, name), getattr(other, name)
            if isinstance(a, tuple):
                if len(a) != len(b):
                    return False
                if any(not np.array_equal(x, y) for x, y in zip(a, b, strict=True)):
                    return False
            elif (a is None) != (b is None):
                return False
            elif isinstance(a, np.ndarray):
                if not np.array_equal(a, b):
                    return False
            elif a != b:
                return False
        return True

    def __str__(self) -> str:
        lines = [f"turn {self.turn}, seat {self.seat} to act (seat {self.starter} started)"]
        for s, (hand, took) in enumerate(zip(self.hands, self.taken, strict=True)):
            if not self.alive[s]:
                lines.append(f"  seat {s}: out")
                continue
            seen = format_cards(hand[took]) or "none"
            lines.append(f"  seat {s}: {format_cards(hand)} (taken from the pile: {seen}), "
                         f"total {int(self.totals[s])}")  # fmt: skip
        lines.append(f"  pile: {self.pile_kind} {format_cards(self.pile)}; {len(self.stock)} "
                     f"in the stock, {len(self.dead)} under the pile")  # fmt: skip
        return "\n".join(lines)


def _rules_and_policies(rules: Rules, players: int, policies):
    if not isinstance(rules, Rules):
        raise ValueError(f"rules: expected a Rules, got {type(rules).__name__}")
    matrix = policy_matrix(policies, players)
    return (
        rule_record(rules, players),
        policy_records(matrix),
        search_workspace(matrix, players, rules),
    )


def _from_table(t: Table) -> Position:
    pst = t.pst
    seats = t.alive.shape[0]
    return Position(
        hands=tuple(t.hands[s, : t.hand_n[s]].copy() for s in range(seats)),
        taken=tuple(t.taken[s, : t.hand_n[s]].astype(bool) for s in range(seats)),
        stock=t.piles[STOCK, : pst[PS_STOCK_N]].copy(),
        dead=t.piles[DEAD, : pst[PS_DEAD_N]].copy(),
        pile=t.piles[PREV, : pst[PS_PREV_N]].copy(),
        pile_kind=KIND_NAMES[int(pst[PS_PREV_KIND])],
        seat=int(pst[PS_SEAT]),
        turn=int(pst[PS_TURN]),
        starter=int(pst[PS_STARTER]),
        reshuffles=int(pst[PS_RESHUFFLES]),
        alive=t.alive.astype(bool),
        totals=t.totals.copy(),
        streams=t.rng.copy(),
        rebuilt=t.piles[REBUILT, : pst[PS_REBUILT_N]].copy(),
        pile_draws=np.array([(int(pst[PS_PILE_DRAWS]) >> s) & 1 == 1 for s in range(seats)]),
    )


def _to_table(position: Position, rules: Rules, seed: int) -> Table:
    """The kernel table of a position, after checking that it is one."""
    players = position.players
    rules.check_players(players)
    alive = np.asarray(position.alive, bool)
    if len(alive) != players or len(position.taken) != players or len(position.totals) != players:
        raise ValueError("position: hands, taken, alive and totals need one entry per seat")
    if alive.sum() < 2:
        raise ValueError("position.alive: a round needs at least two seats still in the game")
    for name in ("seat", "starter"):
        value = getattr(position, name)
        if not 0 <= value < players or not alive[value]:
            raise ValueError(f"position.{name}: {value!r} is not a seat still in the game")
    if position.pile_kind not in KIND_NAMES:
        raise ValueError(f"position.pile_kind: {position.pile_kind!r}; use one of {KIND_NAMES}")
    if isinstance(position.turn, bool) or not 0 <= position.turn < rules.max_turns:
        raise ValueError(f"position.turn: {position.turn!r}; use 0 to {rules.max_turns - 1}")
    t = new_table(players)
    t.alive[:] = alive
    t.totals[:] = np.asarray(position.totals, np.int64)
    everything = []
    for s in range(players):
        hand = card_codes(position.hands[s], f"position.hands[{s}]")
        took = np.asarray(position.taken[s], bool)
        if len(took) != len(hand):
            raise ValueError(f"position.taken[{s}]: one flag per card of hands[{s}]")
        if alive[s] and not 1 <= len(hand) <= MAX_HAND - 1:
            raise ValueError(f"position.hands[{s}]: {len(hand)} cards; a hand holds 1 to "
                             f"{MAX_HAND - 1}")  # fmt: skip
        if not alive[s] and len(hand):
            raise ValueError(f"position.hands[{s}]: a seat out of the game holds no cards")
        order = np.argsort(ORDER[hand], kind="stable")
        t.hands[s, : len(hand)] = hand[order]
        t.taken[s, : len(hand)] = took[order]
        t.hand_n[s] = len(hand)
        t.hand_val[s] = int(VALUE[hand].sum())
        everything.append(hand)
    rows = {"stock": STOCK, "dead": DEAD, "pile": PREV}
    lengths = {}
    for name, row in rows.items():
        cards = card_codes(getattr(position, name), f"position.{name}")
        t.piles[row, : len(cards)] = cards
        lengths[name] = len(cards)
        everything.append(cards)
    if lengths["pile"] == 0:
        raise ValueError("position.pile: the previous discard is never empty at a turn's start")
    deck = deck_codes(rules.decks_for(players), rules.jokers_per_deck)
    found = np.sort(np.concatenate(everything))
    if len(found) != len(deck) or not np.array_equal(found, np.sort(deck)):
        extra = sorted(set(found.tolist()) - set(deck.tolist()))
        counts = np.bincount(found, minlength=N_CODES)
        twice = np.flatnonzero(counts > 1)
        missing = sorted(set(deck.tolist()) - set(found.tolist()))
        detail = (
            f"twice: {format_cards(twice)}" if len(twice)
            else f"not in this deck: {format_cards(extra)}" if extra
            else f"missing: {format_cards(missing)}"
        )  # fmt: skip
        raise ValueError(
            f"position: the hands, stock, dead cards and pile must hold the deck of "
            f"{len(deck)} cards exactly once each; {detail}"
        )
    pst = t.pst
    pst[PS_STOCK_N] = lengths["stock"]
    pst[PS_DEAD_N] = lengths["dead"]
    pst[PS_PREV_N] = lengths["pile"]
    pst[PS_PREV_KIND] = KIND_NAMES.index(position.pile_kind)
    pst[PS_TURN] = position.turn
    pst[PS_SEAT] = position.seat
    pst[PS_STARTER] = position.starter
    pst[PS_RESHUFFLES] = position.reshuffles
    if position.rebuilt is not None and len(position.rebuilt):
        rebuilt = card_codes(position.rebuilt, "position.rebuilt")
        if position.reshuffles < 1:
            raise ValueError("position.rebuilt: the stock was never rebuilt (reshuffles is 0)")
        counts = np.bincount(rebuilt, minlength=N_CODES)
        short = np.flatnonzero(np.bincount(t.piles[STOCK, : lengths["stock"]],
                                           minlength=N_CODES) > counts)  # fmt: skip
        if counts.max() > 1 or len(short):
            raise ValueError("position.rebuilt: it must hold every card of the stock, each once")
        t.piles[REBUILT, : len(rebuilt)] = rebuilt
        pst[PS_REBUILT_N] = len(rebuilt)
    if position.pile_draws is not None:
        draws = np.asarray(position.pile_draws, bool)
        if draws.shape != (players,):
            raise ValueError(f"position.pile_draws: one flag per seat ({players})")
        pst[PS_PILE_DRAWS] = sum(1 << s for s in range(players) if draws[s])
    if position.streams is not None:
        streams = np.asarray(position.streams, np.uint64)
        if streams.shape != (1 + players,):
            raise ValueError(f"position.streams: {1 + players} stream states for {players} seats")
        t.rng[:] = streams
    else:
        _seed_round_streams(t.rng, seed, 0, position.turn)
    return t


def _force_at(t: Table, rules: Rules, rules_rec, call, discard, draw) -> Force:
    """The :class:`Force` of what the seat to act is made to do at the table's turn."""
    seat, turn = int(t.pst[PS_SEAT]), int(t.pst[PS_TURN])
    value = int(t.hand_val[seat])
    if call is not None and not isinstance(call, bool | np.bool_):
        raise ValueError(f"call: {call!r}; use True, False or None")
    if call and value > rules.threshold:
        raise ValueError(f"call: seat {seat} holds {value}; a call needs at most {rules.threshold}")
    if call and (discard is not None or draw is not None):
        raise ValueError("call: a seat that calls neither discards nor draws")
    mask, laying, source = -1, 0, -2
    if discard is not None:
        mask, laying = _find_laying(t, rules, seat, discard)
    if draw is not None:
        source = _find_draw(t, rules, draw)
    forced_call = 1 if call else 0
    if call is None and discard is None and draw is None:
        return NO_FORCE
    return Force(turn, forced_call, mask, laying, source)


def _find_laying(t: Table, rules: Rules, seat: int, discard) -> tuple[int, int]:
    """(card set mask, laying index) of a laying of ``seat``'s hand, as the round loop lays it.

    Cards are matched by face (either joker, either deck's copy).
    """
    wanted = format_cards(card_codes(discard, "discard")).split()
    jis = bool(rules.joker_in_sets)
    reading = (jis, rules.set_draw == "ends")
    n_sets = _card_sets(t.hands, seat, t.hand_n[seat], jis, t.cand)
    exact, alike = [], []
    for i in range(n_sets):
        mask = int(t.cand[C_MASK, i])
        kind = _mask_kind(t.hands, seat, mask, jis)
        rows = _layings(t.hands, seat, mask, kind, reading, t.lay, t.lay_len, 0)
        for r in range(rows):
            laid = format_cards(t.lay[r, : t.lay_len[r]]).split()
            if laid == wanted:
                exact.append((mask, r))
            elif sorted(laid) == sorted(wanted):
                alike.append((mask, r))
    if exact:
        return exact[0]
    if len(alike) == 1:
        return alike[0]
    shown = " ".join(wanted)
    if alike:
        ways = ", ".join(format_cards(_laying_cards(t, rules, seat, m, r)) for m, r in alike)
        raise ValueError(f"discard: {shown} can be laid several ways ({ways}); give it as laid")
    raise ValueError(f"discard: {shown} is not a legal discard of seat {seat}'s hand "
                     f"({format_cards(t.hands[seat, : t.hand_n[seat]])})")  # fmt: skip


def _laying_cards(t: Table, rules: Rules, seat: int, mask: int, r: int) -> np.ndarray:
    jis = bool(rules.joker_in_sets)
    kind = _mask_kind(t.hands, seat, mask, jis)
    _layings(t.hands, seat, mask, kind, (jis, rules.set_draw == "ends"), t.lay, t.lay_len, 0)
    return t.lay[r, : t.lay_len[r]].copy()


def _find_draw(t: Table, rules: Rules, draw) -> int:
    """-1 for the stock, else the position of a takeable card of the previous discard."""
    if isinstance(draw, str) and draw.strip().lower() == "stock":
        return -1
    card = card_codes(draw, "draw")
    if len(card) != 1:
        raise ValueError(f"draw: {draw!r}; give 'stock' or one card of the previous discard")
    n, kind = int(t.pst[PS_PREV_N]), int(t.pst[PS_PREV_KIND])
    bits = _takeable_bits(n, kind, rules.set_draw == "ends")
    takeable = [p for p in range(n) if (bits >> p) & 1]
    for p in takeable:  # by face: either joker, either deck's copy
        if format_cards(t.piles[PREV, p : p + 1]) == format_cards(card):
            return p
    cards = format_cards(t.piles[PREV, takeable]) if takeable else "none"
    raise ValueError(f"draw: {format_cards(card)} cannot be taken; takeable: {cards} or the stock")


def position_at(
    rules: Rules,
    players: int,
    seed: int,
    policies="max-shed",
    *,
    turn: int,
    game: int = 0,
    round: int = 0,
    starter: int = 0,
    totals=None,
    alive=None,
) -> Position:
    """The position of a seeded round at the start of ``turn``, streams included.

    The round is the one :func:`~yaniv_sim.engine.play_round` plays with the
    same arguments. ``turn`` may be any turn at whose start the round was
    still going (0 is the first); :func:`play_on` then plays it to the same
    end.
    """
    seed = normalise_seed(seed)
    rules_rec, pol, search = _rules_and_policies(rules, players, policies)
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
        raise ValueError(f"turn: {turn!r} is not allowed; use a whole number >= 0")
    t = new_table(players)
    if alive is not None:
        t.alive[:] = np.asarray(alive, np.int8)
    if totals is not None:
        t.totals[:] = np.asarray(totals, np.int64)
    if t.alive.sum() < 2 or not 0 <= starter < players or not t.alive[starter]:
        raise ValueError("alive/starter: need two seats in and a starter among them")
    _deal(rules_rec, t, starter, (seed, game, round))
    out = new_round_out(players, 0)
    if _play_on(rules_rec, pol, search, t, out, 0, turn, NO_FORCE) != REACHED:
        raise ValueError(
            f"turn: the round was over after {int(out.summary[0, 3])} turns; "
            f"turn {turn} never started"
        )
    return _from_table(t)


def play_on(
    position: Position,
    rules: Rules,
    policies="max-shed",
    *,
    seed: int = 0,
    record: bool = True,
    call: bool | None = None,
    discard=None,
    draw: str | None = None,
) -> RoundRecord:
    """Play a position on to the end of its round and return the record of the rest.

    ``call``, ``discard`` and ``draw`` force what the seat to act does at
    the position's turn, whatever its policy says (what-if questions; each
    candidate of a search is played on so): ``call`` True calls (the hand
    must allow it), False waits; ``discard`` is a laying of the seat's hand
    as laid (card text such as ``"JK 2C JK"``; the cards in another order
    name the laying if only one laying holds them); ``draw`` is ``"stock"``
    or a takeable card of the previous discard.

    Parameters
    ----------
    position : Position
    rules : Rules
    policies : str or sequence of str
        One policy spec for every seat, or one per seat.
    seed : int
        Seeds the random streams when the position has none (a position
        written by hand); ignored when it has them.
    record : bool
        Keep every step from the position on.

    Returns
    -------
    RoundRecord
        ``steps`` from the position on; ``turns``, ``reshuffles`` and the
        scores count the whole round. ``dealt`` holds the hands at the
        position and ``from_turn`` its turn.
    """
    if not isinstance(position, Position):
        raise ValueError(f"position: expected a Position, got {type(position).__name__}")
    seed = normalise_seed(seed)
    players = position.players
    rules_rec, pol, search = _rules_and_policies(rules, players, policies)
    t = _to_table(position, rules, seed)
    held = [t.hands[s, : t.hand_n[s]].copy() for s in range(players)]
    alive, shown = t.alive.copy(), int(t.piles[PREV, 0])
    out = new_round_out(players, rules.max_turns + 2 if record else 0)
    force = _force_at(t, rules, rules_rec, call, discard, draw)
    rows = _play_on(rules_rec, pol, search, t, out, 0, -1, force)
    return round_record(
        rules=rules,
        seed=seed,
        game=0,
        round=0,
        policies=policies,
        alive=alive,
        dealt=held,
        turned_up=shown,
        summary=out.summary[0],
        values=out.values[0],
        scores=out.scores[0],
        log=out.log[:rows] if record else None,
        from_turn=position.turn,
    )


def sample_world(
    position: Position,
    rules: Rules,
    *,
    seed: int,
    seat: int | None = None,
    bias: float = 0.0,
    recall: bool = False,
) -> Position:
    """A position that ``seat`` cannot tell from ``position``, its hidden cards dealt at random.

    ``seat`` (default: the seat to act) keeps what it can know: its own hand,
    the dead cards, the pile and its kind, every seat's card count, the cards
    each opponent took from the pile, the stock's size, the turn and totals.
    The opponents' other cards and the stock's cards and order are dealt
    uniformly at random from the cards the seat cannot see, with a stream
    keyed by ``seed`` alone: positions that differ only in what the seat
    cannot see give the same world for the same seed.

    With ``bias`` above 0 the opponents' unknown cards are dealt lower than
    at random, more so the longer each has played (the search's ``bias``).
    With ``recall`` the seat remembers every card shown (the search's
    ``recall``): after a reshuffle the cards not in the rebuilt stock (see
    ``Position.rebuilt``) are all dealt to the opponents, and an opponent
    whose latest draw was from the stock (``Position.pile_draws``) gets one
    card dealt last, as a stock draw.

    The streams are those of ``position`` (``None`` stays ``None``); they
    hold the real round's future shuffles and the opponents' random choices,
    so a search plays on in the world with fresh streams.
    """
    if not isinstance(position, Position):
        raise ValueError(f"position: expected a Position, got {type(position).__name__}")
    if not isinstance(rules, Rules):
        raise ValueError(f"rules: expected a Rules, got {type(rules).__name__}")
    seed = normalise_seed(seed)
    seat = position.seat if seat is None else seat
    if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
        raise ValueError(f"seat: {seat!r} is not a seat number")
    t = _to_table(position, rules, seed)
    if not 0 <= seat < position.players or not t.alive[seat]:
        raise ValueError(f"seat: {seat!r} is not a seat still in the game")
    world = new_table(position.players)
    rng = np.zeros(1, np.uint64)
    _seed_sampler(rng, seed)
    if not 0 <= bias <= 2:
        raise ValueError(f"bias: {bias!r} is not allowed; use a number from 0 to 2")
    if not isinstance(recall, bool | np.bool_):
        raise ValueError(f"recall: {recall!r}; use True or False")
    _sample_world(t, np.int64(seat), world, rng, float(bias), bool(recall))
    sampled = _from_table(world)
    if position.streams is None:
        sampled = dataclasses.replace(sampled, streams=None)
    return sampled
