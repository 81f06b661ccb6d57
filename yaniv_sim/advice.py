"""The call advisor: should I call Yaniv now? One player's question at the table.

It combines the exact Assaf odds for random unseen cards
(:func:`yaniv_sim.odds.p_assaf`) with the simulated tables a strategy report
writes (``assaf-risk.csv``, ``decision-table.csv``), when those cover the
situation. The tables are read through :mod:`yaniv_sim.advice_tables`, which
declares their format.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from yaniv_sim import engine
from yaniv_sim._equity_file import preset_of
from yaniv_sim.advice_tables import BAND_EDGES, BAND_NAMES, FEWEST_CAP, FILES, read_tables
from yaniv_sim.cards import VALUE, deck_codes, format_cards, parse_cards
from yaniv_sim.odds import p_assaf
from yaniv_sim.rules import Rules

__all__ = [
    "DEFAULT_SEARCH",
    "Advice",
    "advise",
    "default_search",
    "default_tables",
    "table_position",
]


@dataclasses.dataclass
class Advice:
    """The advisor's answer; ``str()`` gives it in plain words."""

    hand: str
    value: int
    players: int
    opponents: list[int]
    turn: int
    rules_label: str
    may_call: bool
    unseen: int
    exact_risk: float | None
    simulated: dict | None  # risk, low, high, n, policy
    table: dict | None  # gain, gain_low, gain_high, win_gain, win_low, win_high, n, verdict
    tables_note: str
    verdict: str
    solved: dict | None = None  # verdict, cell, players, rules, file

    def __str__(self) -> str:
        band = BAND_NAMES[int(np.searchsorted(BAND_EDGES, self.turn, side="right"))]
        lines = [
            f"Your hand: {self.hand} = {self.value} point{'s' if self.value != 1 else ''} "
            f"({self.players} players; rules: {self.rules_label}; turn {self.turn}, "
            f"band {band}; opponents hold {', '.join(map(str, self.opponents))} cards)"
        ]
        if not self.may_call:
            lines.append(self.verdict)
            return "\n".join(lines)
        lines.append("Assaf risk if you call now:")
        lines.append(
            f"  exact, if the opponents' unknown cards were random among the {self.unseen} "
            f"cards you have not seen: {_pct(self.exact_risk)}"
        )
        if self.simulated is not None:
            s = self.simulated
            lines.append(
                f"  simulated ({s['policy']} self-play, same hand value, fewest opponent cards "
                f"and turn band): {s['risk']:.1%} (95% interval {s['low']:.1%} to "
                f"{s['high']:.1%}; {s['n']:,} positions)"
            )
        if self.table is not None:
            t = self.table
            lines.append(
                f"Calling now against waiting a turn ({t['n']:,} simulated positions, played "
                "both ways on the same cards):"
            )
            lines.append(
                f"  round points relative to the table: {t['gain']:+.1f} for calling "
                f"(95% interval {t['gain_low']:+.1f} to {t['gain_high']:+.1f})"
            )
            if t.get("win_n", 0) >= 2 and not np.isnan(t["win_gain"]):
                lines.append(
                    f"  chance of winning the game: {t['win_gain']:+.1%} for calling "
                    f"(95% interval {t['win_low']:+.1%} to {t['win_high']:+.1%}; "
                    f"{t['win_n']:,} games played on)"
                )
        if self.tables_note:
            lines.append(self.tables_note)
        if self.solved is not None:
            lines.append(_solved_line(self.solved))
        lines.append(self.verdict)
        return "\n".join(lines)


def _solved_line(solved: dict) -> str:
    value, fewest, band, opponents, pickup = solved["cell"]
    where = (f"hand {value}, fewest opponent cards {fewest}{'+' if fewest == 7 else ''}, "
             f"turns {BAND_NAMES[band]}, {opponents}{'+' if opponents == 3 else ''} "
             f"opponent{'s' if opponents > 1 else ''} in, "
             + ("an opponent holds pile cards worth your hand or less" if pickup
                else "no opponent holds pile cards worth your hand or less"))  # fmt: skip
    head = f"Solved strategy ({solved['rules']}, {solved['players']}-player games; {where}): "
    if solved["verdict"] is None:
        line = head + "no verdict in this cell; its base policy (best) decides by its risk"
    else:
        line = head + solved["verdict"]
    tables = solved.get("populations")
    if not tables:
        return line
    if len(set(tables.values())) == 1:
        tried = ", ".join(name for name in tables if name != "fixed point")
        return line + f"\n  the same in self-play and against every table tried ({tried})"
    parts = _by_verdict(tables)
    if len({v for v in tables.values() if v is not None}) == 2:
        return line + f"\n  it depends on how the opponents play: {parts}"
    return line + (
        "\n  never the other way against any table tried, but not every one "
        f"sets this cell (too few points, or best already plays it): {parts}"
    )


def _by_verdict(tables: dict) -> str:
    """``tables``' verdicts grouped: "call in self-play and against best; wait against ..."."""
    groups = {}
    for verdict in (1, 0, None):
        names = [name for name, v in tables.items() if v == verdict]
        if not names:
            continue
        others = [name for name in names if name != "fixed point"]
        where = ["in self-play"] if "fixed point" in names else []
        where += [f"against {', '.join(others)}"] if others else []
        groups[{1: "call", 0: "wait", None: "left to best"}[verdict]] = " and ".join(where)
    return "; ".join(f"{word} {where}" for word, where in groups.items())


def default_tables(rules_label: str) -> Path | None:
    """The report folder ``advise`` reads by default: the full report, else the quick one."""
    name = rules_label if rules_label in ("standard", "nordic") else "custom"
    for folder in (
        Path("reports") / f"strategy-{name}",
        Path("reports") / f"strategy-{name}-quick",
    ):
        if all((folder / f).is_file() for f in FILES):
            return folder
    return None


def _parse(text: str | None, what: str) -> list[str]:
    if not text or not text.strip() or text.strip() == "-":
        return []
    try:
        return [t for t in parse_cards(text).tolist()]
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None


def advise(
    hand: str,
    opponents: list[int],
    turn: int = 0,
    rules: Rules | None = None,
    *,
    seen: str | None = None,
    took: dict[int, str] | None = None,
    tables: Path | None = None,
    rules_label: str = "standard",
) -> Advice:
    """Advice for a player holding ``hand`` (card text) at a table.

    Parameters
    ----------
    hand : str
        The player's cards, e.g. ``"AS 2D 3C"``.
    opponents : list of int
        Cards held by each opponent, in playing order from the player's left.
    turn : int
        Turns already played in the round, counting every player's turns.
    seen : str, optional
        Cards gone to the discard pile that nobody can take back.
    took : dict, optional
        Opponent number (1-based, as in ``opponents``) -> cards that opponent
        took from the pile and still holds.
    tables : Path, optional
        A report folder holding the advice tables (``assaf-risk.csv``,
        ``decision-table.csv`` and ``report-tables.json``; see
        :mod:`yaniv_sim.advice_tables`). Tables that do not match the
        declared format raise :class:`~yaniv_sim.advice_tables.TablesError`
        (a ``ValueError``) with one line.
    """
    rules = rules or Rules()
    took = dict(took or {})
    opponents = [int(c) for c in opponents]
    players = len(opponents) + 1
    if not opponents:
        raise ValueError("opponents: give each opponent's card count, e.g. 2,4,5")
    if players > 8:
        raise ValueError(
            f"opponents: {len(opponents)} opponents and you make {players} players; "
            "a table seats at most 8, so give at most 7 opponents"
        )
    rules.check_players(players)
    for i, count in enumerate(opponents, 1):
        if not 1 <= count <= rules.hand_size:
            raise ValueError(
                f"opponents: opponent {i} holds {count} cards; a hand holds 1 to "
                f"{rules.hand_size} cards under these rules"
            )
    if turn < 0:
        raise ValueError(f"turn: {turn} is not allowed; use 0 or more")
    for k in took:
        if not 1 <= k <= len(opponents):
            raise ValueError(
                f"took: there is no opponent {k}; opponents are numbered 1 to {len(opponents)}"
            )
    # parse everything as one text, so a card written twice is the second deck's copy
    parts = [("hand", hand), ("seen", seen or "")] + [
        (f"took {k}", text) for k, text in sorted(took.items())
    ]
    took_by = [k for k, _ in sorted(took.items())]  # the opponent of each "took" part
    counts = []
    texts = []
    for what, text in parts:
        cards = _parse(text, what)
        counts.append(len(cards))
        texts.append(text if cards else "")
    allcodes = _parse(" ".join(t for t in texts if t), "cards") if any(texts) else []
    deck = deck_codes(rules.decks_for(players), rules.jokers_per_deck)
    in_deck = set(deck.tolist())
    for code in allcodes:
        if code not in in_deck:
            decks = rules.decks_for(players)
            raise ValueError(
                f"card {format_cards([code])} is given more often than the deck holds it "
                f"({decks} deck{'s' if decks > 1 else ''}, {rules.jokers_per_deck} jokers per "
                "deck); each card can be in one place only"
            )
    hand_codes = allcodes[: counts[0]]
    if not 1 <= len(hand_codes) <= rules.hand_size:
        raise ValueError(
            f"hand: {len(hand_codes)} cards; a hand holds 1 to {rules.hand_size} cards"
        )
    known = [[] for _ in opponents]
    at = counts[0] + counts[1]
    for k, n in zip(took_by, counts[2:], strict=True):
        known[k - 1] = allcodes[at : at + n]
        at += n
        if n > opponents[k - 1]:
            raise ValueError(f"took {k}: {n} cards, but opponent {k} holds only {opponents[k - 1]}")
    used = set(allcodes)
    unseen = np.array([c for c in deck.tolist() if c not in used], np.int16)
    unknown = sum(opponents) - sum(len(k) for k in known)
    if unknown > len(unseen):
        raise ValueError(
            f"the opponents hold {unknown} unknown cards, but only {len(unseen)} cards are left "
            "unseen in the deck; check the hand, the cards seen and the opponents' counts"
        )
    value = int(sum(VALUE[c] for c in hand_codes))
    text_hand = format_cards(np.array(hand_codes, np.int16))
    advice = dict(hand=text_hand, value=value, players=players, opponents=opponents, turn=turn,
                  rules_label=rules_label, unseen=len(unseen))  # fmt: skip
    if value > rules.threshold:
        return Advice(**advice, may_call=False, exact_risk=None, simulated=None, table=None,
                      tables_note="",
                      verdict=f"You cannot call yet: a call needs {rules.threshold} points or "
                              f"less, and your hand is worth {value}.")  # fmt: skip
    risk = p_assaf(value, opponents, unseen, known, decks=rules.decks_for(players),
                   jokers_per_deck=rules.jokers_per_deck)  # fmt: skip
    simulated, table, note = _lookup(tables, rules, players, value, opponents, turn)
    solved = _solved(rules, rules_label, players, value, opponents, turn, known)
    verdict = _verdict(risk, table, rules.assaf_penalty, solved)
    return Advice(**advice, may_call=True, exact_risk=risk, simulated=simulated, table=table,
                  tables_note=note, verdict=verdict, solved=solved)  # fmt: skip


def _solved(rules, rules_label, players, value, opponents, turn, known):
    """The shipped solved strategy's verdict for this position's cell, if one ships."""
    from yaniv_sim import solved

    if rules_label not in ("standard", "nordic") or rules != Rules.preset(rules_label):
        return None
    try:
        path = solved.shipped(rules_label, players)
    except solved.SolveError:
        return None
    cell = solved.table_cell_of(value, opponents, turn, [[int(VALUE[c]) for c in k] for k in known])
    verdict = solved.read_table(path).get(cell)
    words = {1: "call", 0: "wait", None: None}[verdict]
    return dict(verdict=words, cell=cell, players=players, rules=rules_label, file=path,
                populations=solved.population_verdicts(rules_label, players, cell))  # fmt: skip


def _lookup(tables, rules, players, value, opponents, turn):
    if tables is None:
        return (
            None,
            None,
            (
                "No simulated tables: run `yaniv-sim report` (or `--quick`) once to add the "
                "simulated risk and the call-or-wait comparison."
            ),
        )
    found = read_tables(tables)
    if found.rules != rules:
        return (
            None,
            None,
            (
                f"The tables in {found.folder} were made under other rules; run `yaniv-sim "
                "report` with these rules to add simulated figures."
            ),
        )
    fewest = min(min(opponents), FEWEST_CAP)
    band = int(np.searchsorted(BAND_EDGES, turn, side="right"))
    cell = {"hand_value": value, "fewest": fewest, "band": band}
    row = found.row("assaf-risk.csv", players=players, opponents=players - 1, **cell)
    simulated = None
    if row is not None and row["n"] >= 30:
        simulated = dict(risk=row["risk"], low=row["low"], high=row["high"], n=row["n"],
                         policy=found.meta["policy"])  # fmt: skip
    table = found.row("decision-table.csv", opponents=players - 1, **cell)
    if table is not None and table["verdict"] == "too few":
        table = None
    note = ""
    if simulated is None or table is None:
        note = (
            f"The simulated tables in {found.folder} have too few positions like this one "
            f"({players} players, {value} points, fewest {fewest} cards, turn band "
            f"{BAND_NAMES[band]}); a longer report run would cover it."
        )
    return simulated, table, note


def _pct(p: float) -> str:
    if 0 < p < 0.001:
        return "under 0.1%"
    if 0.999 < p < 1:
        return "over 99.9%"
    return f"{p:.1%}"


def _verdict(risk: float, table: dict | None, penalty: int, solved: dict | None = None) -> str:
    if table is None and solved is not None and solved["verdict"] is not None:
        return (
            f"Verdict: {solved['verdict']}, as the solved strategy does in this cell (no "
            "simulated tables to weigh it with)."
        )
    if table is None:
        return (
            f"Verdict: no simulated verdict for this situation. With random cards an Assaf "
            f"would come {_pct(risk)} of the time; weigh that against the {penalty}-point penalty."
        )
    gain = table["gain"]
    if table["verdict"] == "call":
        return (
            f"Verdict: call. In positions like this, calling left the caller {gain:.1f} points "
            "better off against the table than waiting a turn."
        )
    if table["verdict"] == "wait":
        return (
            f"Verdict: wait. In positions like this, calling cost {-gain:.1f} points against "
            "the table compared with waiting a turn."
        )
    return (
        "Verdict: too close to tell. Calling and waiting came out about even in positions "
        "like this; either is defensible."
    )


DEFAULT_SEARCH = "search:worlds=256,base=best"


def default_search(rules: Rules, totals_given: bool) -> str:
    """The search the advisor asks unless told: for the game (``objective=win``) when the
    totals are given and an equity table ships for ``rules``, else for round points."""
    if totals_given and preset_of(rules) is not None:
        return DEFAULT_SEARCH + ",objective=win"
    return DEFAULT_SEARCH


def table_position(
    hand: str,
    opponents: list[int],
    pile: str,
    turn: int = 0,
    rules: Rules | None = None,
    *,
    seen: str | None = None,
    took: dict[int, str] | None = None,
    totals: list[int] | None = None,
    pile_kind: str | None = None,
) -> engine.Position:
    """The position a player describes at the table, with the player as seat 0.

    ``pile`` is the previous discard as laid (what may be taken from it
    follows how it was laid: give ``pile_kind`` when it could be a set or a
    run); ``seen`` the cards under the pile; ``took`` the cards each
    opponent took from the pile and still holds; ``totals`` every player's
    running total, yours first. The opponents' other cards and the stock are
    the cards left, in an arbitrary order: a search never looks at them.
    Cards the player does not list as seen are taken to be in the stock.
    """
    rules = rules or Rules()
    opponents = [int(c) for c in opponents]
    players = len(opponents) + 1
    if not opponents or players > 8:
        raise ValueError("opponents: give each opponent's card count, 1 to 7 opponents")
    rules.check_players(players)
    took = dict(took or {})
    for k in took:
        if not 1 <= k <= len(opponents):
            raise ValueError(f"took: there is no opponent {k}; opponents are 1 to {len(opponents)}")
    deck = [int(c) for c in deck_codes(rules.decks_for(players), rules.jokers_per_deck)]
    free = {}  # face -> the codes of that face not yet placed
    for code in deck:
        free.setdefault(format_cards([code]), []).append(code)

    def place(text: str | None, what: str) -> list[int]:
        codes = []
        for face in format_cards(parse_cards(text)).split() if text and text.strip() else []:
            if not free.get(face):
                raise ValueError(f"{what}: {face} is given more often than the deck holds it "
                                 "(each card can be in one place only)")  # fmt: skip
            codes.append(free[face].pop(0))
        return codes

    mine = place(hand, "hand")
    if not 1 <= len(mine) <= rules.hand_size:
        raise ValueError(f"hand: {len(mine)} cards; a hand holds 1 to {rules.hand_size} cards")
    laid = place(pile, "pile")
    if not laid:
        raise ValueError("pile: give the previous player's discard as laid, e.g. --pile 7H")
    kinds = engine.discard_kinds(np.array(laid, np.int16), rules)
    if pile_kind is None and len(kinds) > 1:
        raise ValueError(f"pile_kind: {format_cards(laid)} may be laid as a set or as a run; "
                         "say which it was laid as")  # fmt: skip
    if pile_kind is None:
        pile_kind = kinds[0]
    elif pile_kind not in kinds:
        raise ValueError(f"pile_kind: {format_cards(laid)} cannot be laid as a {pile_kind}")
    dead = place(seen, "seen")
    known = {k: place(text, f"took {k}") for k, text in took.items()}
    rest = [c for codes in free.values() for c in codes]
    hands, flags = [np.array(mine, np.int16)], [np.zeros(len(mine), bool)]
    for i, count in enumerate(opponents, 1):
        if not 1 <= count <= rules.hand_size:
            raise ValueError(f"opponents: opponent {i} holds {count} cards; a hand holds 1 to "
                             f"{rules.hand_size} cards")  # fmt: skip
        shown = known.get(i, [])
        if len(shown) > count:
            raise ValueError(f"took {i}: {len(shown)} cards, but opponent {i} holds {count}")
        if count - len(shown) > len(rest):
            raise ValueError("opponents: more unknown cards in hands than the deck has left")
        cards = shown + rest[: count - len(shown)]
        rest = rest[count - len(shown) :]
        hands.append(np.array(cards, np.int16))
        flags.append(np.array([True] * len(shown) + [False] * (count - len(shown))))
    if totals is None:
        totals = [0] * players
    if len(totals) != players:
        raise ValueError(f"totals: {len(totals)} given; give {players}, yours first")
    return engine.Position(
        hands=tuple(hands),
        taken=tuple(flags),
        stock=np.array(rest, np.int16),
        dead=np.array(dead, np.int16),
        pile=np.array(laid, np.int16),
        pile_kind=pile_kind,
        seat=0,
        turn=int(turn),
        starter=0,
        reshuffles=0,
        alive=np.ones(players, bool),
        totals=np.array(totals, np.int64),
    )
