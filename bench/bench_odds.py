"""Time the exact Assaf odds (``odds.p_assaf``) on table situations, up to the advisor's worst.

Run: ``python bench/bench_odds.py [--only NAME ...] [--repeats 3] [--exact]``

Each case is a caller's hand, the opponents' card counts and the cards they
are known to hold; the unseen cards are the deck less the caller's hand and
the known cards. The script prints the best of ``--repeats`` timings and the
probability for every case, after the time of the first call of all (the
kernels compiled, or loaded from numba's cache: run with
``NUMBA_CACHE_DIR`` set to an empty folder to time the compilation).
``--exact`` times ``p_assaf(..., exact=True)`` (the exact fraction, the
count modulo primes) instead of the float the advisor uses.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from yaniv_sim.cards import VALUE, deck_codes, parse_cards
from yaniv_sim.odds import p_assaf

# name: (decks, jokers per deck, caller's hand, opponents' cards, known cards per opponent)
CASES = {
    "typical: 3 opponents 2,4,5 cards, value 5, one deck": (1, 2, "AS 2D 2C", [2, 4, 5], {}),
    "7 opponents x 2 cards, value 11, two decks": (2, 2, "5S 6H", [2] * 7, {}),
    "7 opponents x 5 cards, value 11, two decks": (2, 2, "5S 6H", [5] * 7, {}),
    "7 opponents x 1 card, value 9, two decks": (2, 2, "4S 5H", [1] * 7, {}),
    "7 opponents x 2 cards, value 15, two decks": (2, 2, "7S 8H", [2] * 7, {}),
    "7 opponents x 3 cards, value 15, two decks": (2, 2, "7S 8H", [3] * 7, {}),
    "7 opponents x 5 cards, value 15, two decks": (2, 2, "7S 8H", [5] * 7, {}),
    "7 opponents x 7 cards, value 15, two decks": (2, 2, "7S 8H", [7] * 7, {}),
    "7 opponents 1..7 cards, value 9, two decks": (2, 2, "4S 5H", [1, 2, 3, 4, 5, 6, 7], {}),
    "7 opponents x 4 cards, value 15, two decks": (2, 2, "7S 8H", [4] * 7, {}),
    "7 opponents x 5 cards, value 13, two decks": (2, 2, "6S 7H", [5] * 7, {}),
    "7 opponents x 6 cards, value 15, two decks": (2, 2, "7S 8H", [6] * 7, {}),
    "7 opponents x 5 cards, value 15, one deck": (1, 2, "7S 8H", [5] * 7, {}),
    "6 opponents x 5 cards, value 15, two decks": (2, 2, "7S 8H", [5] * 6, {}),
    "7 opponents x 5 cards, value 15, two decks, 4 jokers per deck": (2, 4, "7S 8H", [5] * 7, {}),
    "7 opponents 7..1 cards with known cards, value 9, two decks, 4 jokers per deck": (
        2,
        4,
        "4S 5H",
        [7, 6, 5, 4, 3, 2, 1],
        {1: "AS", 2: "2S", 3: "3S", 4: "AH 2H", 5: "4S"},
    ),
    "7 opponents x 4 cards with known cards, value 15, two decks": (
        2,
        2,
        "7S 8H",
        [4] * 7,
        {0: "AD", 1: "2D", 2: "3D", 3: "4D", 4: "5D", 5: "6D"},
    ),
    "7 opponents x 5 cards, 6 with a known card, value 15, two decks": (
        2,
        2,
        "7S 8H",
        [5] * 7,
        {0: "AD", 1: "2D", 2: "3D", 3: "4D", 4: "5D", 5: "6D"},
    ),
    "7 opponents x 5 cards, 6 with a known card, value 15, two decks, 4 jokers per deck": (
        2,
        4,
        "7S 8H",
        [5] * 7,
        {0: "AD", 1: "2D", 2: "3D", 3: "4D", 4: "5D", 5: "6D"},
    ),
}


def situation(decks, jokers, hand, opponents, known):
    """The arguments of ``p_assaf`` for one case."""
    used = parse_cards(" ".join([hand, *known.values()]))
    hand_codes, rest = used[: len(parse_cards(hand))], used[len(parse_cards(hand)) :]
    value = int(VALUE[hand_codes].sum())
    known_codes = [[] for _ in opponents]
    at = 0
    for i in sorted(known):
        n = len(parse_cards(known[i]))
        known_codes[i] = rest[at : at + n].tolist()
        at += n
    unseen = np.setdiff1d(deck_codes(decks, jokers), used)
    return value, opponents, unseen, known_codes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="substrings of case names")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--exact", action="store_true", help="time the exact fraction")
    args = parser.parse_args()
    value, opponents, unseen, known = situation(*CASES[next(iter(CASES))])
    start = time.perf_counter()
    p_assaf(value, opponents, unseen, known, exact=args.exact)
    print(f"{time.perf_counter() - start:9.3f} s  first call (compile or cache load)", flush=True)
    for name, case in CASES.items():
        if args.only and not any(s in name for s in args.only):
            continue
        value, opponents, unseen, known = situation(*case)
        best = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            p = float(p_assaf(value, opponents, unseen, known, exact=args.exact))
            best = min(best, time.perf_counter() - start)
        print(f"{best:9.3f} s  p={p:.12f}  {name}", flush=True)


if __name__ == "__main__":
    main()
