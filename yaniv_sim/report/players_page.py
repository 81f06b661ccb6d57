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

import json

import pandas as pd

from yaniv_sim import equity, solve, tiers
from yaniv_sim.engine.specs import TABLE_BAND_EDGES, TABLE_CARDS, TABLE_OPPONENTS
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section

TITLE = "The player's page"
BANDS = (0, 1, 2)  # turns 0-9, 10-19, 20 on (TABLE_BAND_EDGES)
BAND_LETTERS = "EML"  # early, middle, late
VERDICTS = {1: "call", 0: "wait"}
DEFER = "best"  # a cell the table leaves to its base policy
SYMBOL = {"call": "C", "wait": "W", DEFER: "·"}
LEVEL_TOTALS = (0, 40, 80, 120, 160)  # the Assaf-cost table: every player at this total
OPPONENT_TOTALS = (0, 50, 100, 150)  # the milestone table: the opponent at this total


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


def assaf_costs(rules, name: str, values, ins=(2, 3, 4)) -> pd.DataFrame:
    """What an Assaf costs in win chance, ``k`` players in, all at the same total.

    For each ``players_in`` ``k`` in ``ins`` (from the shipped ``k``-player
    equity table, a game dealt to ``k``), ``total`` in :data:`LEVEL_TOTALS` and
    hand value: the points the Assaf adds to the caller's total (the hand, if
    the rules add it, plus the penalty), the caller's win chance if the next
    seat wins the round and the caller scores nothing (``chance_if_nothing``),
    the same after the Assaf's points (``chance_after``, milestones applied) and
    the difference (``cost``). The next seat starts the next round in both.
    The other players' own scores are left out (the Assafer's hand, at most
    yours, under ``assaf_winner_scores = "hand"``).
    """
    rows = []
    for k in ins:
        table = equity.shipped(name, k)
        for total in LEVEL_TOTALS:
            totals = [total] * k
            base = table.after_round(totals, [0] * k, None, starter=0, winner=1)[0]
            for value in values:
                points = rules.assaf_penalty + (value if rules.assaf_adds_hand else 0)
                scores = [points] + [0] * (k - 1)
                after = table.after_round(totals, scores, None, starter=0, winner=1)[0]
                rows.append({"players_in": k, "total": total, "hand_value": value,
                             "points": points, "chance_if_nothing": base,
                             "chance_after": after, "cost": base - after})  # fmt: skip
    return pd.DataFrame(rows)


def milestone_values(rules, name: str) -> pd.DataFrame:
    """What landing exactly on a milestone is worth, two players in.

    For each milestone (``milestone`` -> ``to``) and opponent total in
    :data:`OPPONENT_TOTALS` (at most the limit): the win chance at ``to``
    (landed) and at ``milestone`` (had it not counted), the opponent to start
    the next round, and the difference ``value``, from the shipped two-player
    equity table.
    """
    two = equity.shipped(name, 2)
    rows = []
    for milestone, to in rules.milestones:
        for other in OPPONENT_TOTALS:
            if other > rules.limit:
                continue
            landed = float(two.win_chances([to, other], None, starter=1)[0])
            missed = float(two.win_chances([milestone, other], None, starter=1)[0])
            rows.append({"milestone": milestone, "to": to, "opponent": other,
                         "chance_landed": landed, "chance_at_milestone": missed,
                         "value": landed - missed})  # fmt: skip
    return pd.DataFrame(rows)


def population_rows(name: str, sizes) -> pd.DataFrame:
    """The shipped best responses against other tables (``<rules>-<P>p-populations.json``).

    One row per table size and opponent population (every other seat plays
    it): one seat's win share less its fair share, with the paired 95%
    interval, for the best response to that table (``response``), the
    self-play solution (``solved``) and plain ``best``; ``left`` is the best
    response's gain less the solution's (what playing the solution against
    that table leaves on it).
    """
    rows = []
    for players in sizes:
        path = solve.DATA / f"{name}-{players}p-populations.json"
        if not path.exists():
            continue
        saved = json.loads(path.read_text(encoding="utf-8"))
        for against, entry in saved["populations"].items():
            row = {"players": players, "against": against, "deals": saved["deals"]}
            for key, label in (("best response", "response"), ("fixed point", "solved"),
                               ("best", "best")):  # fmt: skip
                row[label], row[f"{label}_low"], row[f"{label}_high"] = entry[key]
            row["left"] = row["response"] - row["solved"]
            rows.append(row)
    return pd.DataFrame(rows)


def _populations_text(section: Section, rows: pd.DataFrame, name: str) -> None:
    for players, part in rows.groupby("players"):
        fair = 100 / players
        printed = pd.DataFrame({
            "every other seat plays": [f"`{a}`" for a in part["against"]],
            "best response to that table": [_cost(r.response_low, r.response, r.response_high,
                                                   sign="+") for r in part.itertuples()],
            "the solved strategy": [_cost(r.solved_low, r.solved, r.solved_high, sign="+")
                                    for r in part.itertuples()],
            "`best`": [_cost(r.best_low, r.best, r.best_high, sign="+")
                       for r in part.itertuples()],
        })  # fmt: skip
        worst = part.loc[part["left"].idxmax()]
        section.text(
            f"**Against other tables** ({players} players): how the calling should change "
            "with the opponents' style. For each kind of table, one seat's win share less "
            f"its fair {fair:.0f}% (points, paired 95% interval over "
            f"{int(part['deals'].iloc[0]):,} duplicate deals) with a call table solved "
            "against that table (its best response), with the self-play solution of this page, "
            "and with plain `best` (`best` at a table of `best` is the fair share by "
            "symmetry; `scripts/populations.py`, docs/solve.md). " + _left_text(worst)
        )
        section.table(printed, f"{name}, {players} players: what one seat gains over its "
                      "fair share against each kind of table.")  # fmt: skip


def _left_text(worst) -> str:
    """What the solution leaves on the table against its hardest opponents (``worst``: the row
    whose best response leads the solution by most), in points of win share."""
    if round(100 * worst.left, 1) <= 0:
        return (
            "Against every one of these tables the solution does as well as the best "
            "response solved against it (that response leads it by less than 0.05 points)."
        )
    return (
        f"The solution leaves at most {100 * worst.left:.1f} points on the table, against "
        f"`{worst.against}`: there the best response calls differently."
    )


def yardstick(name: str) -> pd.DataFrame:
    """The shipped matches of the search player (``yardstick.json``) under ``name``'s rules."""
    path = solve.DATA / "yardstick.json"
    matches = json.loads(path.read_text(encoding="utf-8"))["matches"] if path.exists() else []
    rows = [{"players": m["players"], "first": m["first"], "second": m["second"],
             "deals": m["deals"], "difference": m["difference"][0], "low": m["difference"][1],
             "high": m["difference"][2], "command": m["command"]}
            for m in matches if m["rules"] == name]  # fmt: skip
    columns = ["players", "first", "second", "deals", "difference", "low", "high", "command"]
    return pd.DataFrame(rows, columns=columns)


def tier_rows(name: str, sizes) -> pd.DataFrame:
    """The shipped tiers (:mod:`yaniv_sim.tiers`) and what each costs, one row per size and tier.

    Columns ``players``, ``tier`` (``one line``, ``small table``, ``best``),
    ``words`` (the one line's rule), ``cuts`` (the small table's), the cost in
    win share (``win_cost``, ``win_low``, ``win_high``: the full strategy's
    share less the tier's) and in points per round (``points_cost``, ...: the
    tier's less the full strategy's), ``deals`` and ``file``.
    """
    rows = []
    for players in sizes:
        saved = tiers.read_shipped(name, players)
        if saved is None:
            continue
        for tier in ("one line", "small table", "best"):
            entry = saved["tiers"][tier]
            words = (tiers.OneLine(entry["many"], entry["few"]).words() if tier == "one line"
                     else "")  # fmt: skip
            rows.append({"players": players, "tier": tier, "words": words,
                         "cuts": entry.get("cuts"), "win_cost": entry["win_cost"][0],
                         "win_low": entry["win_cost"][1], "win_high": entry["win_cost"][2],
                         "points_cost": entry["points_cost"][0],
                         "points_low": entry["points_cost"][1],
                         "points_high": entry["points_cost"][2], "deals": saved["deals"],
                         "file": entry.get("file", "")})  # fmt: skip
    return pd.DataFrame(rows)


def _cost(low: float, mid: float, high: float, scale: float = 100.0, digits: int = 1,
          sign: str = "") -> str:  # fmt: skip
    f = f"{sign}.{digits}f"
    return f"{scale * mid:{f}} ({scale * low:{f}} to {scale * high:{f}})"


def _small_table(cuts) -> pd.DataFrame:
    low, high = TABLE_BAND_EDGES
    names = {(1, 1): "1 card", (2, 2): "2 cards", (3, 3): "3 cards"}
    rows = []
    for (a, b), row in zip(tiers.FEWEST_GROUPS, cuts, strict=False):
        label = names.get((a, b), f"{a}+ cards")
        rows.append({"shortest opponent hand": label,
                     **{band: ("never" if x < 0 else f"{x} or less") for band, x in
                        zip((f"turns 0-{low - 1}", f"turns {low}-{high - 1}",
                             f"from turn {high}"), row, strict=False)}})  # fmt: skip
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
    for players in options.page_players or options.players:
        try:
            shipped[players] = solve.shipped(name, players)
        except solve.SolveError:
            missing.append(players)
    if not shipped:
        section.text(
            f"No solved calling strategy ships for the rules `{name}` at "
            + ", ".join(map(str, options.page_players or options.players))
            + f" players (the package ships {_shipped_words()}; make one with `yaniv-sim "
            "solve`, see docs/solve.md). This page is read from those files only."
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
    costs_by_tier = tier_rows(name, shipped)
    if len(costs_by_tier):
        _shortcut_summary(section, costs_by_tier, name)
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
        mine = costs_by_tier[costs_by_tier["players"] == players] if len(costs_by_tier) else []
        if len(mine):
            line = mine[mine["tier"] == "one line"].iloc[0]
            small = mine[mine["tier"] == "small table"].iloc[0]
            section.text(
                f"**{players} players.** The one-line rule: **{line.words}** (costs "
                f"{_cost(line.win_low, line.win_cost, line.win_high)} points of win share and "
                f"{_cost(line.points_low, line.points_cost, line.points_high, 1, 2)} points a "
                "round). The small table: the most to call at, by the shortest opponent hand "
                f"and the turn (costs {_cost(small.win_low, small.win_cost, small.win_high)} "
                "points of win share and "
                f"{_cost(small.points_low, small.points_cost, small.points_high, 1, 2)} points "
                "a round):"
            )
            section.table(_small_table(small.cuts),
                          f"{name}, {players} players: the small table (call at the value "
                          "given or less; never: do not call).")  # fmt: skip
            section.text(
                f"The full strategy ({everyone} still in, no pickup; indented: where a pickup, "
                "or fewer opponents still in after eliminations, change it; the full table has "
                "the rest; hand values not listed: as best everywhere):"
            )
        else:
            section.text(
                f"**{players} players** (lines for {everyone} still in, no pickup; indented: "
                "where a pickup, or fewer opponents still in after eliminations, change it; "
                "the full table has the rest). Hand values not listed: as best everywhere."
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
        files = ""
        if len(mine):
            files = " The tiers: " + ", ".join(
                f"`yaniv_sim/data/solved/{f}`" for f in mine["file"] if f) + "."  # fmt: skip
        section.text(
            f"The full fixed-point table: `{path}`, playable with `--policy` (`yaniv-sim "
            f"simulate --policy {path} --rules {name} --players {players}`) or as a policy of "
            f"`yaniv-sim compare {path} best --rules {name} --players {players}`." + files
        )
    section.data["cells"] = pd.concat(all_cells, ignore_index=True)
    section.data["rules"] = pd.concat(all_lines, ignore_index=True)
    section.data["table"] = pd.concat(all_table, ignore_index=True)
    values = sorted({v for v in (1, 3, 5, rules.threshold) if v <= rules.threshold})
    ins = tuple(k for k in (2, 3, 4) if k <= max(shipped))
    costs = assaf_costs(rules, name, values, ins)
    section.data["assaf_cost"] = costs
    sizes = costs["players_in"].unique()
    printed = pd.DataFrame(
        {
            "players in": [str(k) for k in sizes for _ in LEVEL_TOTALS],
            "everyone at": [str(t) for _ in sizes for t in LEVEL_TOTALS],
        }
    )
    for value in values:
        part = costs[costs["hand_value"] == value]
        points = int(part["points"].iloc[0])
        printed[f"Assafed on {value} (+{points})"] = [f"{100 * c:.1f}" for c in part["cost"]]
    hand_note = (" The Assafer's own score (its hand, at most yours) is left out."
                 if rules.assaf_winner_scores == "hand" else "")  # fmt: skip
    section.text(
        "**What an Assaf costs**: the points of win chance the Assaf's points (your hand plus "
        f"{rules.assaf_penalty}) take from you, against the next player winning the round while "
        "you score nothing; that player starts the next round either way, milestones applied. "
        "With more players in, each has a smaller chance to begin with; compare the cost with "
        "the fair share (1 in 2, 3 or 4). "
        "From the shipped equity tables of games dealt to that many players (`best` self-play, "
        "docs/equity.md)." + hand_note
    )
    section.table(printed, f"{name}: points of win chance lost by an Assaf, every player "
                  "in at the same total.")  # fmt: skip
    marks = milestone_values(rules, name)
    section.data["milestones"] = marks
    if len(marks):
        wide = pd.DataFrame({"landing on": [f"{m} (to {t})" for m, t in rules.milestones]})
        for other in marks["opponent"].unique():
            part = marks[marks["opponent"] == other]
            wide[f"opponent at {other}"] = [f"{100 * v:+.1f}" for v in part["value"]]
        section.text(
            "**What a milestone landing is worth**, two players in: the points of win chance "
            "of ending a round exactly on a milestone (your total drops to the one given) "
            "against staying on it, the opponent to start the next round. From the shipped "
            "two-player equity table."
        )
        section.table(wide, f"{name}, two players in: points of win chance a milestone "
                      "landing is worth, by the opponent's total.")  # fmt: skip
    pops = population_rows(name, shipped)
    section.data["populations"] = pops
    if len(pops):
        _populations_text(section, pops, name)
    sticks = yardstick(name)
    section.data["yardstick"] = sticks
    if len(sticks):
        section.text(_yardstick_text(sticks, name))
    return section


def _shipped_words() -> str:
    """The shipped solutions in words: "`standard` at 2-7 players, `nordic` at 2-7"."""
    parts = []
    for preset in ("standard", "nordic"):
        sizes = [p for p in range(2, 9) if (solve.DATA / f"{preset}-{p}p.toml").exists()]
        if sizes:
            parts.append(f"`{preset}` at {sizes[0]}-{sizes[-1]} players")
    return " and ".join(parts) or "none"


def _verdict(low: float, high: float, first: str, second: str) -> str:
    if low > 0:
        return f"{first} is stronger"
    if high < 0:
        return f"{second} is stronger"
    return "not separable"


def _sizes(sizes: list[str]) -> str:
    """``["3", "4", "5"]`` as ``3, 4 and 5``."""
    return sizes[0] if len(sizes) == 1 else f"{', '.join(sizes[:-1])} and {sizes[-1]}"


def _closing(solved: pd.DataFrame) -> str:
    """What the solved-against-search matches say together."""
    ahead = [str(r.players) for r in solved.itertuples() if r.low > 0]
    behind = [str(r.players) for r in solved.itertuples() if r.high < 0]
    gap = ("the search also plays every discard and draw by rollouts, which the solved "
           "strategies leave to `best`, and reads each position more finely than the "
           "table's cells")  # fmt: skip
    if not ahead:
        return (f"The solved calls close part of the gap between `best` and strong play, "
                f"not all of it: {gap}.")  # fmt: skip
    text = f"At {_sizes(ahead)} players the solved strategy is ahead of the search"
    if behind:
        text += f"; at {_sizes(behind)} players the search is ahead ({gap})"
    return text + "."


def _yardstick_text(sticks: pd.DataFrame, name: str) -> str:
    """How close the solved strategies are to strong play, in words."""
    parts = []
    versus = sticks[sticks["first"] == "search"]
    if len(versus):
        parts.append(
            "The search player (it deals 64 worlds consistent with what its seat has seen "
            "and plays every choice out with `best`; docs/policies.md) beats `best` by "
            + "; ".join(f"{_cost(r.low, r.difference, r.high)} points of win share at "
                        f"{r.players} players ({r.deals:,} deals)" for r in versus.itertuples())
            + "."
        )  # fmt: skip
    solved = sticks[sticks["first"] == "solved"]
    if len(solved):
        parts.append(
            "Against it, the solved strategy's win share less the search's: "
            + "; ".join(f"{_cost(r.low, r.difference, r.high, sign='+')} at {r.players} players "
                        f"({r.deals:,} deals: {_verdict(r.low, r.high, 'solved', 'search')})"
                        for r in solved.itertuples())
            + "."
        )  # fmt: skip
        parts.append(_closing(solved))
    return f"**How close to strong play** ({name}). " + " ".join(parts)


def _shortcut_summary(section: Section, rows: pd.DataFrame, name: str) -> None:
    """The tiers' costs at every table size in one table."""
    section.text(
        "**What each shortcut costs.** Three ways to call, from simplest to the full "
        "strategy: a **one-line rule** (call at X or less while every opponent holds 3+ "
        "cards, at Y or less while one is down to 1-2), a **small table** (the most to call "
        "at by the shortest opponent hand and the turn), and `best` itself (its own "
        "Assaf-risk estimate, which reads what the opponents took from the pile and threw "
        "away). Each was played in duplicate games against the full solved strategy "
        "(`scripts/tiers.py`, docs/solve.md): its cost is the full strategy's win share "
        "less its own (points of win share, paired 95% interval over deals) and the points a "
        "round it scores more. The rules and the small tables were fitted to the full "
        "strategy's decisions by the game-win chance each call gains; discards and draws "
        "are `best`'s in all of them."
    )
    out = []
    for players, part in rows.groupby("players"):
        entry = {"players": str(players)}
        by = {r.tier: r for r in part.itertuples()}
        entry["one-line rule"] = by["one line"].words
        for tier, label in (("one line", "one line"), ("small table", "small table"),
                            ("best", "best alone")):  # fmt: skip
            r = by[tier]
            entry[f"{label}: win share"] = _cost(r.win_low, r.win_cost, r.win_high)
            entry[f"{label}: points a round"] = _cost(r.points_low, r.points_cost,
                                                      r.points_high, 1, 2)  # fmt: skip
        out.append(entry)
    section.table(pd.DataFrame(out), f"{name}: what each shortcut costs against the full "
                  f"strategy ({int(rows['deals'].iloc[0]):,} duplicate deals a size).")  # fmt: skip
    section.data["tiers"] = rows
