"""Section: is it worth aiming at the milestones?

``milestone-hunter`` calls whenever even an Assaf would land it exactly on a
milestone. The same preset with every milestone parameter set back to the
heuristic default plays without that targeting. The two meet in duplicate
format at every table size of the report, under the 50/100 milestones of the
standard rules and the 100/200 milestones of the nordic rules; games with
both at the table show how often each lands on a milestone and how many
points that saves.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from yaniv_sim.compare import compare, deal_interval, seatings
from yaniv_sim.engine.specs import FAMILIES, HEURISTIC_PARAMS, canonical_spec
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section

__all__ = ["HUNTER", "PLAIN", "SCHEMES", "build", "landings", "untargeted_spec"]

Z = 1.959963984540054  # two-sided 95%
HUNTER = "milestone-hunter"
PLAIN = "hunter without targeting"  # the name of untargeted_spec() in the report
SCHEMES: dict[str, dict[int, int]] = {
    "50/100": {50: 25, 100: 50},  # as in standard
    "100/200": {100: 50, 200: 100},  # as in nordic
}
SMALL_RUN = 4000  # games below which one process is quicker than a pool
STRONG = "best"
# on strong play: best as it is (it calls when even an Assaf lands it on a milestone),
# best without that (every milestone parameter at its default) and best hunting as the
# hunter does (also waits for landings and discards toward them)
STRONG_HUNTER = "best:milestone_wait=0.02,milestone_slack=1"


def untargeted_spec(hunter: str = HUNTER) -> str:
    """``hunter`` with every parameter named ``milestone...`` back at the heuristic default."""
    _, params = FAMILIES[hunter]
    resets = [
        f"{name}={HEURISTIC_PARAMS[name][1]!r}" for name in params if name.startswith("milestone")
    ]
    return canonical_spec(f"{hunter}:" + ",".join(resets))


def landings(rounds: pd.DataFrame, players: int, milestones: dict[int, int]) -> pd.DataFrame:
    """Per game and seat: milestone landings and the points they took off the total.

    A seat lands when a round score above zero brings its running total
    exactly onto a milestone; the landing saves ``milestone - new total``.
    """
    rounds = rounds.sort_values(["game", "round"], kind="stable")
    rows = []
    for s in range(players):
        total = rounds[f"total_{s}"].to_numpy().astype(np.int64)
        score = rounds[f"score_{s}"].to_numpy().astype(np.int64)
        previous = np.where(rounds["round"].to_numpy() == 0, 0, np.roll(total, 1))
        reached = previous + score
        saved = np.zeros(len(rounds), np.int64)
        for old, new in milestones.items():
            saved[(score > 0) & (reached == old)] = old - new
        rows.append(
            pd.DataFrame(
                {"game": rounds["game"].to_numpy(), "seat": s, "landed": saved > 0, "saved": saved}
            )
            .groupby(["game", "seat"], as_index=False)
            .sum()
        )
    return pd.concat(rows, ignore_index=True).astype({"landed": np.int64})


def _per_game_mean(frame: pd.DataFrame, column: str) -> tuple[float, float, float]:
    """Mean per player and game of ``column``: each game's average over the policy's seats."""
    per_game = frame.groupby("game")[column].mean().to_numpy(np.float64)
    mean = float(per_game.mean())
    se = float(per_game.std(ddof=1)) / math.sqrt(len(per_game)) if len(per_game) > 1 else math.inf
    return mean, mean - Z * se, mean + Z * se


def _saved_difference(marks: pd.DataFrame, hunter: int, plain: int):
    """Points saved per game, hunter seats minus the other seats of the same game.

    Both policies sit at every table, so each game gives one paired value;
    the interval is over the games (:func:`yaniv_sim.compare.deal_interval`).
    """
    per = marks.groupby(["game", "policy"])["saved"].mean().unstack()
    both = per[[hunter, plain]].dropna()
    return deal_interval((both[hunter] - both[plain]).to_numpy())


def _pct(estimate, digits: int = 1) -> str:
    v, lo, hi = (100 * x for x in estimate)
    return f"{v:.{digits}f}% ({lo:.{digits}f}–{hi:.{digits}f})"


def _pp(estimate) -> str:
    v, lo, hi = (100 * x for x in estimate)
    return f"{v:+.1f} ({lo:+.1f} to {hi:+.1f})"


def _num(estimate, digits: int = 2) -> str:
    v, lo, hi = estimate
    return f"{v:.{digits}f} ({lo:.{digits}f}–{hi:.{digits}f})"


def build(options: ReportOptions) -> Section:
    plain = untargeted_spec()
    n_deals = options.budget(4000, 300)
    n_games = options.budget(1000, 100)
    players_list = sorted(options.players)
    section = Section(
        "Milestone targeting",
        options.setup(
            policies=f"{HUNTER} against {PLAIN}: the same preset with every milestone "
            f"parameter at its default (`{plain}`)",
            milestones="; ".join(
                f"{name}: " + ", ".join(f"{a}→{b}" for a, b in m.items())
                for name, m in SCHEMES.items()
            )
            + f"; over {options.label}",
            players=", ".join(map(str, players_list)),
            deals=f"{n_deals:,} duplicate deals per table",
            games=f"{n_games:,} games per table with both policies seated alternately",
        ),
    )
    rows = []
    for scheme, milestones in SCHEMES.items():
        rules = options.rules.replace(milestones=milestones)
        for players in players_list:
            options.say(f"milestones: {scheme} at {players} players")
            workers = _workers(options, n_deals, players)
            result = compare([HUNTER, plain], rules, players, n_deals, options.seed, workers)
            hunter_row, pair = result.table.iloc[0], result.pairs.iloc[0]
            seats = [HUNTER if s % 2 == 0 else plain for s in range(players)]
            data = options.games(players, seats, n_games, rules=rules)
            ids = {spec: i for i, spec in data.policy_names().items()}
            marks = landings(data.rounds, players, milestones)
            policy_of = data.games.melt(
                id_vars="game",
                value_vars=[f"policy_{s}" for s in range(players)],
                var_name="seat",
                value_name="policy",
            )
            policy_of["seat"] = policy_of["seat"].str.removeprefix("policy_").astype(np.int64)
            marks = marks.merge(policy_of, on=["game", "seat"], validate="one_to_one")
            row = {
                "scheme": scheme,
                "players": players,
                "deals": result.games,
                "win": (hunter_row.win_rate, hunter_row.win_low, hunter_row.win_high),
                "diff": (pair.difference, pair.low, pair.high),
                "p": pair.p_value,
                "games": len(data.games),
            }
            for key, spec in (("hunter", HUNTER), ("plain", plain)):
                mine = marks[marks["policy"] == ids[spec]]
                row[f"{key}_seats"] = len(mine)
                row[f"{key}_landed"] = _per_game_mean(mine, "landed")
                row[f"{key}_saved"] = _per_game_mean(mine, "saved")
            row["saved_diff"] = _saved_difference(marks, ids[HUNTER], ids[plain])
            rows.append(row)
    section.data["rows"] = _frame(rows)
    strong = _strong_rows(options, players_list)
    section.data["strong"] = strong

    section.text(_takeaway(rows))
    section.table(
        _table(rows),
        f"Win share of {HUNTER} against the {PLAIN} in duplicate format ({n_deals:,} deals "
        "per row, each played in every seating; fair share 50%) and the difference of the "
        "two win shares, both with 95% intervals over the deals (paired: each deal's share "
        "averaged over its seatings). Landings and points saved: per player and game in "
        f"{n_games:,} games per row with both policies seated alternately (the seating "
        "turned each game); mean with 95% interval over the games; the extra points saved "
        "compare the two policies within each game (paired). Rules: "
        f"{options.label} with the milestones shown.",
    )
    section.figure(
        _figure(rows),
        "milestones-targeting",
        f"Left: how much more often {HUNTER} wins than the {PLAIN} ({n_deals:,} duplicate "
        f"deals per point). Right: how many more points milestones take off a hunter's total "
        f"per game than off the other players' at the same table ({n_games:,} games per "
        f"point). Rules: {options.label} with each milestone scheme; error bars are 95% "
        "paired intervals.",
    )
    n_strong = int(strong["deals"].iloc[0]) if len(strong) else 0
    section.text(
        f"**On strong play.** `{HUNTER}` ranks low in the league; the same question asked of "
        f"`{STRONG}`, the strongest preset: `{STRONG}` as it is (it calls when even an Assaf "
        f"would land it on a milestone) against `{STRONG}` without that "
        f"(`{untargeted_spec(STRONG)}`), "
        f"and `{STRONG}` hunting like `{HUNTER}` (`{STRONG_HUNTER}`: it also waits for "
        f"landings and discards toward them) against `{STRONG}`. A win-share difference is "
        "already a price in game-win chance; the player's page gives what one landing is "
        "worth from the equity tables. " + _strong_takeaway(strong)
    )  # fmt: skip
    section.table(_strong_table(strong), f"`{STRONG}`'s milestone play in duplicate format "
                  f"({n_strong:,} deals per row, each in every seating): the first policy's "
                  "win share less the second's in percentage points, paired 95% interval "
                  f"over the deals. Rules: {options.label} with the milestones shown.")  # fmt: skip
    return section


def _workers(options: ReportOptions, n_deals: int, players: int) -> int | None:
    """One process for a small two-policy duplicate run, else the report's workers."""
    replays = len(seatings(players, 2))
    return 1 if n_deals * replays < SMALL_RUN else options.workers


def _strong_rows(options: ReportOptions, players_list: list[int]) -> pd.DataFrame:
    """Duplicate matches of best's milestone play, per scheme and table size."""
    n_deals = options.budget(2000, 200)
    pairs = (("targeting", STRONG, untargeted_spec(STRONG)), ("hunting", STRONG_HUNTER, STRONG))
    rows = []
    for scheme, milestones in SCHEMES.items():
        rules = options.rules.replace(milestones=milestones)
        for players in players_list:
            options.say(f"milestones on strong play: {scheme} at {players} players")
            workers = _workers(options, n_deals, players)
            for name, first, second in pairs:
                result = compare([first, second], rules, players, n_deals, options.seed,
                                 workers)  # fmt: skip
                pair = result.pairs.iloc[0]
                rows.append({"scheme": scheme, "players": players, "pair": name,
                             "first": first, "second": second, "deals": result.games,
                             "diff": pair.difference, "diff_low": pair.low,
                             "diff_high": pair.high})  # fmt: skip
    return pd.DataFrame(rows)


def _strong_table(strong: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (scheme, players), part in strong.groupby(["scheme", "players"], sort=False):
        row = {"milestones": scheme, "players": players}
        for r in part.itertuples():
            label = ("best less best without targeting" if r.pair == "targeting"
                     else "best hunting less best")  # fmt: skip
            row[f"{label} (95%)"] = _pp((r.diff, r.diff_low, r.diff_high))
        out.append(row)
    return pd.DataFrame(out)


def _strong_takeaway(strong: pd.DataFrame) -> str:
    parts = []
    for name, words in (("targeting", "calling onto a milestone"),
                        ("hunting", "hunting milestones harder")):  # fmt: skip
        part = strong[strong["pair"] == name]
        up = part[part["diff_low"] > 0]
        down = part[part["diff_high"] < 0]
        if len(up) or len(down):
            said = []
            if len(up):
                said.append("helps at " + ", ".join(f"{r.players} players ({r.scheme})"
                                                    for r in up.itertuples()))  # fmt: skip
            if len(down):
                said.append("costs at " + ", ".join(f"{r.players} players ({r.scheme})"
                                                    for r in down.itertuples()))  # fmt: skip
            parts.append(f"For `{STRONG}`, {words} " + "; ".join(said) + ".")
        else:
            parts.append(f"For `{STRONG}`, {words} makes no difference we can tell from "
                         "chance at any table size here.")  # fmt: skip
    return " ".join(parts)


def _table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "milestones": [r["scheme"] for r in rows],
            "players": [r["players"] for r in rows],
            "deals": [f"{r['deals']:,}" for r in rows],
            f"{HUNTER} wins (95%)": [_pct(r["win"]) for r in rows],
            "win-share difference, percentage points (95%)": [_pp(r["diff"]) for r in rows],
            "games": [f"{r['games']:,}" for r in rows],
            "landings per game, hunter (95%)": [_num(r["hunter_landed"]) for r in rows],
            "landings per game, without (95%)": [_num(r["plain_landed"]) for r in rows],
            "points saved per game, hunter (95%)": [_num(r["hunter_saved"], 1) for r in rows],
            "points saved per game, without (95%)": [_num(r["plain_saved"], 1) for r in rows],
            "extra points saved by the hunter per game (95%, paired)": [
                _signed(r["saved_diff"]) for r in rows
            ],
        }
    )


def _signed(estimate) -> str:
    v, lo, hi = estimate
    return f"{v:+.1f} ({lo:+.1f} to {hi:+.1f})"


def _frame(rows: list[dict]) -> pd.DataFrame:
    """The section's results, one row per scheme and table size, numbers unformatted."""
    out = []
    for r in rows:
        flat = {k: v for k, v in r.items() if not isinstance(v, tuple)}
        for key, value in r.items():
            if isinstance(value, tuple):
                flat[key], flat[f"{key}_low"], flat[f"{key}_high"] = value
        out.append(flat)
    return pd.DataFrame(out)


def _figure(rows: list[dict]):
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    for i, scheme in enumerate(schemes):
        mine = [r for r in rows if r["scheme"] == scheme]
        x = np.array([r["players"] for r in mine]) + (i - (len(schemes) - 1) / 2) * 0.08
        d = np.array([r["diff"] for r in mine]) * 100
        left.errorbar(
            x,
            d[:, 0],
            yerr=[d[:, 0] - d[:, 1], d[:, 2] - d[:, 0]],
            marker="o",
            capsize=3,
            label=f"milestones {scheme}",
        )
        s = np.array([r["saved_diff"] for r in mine])
        right.errorbar(
            x,
            s[:, 0],
            yerr=[s[:, 0] - s[:, 1], s[:, 2] - s[:, 0]],
            marker="o",
            capsize=3,
            color=f"C{i}",
            label=f"milestones {scheme}",
        )
    left.axhline(0, color="grey", lw=0.8, ls=":")
    left.set_xlabel("players at the table")
    left.set_ylabel("win-share difference (percentage points)")
    left.set_title(f"What aiming at milestones gains\n({HUNTER} minus the same without)")
    right.set_xlabel("players at the table")
    right.axhline(0, color="grey", lw=0.8, ls=":")
    right.set_ylabel("extra points saved per game\n(hunter minus the others)")
    right.set_title("Points milestones take off a hunter's total\nbeyond the other players'")
    players = sorted({r["players"] for r in rows})
    for ax in (left, right):
        ax.set_xticks(players)
        ax.grid(alpha=0.3)
    # one legend for both panels, below them, clear of the data
    handles, labels = left.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def _players(counts: list[int]) -> str:
    words = [str(c) for c in counts]
    text = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"{text} players"


def _takeaway(rows: list[dict]) -> str:
    lines = []
    for scheme in dict.fromkeys(r["scheme"] for r in rows):
        mine = [r for r in rows if r["scheme"] == scheme]
        helps = [r["players"] for r in mine if r["diff"][1] > 0]
        hurts = [r["players"] for r in mine if r["diff"][2] < 0]
        top = max(mine, key=lambda r: abs(r["diff"][0]))
        if helps or hurts:
            parts = []
            if helps:
                parts.append(f"wins more often, beyond chance, at {_players(helps)}")
            if hurts:
                parts.append(f"wins less often, beyond chance, at {_players(hurts)}")
            verdict = "a player aiming at milestones " + " and ".join(parts)
        else:
            verdict = (
                "aiming at milestones makes no difference we can separate from chance at any "
                "table size"
            )
        hunter_landed = np.mean([r["hunter_landed"][0] for r in mine])
        plain_landed = np.mean([r["plain_landed"][0] for r in mine])
        hunter_saved = np.mean([r["hunter_saved"][0] for r in mine])
        plain_saved = np.mean([r["plain_saved"][0] for r in mine])
        lines.append(
            f"With milestones at **{scheme}**, {verdict}; the largest change is "
            f"{100 * top['diff'][0]:+.1f} percentage points of win share, at {top['players']} "
            "players. "
            f"A hunter lands on a milestone {hunter_landed:.2f} times a game on average "
            f"against {plain_landed:.2f} without targeting, taking {hunter_saved:.1f} points "
            f"off its total against {plain_saved:.1f}."
        )
    return " ".join(lines)
