"""Cards as small integers, and their text form.

Terminology
-----------
code
    One integer per physical card, ``0 <= code < 112``. The two copies of
    ``5S`` in a two-deck game are two codes.
face
    What a card shows, ignoring which deck it came from: ``0..51`` for the
    natural cards (``suit * 13 + rank``) and ``52`` for every joker.
rank
    ``0`` (ace) to ``12`` (king); jokers have rank ``13`` (no rank).
value
    Points in hand: ace 1, 2-10 face value, J/Q/K 10, joker 0.
order
    Sort key of a face in a hand: rank-major (``rank * 4 + suit``), jokers
    last (``52``). Hands are kept in this order, so the cards of one rank, and
    identical cards of two decks, sit side by side.

Layout of the codes: deck ``d``'s natural cards are ``d * 52 + face``
(``0..51`` and ``52..103``); jokers are ``104 + j`` for the ``j``-th joker in
play, whatever the number of decks. Text is for parsing, display and tests
only, never for a hot loop.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "FACE",
    "IS_JOKER",
    "JOKER_FACE",
    "N_CODES",
    "ORDER",
    "RANK",
    "RANKS",
    "SUIT",
    "SUITS",
    "VALUE",
    "card_codes",
    "card_text",
    "deck_codes",
    "format_cards",
    "parse_cards",
]

SUITS = "SHDC"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
N_NATURAL = 52
MAX_DECKS = 2
JOKER_BASE = N_NATURAL * MAX_DECKS  # 104
MAX_JOKERS = 8
N_CODES = JOKER_BASE + MAX_JOKERS  # 112
JOKER_FACE = 52
JOKER_RANK = 13
JOKER_SUIT = 4


def _tables():
    face = np.empty(N_CODES, np.int64)
    face[:JOKER_BASE] = np.arange(JOKER_BASE) % N_NATURAL
    face[JOKER_BASE:] = JOKER_FACE
    joker = face == JOKER_FACE
    rank = np.where(joker, JOKER_RANK, face % 13)
    suit = np.where(joker, JOKER_SUIT, face // 13)
    value = np.where(joker, 0, np.minimum(rank + 1, 10))
    order = np.where(joker, JOKER_FACE, rank * 4 + suit)
    return face, rank, suit, value, joker, order


FACE, RANK, SUIT, VALUE, IS_JOKER, ORDER = _tables()
for _table in (FACE, RANK, SUIT, VALUE, IS_JOKER, ORDER):
    _table.setflags(write=False)

_SUIT_ALIASES = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}
_SUIT_ALIASES.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)}
_RANK_ALIASES["T"] = 9
_TOKEN = re.compile(r"^(10|[2-9AJQKT])([SHDC♠♥♦♣♤♡♢♧])$")
_ACCEPTED = (
    "accepted: rank A 2-10 J Q K (or T for ten) followed by suit S H D C "
    "(or ♠ ♥ ♦ ♣), or JK for a joker; separate cards by spaces or commas"
)


def _face_of_token(token: str) -> int:
    """Face of one card token (already stripped and upper-cased)."""
    if token in ("JK", "JOKER", "🃏"):
        return JOKER_FACE
    match = _TOKEN.match(token)
    if match is None:
        raise ValueError(f"bad card {token!r}; {_ACCEPTED}")
    rank, suit = match.groups()
    return _SUIT_ALIASES[suit] * 13 + _RANK_ALIASES[rank]


def parse_cards(text: str) -> np.ndarray:
    """Parse card text into card codes.

    Parameters
    ----------
    text : str
        Cards such as ``"AS 10h, qd JK 5♣"``, any case, separated by spaces
        or commas. A card written twice is the second deck's copy; jokers are
        numbered in the order they appear.

    Returns
    -------
    numpy.ndarray
        ``int16`` codes in the order written.

    Raises
    ------
    ValueError
        On a token that is not a card, or a card written more often than two
        decks hold it.
    """
    if not isinstance(text, str):
        raise ValueError(f"card text must be a string, not {type(text).__name__}")
    tokens = [t for t in re.split(r"[\s,;]+", text.replace("\ufe0f", "").strip()) if t]
    faces = [_face_of_token(raw.upper()) for raw in tokens]
    jokers = faces.count(JOKER_FACE)
    if jokers > MAX_JOKERS:
        raise ValueError(
            f"too many jokers: {jokers} written; at most {MAX_JOKERS} exist (4 per deck, 2 decks)"
        )
    codes = []
    copies: dict[int, int] = {}
    n_jokers = 0
    for raw, face in zip(tokens, faces, strict=True):
        if face == JOKER_FACE:
            codes.append(JOKER_BASE + n_jokers)
            n_jokers += 1
            continue
        copy = copies.get(face, 0)
        if copy >= MAX_DECKS:
            raise ValueError(
                f"card {raw!r} written {faces.count(face)} times; "
                f"at most {MAX_DECKS} copies exist (two decks)"
            )
        copies[face] = copy + 1
        codes.append(copy * N_NATURAL + face)
    return np.asarray(codes, dtype=np.int16)


def card_codes(cards, what: str = "cards") -> np.ndarray:
    """Card codes from text or an integer array, checked: ``int16``, each physical card once.

    ``what`` names the argument in the one-line ``ValueError`` on bad input.
    """
    if isinstance(cards, str):
        codes = parse_cards(cards)
    else:
        codes = np.asarray(cards)
        if codes.ndim != 1 or (codes.size and not np.issubdtype(codes.dtype, np.integer)):
            raise ValueError(f"{what}: give card text or a 1-d array of card codes")
        if codes.size and (codes.min() < 0 or codes.max() >= N_CODES):
            raise ValueError(f"{what}: card codes run from 0 to {N_CODES - 1}")
        codes = codes.astype(np.int16)
    if len(np.unique(codes)) != len(codes):
        raise ValueError(f"{what}: the same physical card appears twice: {format_cards(codes)}")
    return codes


def card_text(code: int) -> str:
    """The text of one card code, such as ``"10H"`` or ``"JK"``."""
    code = int(code)
    if not 0 <= code < N_CODES:
        raise ValueError(f"bad card code {code}; codes run from 0 to {N_CODES - 1}")
    if IS_JOKER[code]:
        return "JK"
    return RANKS[RANK[code]] + SUITS[SUIT[code]]


def format_cards(cards) -> str:
    """Card codes as text separated by spaces; ``parse_cards`` reads it back."""
    return " ".join(card_text(c) for c in np.asarray(cards).ravel())


def deck_codes(decks: int, jokers_per_deck: int) -> np.ndarray:
    """Every card code of a game's deck, as ``int16``."""
    naturals = np.arange(N_NATURAL * decks)
    jokers = JOKER_BASE + np.arange(jokers_per_deck * decks)
    return np.concatenate([naturals, jokers]).astype(np.int16)
