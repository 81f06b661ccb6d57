"""The rules of docs/rules.md read a second time: slow, plain Python, for checking the engine.

Nothing here comes from the engine's code. Cards are the rule book's text
tokens (``"5C"``, ``"10H"``, ``"JK"``): a rank ``A 2 .. 10 J Q K`` and a suit
``S H D C``, or ``JK`` for a joker. Two decks may hold a card twice; jokers
are all alike. Everything is done the obvious way (every order of every
handful of cards is tried), which is slow and hard to get wrong.

What is read from the rule book, section by section:

- *The deck*: points in hand, ranks for runs (ace low, no wrap-around).
- *Legal discards*: single, set (jokers only with ``joker_in_sets``), run
  of 3+ in one suit (jokers anywhere, inside ace to king), every
  combination of 2+ cards holding a natural card. Decision 2: one natural
  card with jokers is a set and a run, as the discarder chooses. Decision
  4: runs are laid rising (a typed-in run may be falling).
- *What you may pick up*: a single, the ends of a run, any card of a set
  (``set_draw = "any"``) or its first and last card (``"ends"``).
- *Scoring a round*: Yaniv, Assaf (a tie counts against the caller) with
  ``assaf_penalty``, ``assaf_adds_hand`` and ``assaf_winner_scores``, a call
  with ``assaf = false``, slapdown, stock-out.

Of the rule fields, only ``joker_in_sets`` and ``set_draw`` change what may
be discarded and taken (``jokers_per_deck``, ``decks`` and ``hand_size``
only change which hands can occur); ``threshold``, ``assaf``,
``assaf_penalty``, ``assaf_adds_hand`` and ``assaf_winner_scores`` change the
round's scores.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKER = "JK"


def is_joker(card: str) -> bool:
    return card == JOKER


def rank(card: str) -> int:
    """0 for an ace up to 12 for a king (runs go A 2 3 .. 10 J Q K)."""
    return RANKS.index(card[:-1])


def suit(card: str) -> str:
    return card[-1]


def card_value(card: str) -> int:
    """Points in hand: ace 1, 2 to 10 face value, J Q K 10, joker 0."""
    if is_joker(card):
        return 0
    name = card[:-1]
    if name == "A":
        return 1
    if name in ("J", "Q", "K"):
        return 10
    return int(name)


def hand_value(cards) -> int:
    return sum(card_value(c) for c in cards)


# -- legal discards ----------------------------------------------------------------------


def is_set(laid) -> bool:
    """Two or more cards of one rank; jokers are not looked at here."""
    naturals = [c for c in laid if not is_joker(c)]
    return len(laid) >= 2 and len(naturals) >= 1 and len({rank(c) for c in naturals}) == 1


def is_rising_run(laid) -> bool:
    """Three or more cards of one suit on consecutive ranks, lowest first, inside A..K.

    Each joker stands for the rank of its place. No card can appear twice: two
    cards in two places would need two ranks.
    """
    naturals = [c for c in laid if not is_joker(c)]
    if len(laid) < 3 or not naturals or len({suit(c) for c in naturals}) != 1:
        return False
    for low in range(len(RANKS)):
        high = low + len(laid) - 1
        if high >= len(RANKS):
            return False
        if all(is_joker(c) or rank(c) == low + place for place, c in enumerate(laid)):
            return True
    return False


def readings(laid, rules, *, falling: bool = False) -> set[str]:
    """Every kind the cards ``laid`` (in this order) may be put down as; empty if illegal.

    ``falling=True`` also accepts a run written from high to low, as the
    engine does for a discard typed in by a user.
    """
    laid = list(laid)
    if len(laid) == 1:
        return {"single"}
    if not laid or all(is_joker(c) for c in laid):
        return set()  # every combination of two or more cards needs a natural card
    kinds = set()
    has_joker = any(is_joker(c) for c in laid)
    if is_set(laid) and (rules.joker_in_sets or not has_joker):
        kinds.add("set")
    if is_rising_run(laid) or (falling and is_rising_run(laid[::-1])):
        kinds.add("run")
    return kinds


def takeable_places(laid, kind: str, rules) -> list[int]:
    """Places (0 = first card laid) of a discard laid as ``kind`` that may be taken."""
    n = len(laid)
    if kind == "single" or (kind == "set" and rules.set_draw == "any"):
        return list(range(n))
    return [0, n - 1]  # a run's ends; a set's first and last card under "ends"


def takeable(laid, kind: str, rules) -> list[str]:
    """The cards of a discard laid as ``kind`` that the next player may take."""
    laid = list(laid)
    return [laid[p] for p in takeable_places(laid, kind, rules)]


def _handfuls(hand):
    """Every non-empty sub-multiset of ``hand``, as a sorted tuple."""
    counts = Counter(hand)
    faces = sorted(counts)
    for picks in itertools.product(*[range(counts[f] + 1) for f in faces]):
        cards = tuple(f for f, n in zip(faces, picks, strict=True) for _ in range(n))
        if cards:
            yield cards


def _orders(cards):
    """The orders of ``cards`` worth trying.

    Naturals of one rank (or a single card): every order. Naturals of several
    ranks can only be a rising run, which has its naturals in rising rank
    order: every choice of the places of the jokers. Anything else is never
    a legal discard.
    """
    naturals = [c for c in cards if not is_joker(c)]
    if len(cards) == 1 or (naturals and len({rank(c) for c in naturals}) == 1):
        return set(itertools.permutations(cards))
    if not naturals or len({suit(c) for c in naturals}) != 1:
        return set()
    naturals.sort(key=rank)
    orders = set()
    for places in itertools.combinations(range(len(cards)), len(naturals)):
        order = [JOKER] * len(cards)
        for place, card in zip(places, naturals, strict=True):
            order[place] = card
        orders.add(tuple(order))
    return orders


def layings(hand, rules) -> set[tuple[tuple[str, ...], str]]:
    """Every way to lay a discard from ``hand``: (cards in the order laid, kind laid as).

    Runs are laid rising (decision 4); sets and singles in any order.
    """
    return set(_layings(tuple(sorted(hand)), rules.joker_in_sets))


@functools.lru_cache(maxsize=4096)
def _layings(hand: tuple[str, ...], joker_in_sets: bool):
    rules = _DiscardRules(joker_in_sets)
    return frozenset(
        (order, kind)
        for cards in _handfuls(hand)
        for order in _orders(cards)
        for kind in readings(order, rules)
    )


@dataclasses.dataclass(frozen=True)
class _DiscardRules:
    """The one rule field that decides which layings are legal."""

    joker_in_sets: bool


def card_sets(hand, rules) -> set[tuple[str, ...]]:
    """Every handful of ``hand`` that is a legal discard in some order (sorted tuples)."""
    return {tuple(sorted(order)) for order, _ in layings(hand, rules)}


def offers(hand, rules) -> set[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every (cards discarded, cards the next player may take) a discard of ``hand`` can give."""
    return {
        (tuple(sorted(order)), tuple(sorted(takeable(order, kind, rules))))
        for order, kind in layings(hand, rules)
    }


def run_placements(hand, rules) -> set[tuple[str, ...]]:
    """Every run that can be laid from ``hand``, cards in the order laid."""
    return {order for order, kind in layings(hand, rules) if kind == "run"}


# -- scoring a round ---------------------------------------------------------------------


def round_outcome(values, caller, rules, *, slapdown: bool = False) -> tuple[str, list[int]]:
    """(outcome, scores) of a round that ended with these hand values, one per seat in play.

    ``caller`` is the seat (an index into ``values``) that called Yaniv or
    slapped down, or ``None`` when the stock ran out with no call.
    """
    values = list(values)
    if caller is None:
        return "stock_out", values  # every player scores their hand
    scores = list(values)
    scores[caller] = 0
    if slapdown:
        return "slapdown", scores  # no Assaf is possible
    mine = values[caller]
    others = [v for seat, v in enumerate(values) if seat != caller]
    lowest = min(others)
    if not rules.assaf or lowest > mine:
        return "yaniv", scores
    # Assaf: some other hand is worth the caller's value or less (a tie counts against)
    scores[caller] = rules.assaf_penalty + (mine if rules.assaf_adds_hand else 0)
    for seat, v in enumerate(values):
        if seat == caller:
            continue
        let_off = {
            "zero": v == lowest,  # the lowest hand (every tied one) scores 0
            "hand": False,  # every opponent scores their hand
            "all_zero": True,  # every opponent scores 0
        }[rules.assaf_winner_scores]
        if let_off:
            scores[seat] = 0
    return "assaf", scores


def round_winner(values, alive, caller, outcome: str) -> int | None:
    """Who won the round, for ``starter = "winner"``: seats indexed round the whole table.

    The caller after a Yaniv or a slapdown; after an Assaf the opponent with
    the lowest hand, ties going to the first met clockwise from the caller's
    left; nobody after a void or stock-out round.
    """
    if outcome in ("yaniv", "slapdown"):
        return caller
    if outcome != "assaf":
        return None
    n = len(values)
    clockwise = [(caller + k) % n for k in range(1, n)]
    opponents = [s for s in clockwise if alive[s]]
    lowest = min(values[s] for s in opponents)
    return next(s for s in opponents if values[s] == lowest)


# -- running totals --------------------------------------------------------------------------

THEFT_CHARGE = 30


def settle(totals, scores, alive, rules) -> tuple[list[int], list[bool], int | None]:
    """Running totals after a round: (totals, still in, the game's winner or None).

    The four steps of "Running totals and the end of the game", in order:
    milestones, milestone theft, elimination above ``limit``, and the rule for
    everyone over the limit. Seats out of the game are left as they are.
    """
    totals = [int(t) for t in totals]
    alive = [bool(a) for a in alive]
    seats = [s for s in range(len(totals)) if alive[s]]
    milestones = dict(rules.milestones)
    landed = []
    for s in seats:
        totals[s] += int(scores[s])
        # only a score above zero that lands exactly on a milestone; replaced once
        if scores[s] > 0 and totals[s] in milestones:
            totals[s] = milestones[totals[s]]
            landed.append(s)
    if rules.milestone_theft:
        charges = dict.fromkeys(seats, 0)
        for s in landed:
            others = [o for o in seats if o != s]
            if not others:
                continue
            lowest = min(totals[o] for o in others)
            for o in others:
                if totals[o] == lowest:
                    charges[o] += THEFT_CHARGE
        for s in seats:
            totals[s] += charges[s]  # a charge never triggers a milestone
    over = [s for s in seats if totals[s] > rules.limit]
    if len(over) == len(seats):
        lowest = min(totals[s] for s in seats)
        leaders = [s for s in seats if totals[s] == lowest]
        for s in seats:
            alive[s] = s in leaders
        return totals, alive, leaders[0] if len(leaders) == 1 else None
    for s in over:
        alive[s] = False
    left = [s for s in seats if alive[s]]
    return totals, alive, left[0] if len(left) == 1 else None
