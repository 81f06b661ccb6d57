"""Report section: the player's page, read from the shipped solved strategies alone.

For the report's rule set and each table size with a solved calling strategy
in ``yaniv_sim/data/solved/`` (see docs/solve.md), the calling rule in words,
a small table of the solved cells, and what an Assaf costs in win chance
from the shipped equity tables. Nothing is simulated, so it takes well under
a second.

A solved table sets some cells to call or wait; every other cell is left to
its base policy (``best``). The words and the table say so ("as best").
"""

from __future__ import annotations

import pandas as pd

from yaniv_sim import equity, solve
from yaniv_sim.engine.specs import TABLE_BAND_EDGES, TABLE_CARDS, TABLE_OPPONENTS
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section

TITLE = "The player's page"
BANDS = (0, 1, 2)  # turns 0-9, 10-19, 20 on (TABLE_BAND_EDGES)
BAND_LETTERS = "EML"  # early, middle, late
VERDICTS = {1: "call", 0: "wait"}
DEFER = "best"  # a cell the table leaves to its base policy
SYMBOL = {"call": "C", "wait": "W", DEFER: "·"}
LEVEL_TOTALS = (0, 40, 80, 120, 160)  # the Assaf-cost table: both players at this total


def _band_range(bands: tuple[int, ...]) -> str:
    """Turn bands in words: (0, 1) -> "turns 0-19", (2,) -> "from turn 20"."""
    low, high = TABLE_BAND_EDGES
    if set(bands) == set(BANDS):
        return "any turn"
    spans = {(0,): f"turns 0-{low - 1}", (1,): f"turns {low}-{high - 1}", (2,): f"from turn {high}",
             (0, 1): f"turns 0-{high - 1}", (1, 2): f"from turn {low}",
             (0, 2): f"turns 0-{low - 1} and from turn {high}"}  # fmt: skip
    return spans[tuple(sorted(bands))]


def _fewest_range(low: int, high: int, top: int, single: bool) -> str:
    """The fewest cards an opponent holds, ``low`` to ``high`` of at most ``top``.

    ``single``: one opponent still in ("the opponent" rather than "every").
    """
    cards = lambda n: f"{n} card" + ("" if n == 1 else "s")  # noqa: E731
    if low == 1 and high == top:
        return "whatever the opponent holds" if single else "whatever the opponents hold"
    if high == top:
        held = f"{low}+ cards" if low < top else cards(top)
        return f"while {'the' if single else 'every'} opponent holds {held}"
    span = cards(low) if low == high else f"{low}-{high} cards"
    if single:
        return f"while the opponent holds {span}"
    if high == 1:
        return "when an opponent is down to 1 card"
    return f"when the shortest opponent hand is {span}"


def clauses(
    cells: dict[tuple[int, int], str], top: int = TABLE_CARDS
) -> list[tuple[str, tuple[int, ...], int, int]]:
    """Group one hand value's cells into rules: ``(verdict, bands, fewest_low, fewest_high)``.

    ``cells`` maps ``(fewest, band)`` to ``"call"`` or ``"wait"`` (cells left
    out defer to the base policy). Each clause covers the cells with fewest
    cards ``fewest_low`` to ``fewest_high`` in each of ``bands``, all with the
    clause's verdict; the clauses together cover exactly ``cells``. Within a
    band, each run of consecutive card counts (1 to ``top``) with one
    verdict is a span; bands with the same spans are merged.
    """
    by_band: dict[int, list[tuple[str, int, int]]] = {}
    for band in BANDS:
        spans: list[tuple[str, int, int]] = []
        for fewest in range(1, top + 1):
            verdict = cells.get((fewest, band))
            if verdict is None:
                continue
            if spans and spans[-1][0] == verdict and spans[-1][2] == fewest - 1:
                spans[-1] = (verdict, spans[-1][1], fewest)
            else:
                spans.append((verdict, fewest, fewest))
        by_band[band] = spans
    groups: dict[tuple[str, int, int], list[int]] = {}
    for band, spans in by_band.items():
        for span in spans:
            groups.setdefault(span, []).append(band)
    out = [(verdict, tuple(bands), low, high) for (verdict, low, high), bands in groups.items()]
    # calls first, then by first band and fewest cards
    return sorted(out, key=lambda c: (c[0] != "call", c[1][0], c[2]))


def words(cells: dict[tuple[int, int], str], top: int = TABLE_CARDS,
          single: bool = False) -> str:  # fmt: skip
    """One hand value's rule in players' words (from :func:`clauses`)."""
    found = clauses(cells, top)
    parts = [f"{verdict} {_fewest_range(low, high, top, single)}, {_band_range(bands)}"
             for verdict, bands, low, high in found]  # fmt: skip
    if not parts:
        return f"as {DEFER}"
    covered = sum(len(b) * (high - low + 1) for _, b, low, high in found)
    return "; ".join(parts) + ("" if covered == len(BANDS) * top else f"; otherwise as {DEFER}")


def solved_cells(table: dict[tuple[int, int, int, int, int], int], players: int,
                 threshold: int, top: int = TABLE_CARDS) -> pd.DataFrame:  # fmt: skip
    """Every cell a table of ``players`` seats can reach, with its verdict.

    Columns ``hand_value`` (0 to ``threshold``), ``fewest`` (1 to ``top``:
    the hand size, since a turn never leaves a player more cards than
    dealt),
    ``band``, ``opponents`` (1 to ``players - 1``, 3 meaning 3 or more),
    ``pickup`` and ``verdict``: ``call``, ``wait`` or ``best`` (left to the
    base policy).
    """
    rows = [
        (v, c, b, o, k, VERDICTS.get(table.get((v, c, b, o, k)), DEFER))
        for v in range(threshold + 1)
        for c in range(1, top + 1)
        for b in BANDS
        for o in range(1, min(players - 1, TABLE_OPPONENTS) + 1)
        for k in (0, 1)
    ]
    return pd.DataFrame(rows, columns=["hand_value", "fewest", "band", "opponents", "pickup",
                                       "verdict"])  # fmt: skip


def _slice(cells: pd.DataFrame, value: int, opponents: int, pickup: int) -> dict:
    part = cells[(cells["hand_value"] == value) & (cells["opponents"] == opponents)
                 & (cells["pickup"] == pickup) & (cells["verdict"] != DEFER)]  # fmt: skip
    return {(int(r.fewest), int(r.band)): r.verdict for r in part.itertuples()}


def rule_lines(cells: pd.DataFrame, players: int) -> pd.DataFrame:
    """The rule for each hand value of one table size, in words.

    The main line is for every opponent still in (``opponents`` =
    ``players - 1``, at most 3) and no pickup; a line is added where a pickup
    (every opponent still in) or fewer opponents still in give other cells
    than the main line, and one with a pickup and fewer opponents still in
    where it differs from the line without a pickup at that many opponents.
    Every hand value with any cell set has a main line. Columns ``hand_value``,
    ``opponents``, ``pickup``, ``main`` (whether it is the main line) and
    ``words``; hand values whose cells all defer are left out.
    """
    full = min(players - 1, TABLE_OPPONENTS)
    top = int(cells["fewest"].max())
    rows = []
    for value in sorted(cells["hand_value"].unique()):
        main = _slice(cells, value, full, 0)
        if not (cells[cells["hand_value"] == value]["verdict"] != DEFER).any():
            continue
        rows.append((int(value), full, 0, True, words(main, top, full == 1)))
        pickup = _slice(cells, value, full, 1)
        if pickup != main:
            rows.append((int(value), full, 1, False, words(pickup, top, full == 1)))
        for o in range(full - 1, 0, -1):
            fewer, both = _slice(cells, value, o, 0), _slice(cells, value, o, 1)
            if fewer != main:
                rows.append((int(value), o, 0, False, words(fewer, top, o == 1)))
            if both != fewer:
                rows.append((int(value), o, 1, False, words(both, top, o == 1)))
    return pd.DataFrame(rows, columns=["hand_value", "opponents", "pickup", "main", "words"])


def page_table(cells: pd.DataFrame, players: int) -> pd.DataFrame:
    """The printed table's cells: every opponent still in, no pickup.

    Columns ``hand_value``, ``fewest``, ``band``, ``verdict``, and
    ``column``: the printed column, where card counts from the first one
    after which no row changes are pooled (``"5+"``).
    """
    full = min(players - 1, TABLE_OPPONENTS)
    part = cells[(cells["opponents"] == full) & (cells["pickup"] == 0)].copy()
    wide = part.pivot_table(index=["hand_value", "band"], columns="fewest", values="verdict",
                            aggfunc="first")  # fmt: skip
    top = int(part["fewest"].max())
    pool = top
    while pool > 1 and (wide[pool - 1] == wide[top]).all():
        pool -= 1
    part["column"] = [str(c) if c < pool else (f"{pool}+" if pool < top else str(pool))
                      for c in part["fewest"]]  # fmt: skip
    return part[["hand_value", "fewest", "band", "verdict", "column"]].reset_index(drop=True)


def _printed(table: pd.DataFrame) -> pd.DataFrame:
    """The page table as printed: one row per hand value, each entry early/middle/late."""
    columns = list(dict.fromkeys(table.sort_values("fewest")["column"]))
    first = table.drop_duplicates(["hand_value", "band", "column"])
    rows = []
    for value, part in first.groupby("hand_value"):
        row = {"hand value": int(value)}
        for column in columns:
            cell = part[part["column"] == column].sort_values("band")
            row[f"fewest {column}"] = " ".join(SYMBOL[v] for v in cell["verdict"])
        rows.append(row)
    return pd.DataFrame(rows)


def assaf_costs(rules, table: equity.Equity, values) -> pd.DataFrame:
    """What an Assaf costs in win chance, two players in, both at the same total.

    For each ``total`` in :data:`LEVEL_TOTALS` and hand value: the points the
    Assaf adds to the caller's total (the hand, if the rules add it, plus the
    penalty), the caller's win chance if the opponent wins the round and the
    caller scores nothing (``chance_if_nothing``), the same after the Assaf's
    points (``chance_after``, milestones applied) and the difference
    (``cost``). The opponent starts the next round in both. The Assafer's own
    score (its hand under ``assaf_winner_scores = "hand"``) is left out.
    """
    seats = table.players
    rows = []
    for total in LEVEL_TOTALS:
        totals = [total, total] + [rules.limit + 1] * (seats - 2)
        alive = [True, True] + [False] * (seats - 2)
        base = table.after_round(totals, [0] * seats, alive, starter=0, winner=1)[0]
        for value in values:
            points = rules.assaf_penalty + (value if rules.assaf_adds_hand else 0)
            scores = [points] + [0] * (seats - 1)
            after = table.after_round(totals, scores, alive, starter=0, winner=1)[0]
            rows.append({"total": total, "hand_value": value, "points": points,
                         "chance_if_nothing": base, "chance_after": after,
                         "cost": base - after})  # fmt: skip
    return pd.DataFrame(rows)


def _rule_sentence(row, players: int) -> str:
    if row.main:
        return f"- **{row.hand_value} point{'' if row.hand_value == 1 else 's'}:** {row.words}."
    full = min(players - 1, TABLE_OPPONENTS)
    if row.pickup and row.opponents == full:
        return f"  - with a pickup: {row.words}."
    more = "or more " if row.opponents == TABLE_OPPONENTS else ""
    who = f"{row.opponents} {more}opponent{'s' if row.opponents > 1 else ''} still in"
    return f"  - {who}{', with a pickup' if row.pickup else ''}: {row.words}."


def build(options: ReportOptions) -> Section:
    rules = options.rules
    name = options.label
    section = Section(TITLE, {"rules": name, "data": "the shipped solved strategies and equity "
                              "tables (nothing simulated)", "yaniv-sim": options.setup()[
                              "yaniv-sim"]})  # fmt: skip
    shipped, missing = {}, []
    for players in options.players:
        try:
            shipped[players] = solve.shipped(name, players)
        except solve.SolveError:
            missing.append(players)
    if not shipped:
        section.text(
            f"No solved calling strategy ships for the rules `{name}` at "
            + ", ".join(map(str, options.players))
            + " players (the package ships `standard` and `nordic` at 2 to 6 and `standard` at 7; "
            "make one with `yaniv-sim solve`, see docs/solve.md). This page is read from "
            "those files only."
        )
        return section
    section.text(
        "What to do at the table, read from the **solved calling strategies** that ship with "
        "yaniv-sim (`yaniv-sim solve`, docs/solve.md): `best` with a call table that no single "
        "cell's change clearly improves under its own play, each cell valued by the game-win "
        "chance. The table sets some cells to **call** or **wait**; everywhere else `best` "
        "decides for itself (it calls when its estimated Assaf risk is under 12%, 2 points "
        "lower when an Assaf would put it out): that is what **as best** means below. A "
        "call that lands a milestone is made whatever the table says. The cells are your "
        "hand value, the fewest cards any opponent holds, the turn of the round (turns are "
        "counted for the whole table), how many opponents are still in, and whether an "
        "opponent still holds cards it took from the pile that add up to no more than your "
        "hand (a **pickup**). Each solution's "
        'duplicate match against `best` is in docs/solve.md ("The shipped solutions").'
    )
    if missing:
        section.text(
            "No solved strategy ships for " + ", ".join(map(str, missing)) + " players under "
            f"`{name}`: this page covers " + ", ".join(map(str, shipped)) + "."
        )
    all_cells, all_lines, all_table = [], [], []
    for players, path in shipped.items():
        table = solve.read_table(path)
        cells = solved_cells(table, players, rules.threshold, min(rules.hand_size, TABLE_CARDS))
        lines = rule_lines(cells, players)
        printed = page_table(cells, players)
        all_cells.append(cells.assign(players=players))
        all_lines.append(lines.assign(players=players))
        all_table.append(printed.assign(players=players))
        full = min(players - 1, TABLE_OPPONENTS)
        everyone = "every opponent" if players > 2 else "the opponent"
        section.text(
            f"**{players} players** (lines for {everyone} still in, no pickup; indented: where "
            "a pickup, or fewer opponents still in after eliminations, change it; the full "
            "table has the rest). Hand values not listed: as best everywhere."
        )
        section.text("\n".join(_rule_sentence(row, players) for row in lines.itertuples()))
        shown = printed[printed["hand_value"].isin(
            cells.loc[cells["verdict"] != DEFER, "hand_value"].unique())]  # fmt: skip
        if len(shown):
            section.table(
                _printed(shown),
                f"{name}, {players} players, {full} opponent{'s' if full > 1 else ''} still in, "
                "no pickup: the solved cell by hand value and fewest opponent cards, for turns "
                f"0-{TABLE_BAND_EDGES[0] - 1}, {TABLE_BAND_EDGES[0]}-{TABLE_BAND_EDGES[1] - 1} "
                f"and {TABLE_BAND_EDGES[1]}+ (C call, W wait, · as best).",
            )
        path = f"yaniv_sim/data/solved/{name}-{players}p.toml"
        section.text(
            f"The full fixed-point table: `{path}`, playable with `--policy` (`yaniv-sim "
            f"simulate --policy {path} --rules {name} --players {players}`) or as a policy of "
            f"`yaniv-sim compare {path} best --rules {name} --players {players}`."
        )
    section.data["cells"] = pd.concat(all_cells, ignore_index=True)
    section.data["rules"] = pd.concat(all_lines, ignore_index=True)
    section.data["table"] = pd.concat(all_table, ignore_index=True)
    two = equity.shipped(name, 2)
    values = sorted({v for v in (1, 3, 5, rules.threshold) if v <= rules.threshold})
    costs = assaf_costs(rules, two, values)
    section.data["assaf_cost"] = costs
    wide = costs.pivot(index="total", columns="hand_value", values="cost")
    printed = pd.DataFrame({"both players at": [str(t) for t in wide.index]})
    for value in values:
        points = int(costs.loc[costs["hand_value"] == value, "points"].iloc[0])
        printed[f"Assafed on {value} (+{points})"] = [f"{100 * c:.1f}" for c in wide[value]]
    hand_note = (" The Assafer's own score (its hand, at most yours) is left out."
                 if rules.assaf_winner_scores == "hand" else "")  # fmt: skip
    section.text(
        "**What an Assaf costs**, two players in: the points of win chance the Assaf's points "
        f"(your hand plus {rules.assaf_penalty}) take from you, against the opponent winning "
        "the round while you score nothing; the opponent starts the next round either way, "
        "milestones applied. From the shipped two-player equity table (`best` self-play, "
        "docs/equity.md)." + hand_note
    )
    section.table(printed, f"{name}, two players in, points of win chance lost by an Assaf.")
    return section
