"""Section: how the house rules change the game.

For thresholds 3 to 11 and for the named variants, self-play games of the
report's policy give the pace of the game (turns per round, rounds per game,
the spread of game lengths), the Assaf rate and the first-seat advantage; a
duplicate comparison of ``best`` against ``max-shed`` measures how much skill
matters. ``best``'s Assaf-risk limit (``max_risk``) is tuned per rule set
against ``max-shed`` on a few separate deals; when another value comes out on
top, it plays the skill deals too, and the table shows both results and
whether the tuned one is clearly better.

The table seats 4 players, or the most the report asks for when that is fewer.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from yaniv_sim.compare import compare, deal_interval
from yaniv_sim.engine.specs import FAMILIES
from yaniv_sim.report.context import ReportOptions
from yaniv_sim.report.document import Section
from yaniv_sim.rules import VARIANT_MEANINGS, VARIANTS, Rules
from yaniv_sim.stats import wilson_interval
from yaniv_sim.tune import tune

__all__ = ["TUNE_VALUES", "build", "rule_sets", "self_play_stats", "table_players", "workers_for"]

Z = 1.959963984540054  # two-sided 95%
THRESHOLDS = range(3, 12)
VARIANT_NAMES = ("nordic", "no-assaf", "slapdown", "double-joker", "milestone-theft")
SKILLED, BASELINE = "best", "max-shed"
TUNE_PARAM = "max_risk"
TUNE_DEFAULT = FAMILIES[SKILLED][1][TUNE_PARAM][1]
SMALL_RUN = 4000  # games below which one process is quicker than a pool
TUNE_VALUES = tuple(sorted({0.05, TUNE_DEFAULT, 0.25, 0.5}))


def table_players(options: ReportOptions) -> int:
    """Seats at the table: 4, or the largest player count asked for when that is smaller."""
    return min(4, max(options.players))


def workers_for(options: ReportOptions, games: int) -> int | None:
    """Worker processes for a run of ``games`` games: one when starting a pool costs more."""
    return 1 if games < SMALL_RUN else options.workers


def rule_sets(base: Rules) -> list[tuple[str, Rules]]:
    """(label, rules) for every threshold and variant of this section, in report order."""
    sets = [
        (f"threshold {t}" + (" (base)" if t == base.threshold else ""), base.replace(threshold=t))
        for t in THRESHOLDS
    ]
    for name in VARIANT_NAMES:
        rules = Rules.preset("nordic") if name == "nordic" else base.replace(**VARIANTS[name])
        sets.append((name, rules))
    return sets


# -- statistics ------------------------------------------------------------------------


def _mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    mean = float(values.mean())
    se = float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return mean, mean - Z * se, mean + Z * se


def _ratio_interval(num: np.ndarray, den: np.ndarray) -> tuple[float, float, float]:
    """sum(num) / sum(den) with a 95% interval that treats each game as one cluster."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    n = len(num)
    ratio = num.sum() / den.sum()
    resid = num - ratio * den
    se = math.sqrt(n / (n - 1) * (resid**2).sum()) / den.sum() if n > 1 else math.inf
    return float(ratio), float(ratio - Z * se), float(ratio + Z * se)


def _median_interval(values: np.ndarray) -> tuple[float, float, float]:
    """The median with a distribution-free 95% interval from order statistics."""
    x = np.sort(np.asarray(values))
    n = len(x)
    lo = max(0, math.floor(n / 2 - Z * math.sqrt(n) / 2))
    hi = min(n - 1, math.ceil(n / 2 + Z * math.sqrt(n) / 2))
    return float(np.median(x)), float(x[lo]), float(x[hi])


def self_play_stats(rounds: pd.DataFrame, games: pd.DataFrame, players: int) -> dict:
    """Pace, Assaf rate and first-seat advantage of one games dataset (self-play)."""
    outcome = rounds["outcome"].astype(str)
    marks = pd.DataFrame({"game": rounds["game"].to_numpy(), "turns": rounds["turns"].to_numpy(),
                          "call": outcome.isin(["yaniv", "assaf"]).to_numpy(),
                          "assaf": (outcome == "assaf").to_numpy(),
                          "standoff": outcome.isin(["void", "stock_out"]).to_numpy()})  # fmt: skip
    per_game = marks.groupby("game").agg(turns=("turns", "sum"), rounds=("turns", "size"),
                                         calls=("call", "sum"), assafs=("assaf", "sum"),
                                         standoffs=("standoff", "sum"))  # fmt: skip
    turns = _ratio_interval(per_game["turns"].to_numpy(), per_game["rounds"].to_numpy())
    length = games["rounds"].to_numpy()
    calls = int(per_game["calls"].sum())
    assafs = int(per_game["assafs"].sum())
    # the calls of one game are not independent: the interval treats each game as a cluster
    if calls:
        _, assaf_low, assaf_high = _ratio_interval(per_game["assafs"].to_numpy(),
                                                   per_game["calls"].to_numpy())  # fmt: skip
        assaf_low, assaf_high = max(assaf_low, 0.0), min(assaf_high, 1.0)
    else:
        assaf_low, assaf_high = wilson_interval(0, 0)
    standoffs = _ratio_interval(per_game["standoffs"].to_numpy(), per_game["rounds"].to_numpy())
    first = int((games["winner"] == 0).sum())
    n = len(games)
    first_low, first_high = wilson_interval(first, n)
    return {
        "games": n,
        "rounds": len(rounds),
        "turns": turns,
        "length": _mean_interval(length),
        "median": _median_interval(length),
        "percentiles": np.percentile(length, [10, 25, 75, 90]),
        "calls": calls,
        "assafs": assafs,
        "assaf": (assafs / calls if calls else 0.0, assaf_low, assaf_high),
        "standoffs": (standoffs[0], max(standoffs[1], 0.0), standoffs[2]),
        "first_wins": first,
        "first": (first / n, first_low, first_high),
        "fair": 1 / players,
    }


# -- the verdict --------------------------------------------------------------------------

CRITERIA = (
    "**how much skill decides** (the primary criterion: `best`'s win share against "
    "`max-shed` in duplicate games, with `best` retuned for the rule set where that was "
    "clearly better), **fairness** (the seat that starts the game should not win clearly "
    "more than its share) and **stand-offs** (rounds that end with nobody calling: void "
    "after the turn limit, or the stock running out, should stay rare)"
)
STANDOFF_MARGIN = 0.01  # more stand-offs than the base by this share of rounds: worse


def meaning(label: str, rules: Rules) -> str:
    """One line saying what a rule set of :func:`rule_sets` is."""
    if label.startswith("threshold"):
        base = " (the report's rules)" if label.endswith("(base)") else ""
        return f"a call needs a hand of {rules.threshold} or less{base}"
    if label == "nordic":
        return "the Norwegian rules: the `nordic` preset (docs/rules.md)"
    return VARIANT_MEANINGS[label]


def verdicts(rows: list[dict]) -> pd.DataFrame:
    """Each rule set against the base (the report's own rules) by the section's criteria.

    ``skill_diff``: the rule set's skill share (tuned where tuning was
    clearly better) less the base's, with a 95% interval treating the two
    as independent samples (other rules deal other cards), and ``p_more``,
    ``p_less`` its one-sided p-values, Holm-corrected over the rule sets;
    ``first_ahead``: the first seat's Wilson interval is above the fair
    share; ``standoffs`` the share of rounds. The verdict: **better** with
    clearly more skill, fairness no worse than the base's and no more than
    1 point more stand-offs; **worse** with clearly less skill, or a first
    seat clearly ahead where the base's is not, or that many more
    stand-offs; else **no clear difference**.
    """
    base = next(r for r in rows if r["label"].endswith("(base)"))

    def skill(r):
        return r["tuned"] if r.get("tuned") is not None and r.get("tuned_better") else r["skill"]

    def se(est):
        return (est[2] - est[1]) / (2 * Z)

    out = []
    b = skill(base)
    for r in rows:
        if r is base:
            continue
        k = skill(r)
        d = k[0] - b[0]
        s_d = math.hypot(se(k), se(b))
        z = d / s_d if s_d > 0 else 0.0
        out.append({"rule set": r["label"], "meaning": meaning(r["label"], r["rules"]),
                    "skill": k[0], "skill_diff": d, "skill_diff_low": d - Z * s_d,
                    "skill_diff_high": d + Z * s_d, "p_more": float(stats.norm.sf(z)),
                    "p_less": float(stats.norm.cdf(z)),
                    "first_ahead": bool(r["first"][1] > r["fair"]),
                    "standoffs": r["standoffs"][0]})  # fmt: skip
    table = pd.DataFrame(out)
    for column in ("p_more", "p_less"):
        table[column] = _holm(table[column].to_numpy())
    base_ahead = bool(base["first"][1] > base["fair"])
    more_standoffs = table["standoffs"] > base["standoffs"][0] + STANDOFF_MARGIN
    more = table["p_more"] < 0.05
    less = table["p_less"] < 0.05
    unfair = table["first_ahead"] & ~base_ahead
    better = more & ~unfair & ~more_standoffs
    worse = less | unfair | more_standoffs
    table["verdict"] = np.where(better, "better", np.where(worse, "worse", "no clear difference"))
    return table


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error rate)."""
    m = len(p)
    order = np.argsort(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adjusted[i] = min(running, 1.0)
    return adjusted


def _verdict_table(table: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "rule set": table["rule set"],
        "what it is": table["meaning"],
        "skill vs the base, points (95%)": [
            f"{100 * d:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"
            for d, lo, hi in zip(table["skill_diff"], table["skill_diff_low"],
                                 table["skill_diff_high"], strict=True)],
        "first seat ahead": ["yes" if a else "no" for a in table["first_ahead"]],
        "stand-offs": [f"{100 * v:.1f}%" for v in table["standoffs"]],
        "verdict": table["verdict"],
    })  # fmt: skip


def _verdict_sentence(table: pd.DataFrame, base_label: str) -> str:
    better = table.loc[table["verdict"] == "better", "rule set"].tolist()
    worse = table.loc[table["verdict"] == "worse", "rule set"].tolist()
    parts = []
    if better:
        parts.append("a **better game** than the base (" + base_label + ") under "
                     + ", ".join(better))  # fmt: skip
    if worse:
        parts.append("a **worse** one under " + ", ".join(worse))
    if not parts:
        return (f"**Verdict.** By these criteria no rule set is clearly a better or a worse "
                f"game than the base ({base_label}) at this sample size.")  # fmt: skip
    rest = len(table) - len(better) - len(worse)
    return ("**Verdict.** By these criteria, " + "; ".join(parts)
            + f"; no clear difference under the other {rest}.")  # fmt: skip


# -- formatting -------------------------------------------------------------------------


def _pct(estimate: tuple[float, float, float], digits: int = 1) -> str:
    v, lo, hi = (100 * x for x in estimate)
    return f"{v:.{digits}f}% ({lo:.{digits}f}–{hi:.{digits}f})"


def _num(estimate: tuple[float, float, float], digits: int = 1) -> str:
    v, lo, hi = estimate
    return f"{v:.{digits}f} ({lo:.{digits}f}–{hi:.{digits}f})"


def _pp(estimate: tuple[float, float, float]) -> str:
    v, lo, hi = (100 * x for x in estimate)
    return f"{v:+.1f} ({lo:+.1f} to {hi:+.1f})"


# -- the section ------------------------------------------------------------------------


def _skill(result) -> tuple[float, float, float]:
    row = result.table.iloc[0]
    return float(row.win_rate), float(row.win_low), float(row.win_high)


def build(options: ReportOptions) -> Section:
    players = table_players(options)
    n_games = options.budget(2000, 200)
    n_deals = options.budget(1000, 100)
    n_tune = options.budget(250, 30)
    sets = rule_sets(options.rules)
    section = Section(
        "Rule variants",
        options.setup(
            variations=f"thresholds {THRESHOLDS.start}-{THRESHOLDS.stop - 1} and the variants "
            + ", ".join(VARIANT_NAMES)
            + f" over {options.label} (nordic: the nordic preset)",
            players=str(players),
            games=f"{n_games:,} self-play games of {options.policy} per rule set",
            skill=f"{SKILLED} vs {BASELINE}, {n_deals:,} duplicate deals per rule set",
            tuning=f"{SKILLED}'s {TUNE_PARAM} over "
            + ", ".join(f"{v:g}" for v in TUNE_VALUES)
            + f" against {BASELINE}, {n_tune:,} deals per value (seed {options.seed + 1}); "
            f"a picked value other than {TUNE_DEFAULT:g} is played on the skill deals",
        ),
    )
    rows = []
    for i, (label, rules) in enumerate(sets, 1):
        options.say(f"variants: {label} ({i} of {len(sets)})")
        data = options.games(players, options.policy, n_games, rules=rules)
        stats = self_play_stats(data.rounds, data.games, players)
        skill = compare(
            [SKILLED, BASELINE],
            rules,
            players,
            n_deals,
            options.seed,
            workers_for(options, n_deals * players),
        )
        row = {"label": label, "rules": rules, **stats, "skill": _skill(skill)}
        row.update(_tuned(options, rules, players, n_deals, n_tune, skill))
        rows.append(row)
    section.data["rows"] = _frame(rows)
    judged = verdicts(rows)
    section.data["verdicts"] = judged
    base_label = next(r["label"] for r in rows if r["label"].endswith("(base)"))
    base_label = base_label.removesuffix(" (base)")

    section.text(
        "Which house rules make the better game? The criteria: " + CRITERIA + ". Each rule "
        f"set is judged against the base ({base_label}): **better** with clearly more skill "
        "(Holm-corrected over the rule sets, 5%), a first seat no more favoured than the "
        f"base's and at most {100 * STANDOFF_MARGIN:.0f} point more stand-offs; **worse** "
        "with clearly less skill, a first seat clearly ahead where the base's is not, or "
        "more stand-offs than that; else no clear difference. Game length and the Assaf "
        "rate are given as they are: whether a longer game or more Assafs is better is a "
        "matter of taste."
    )
    section.text(_verdict_sentence(judged, base_label))
    section.table(_verdict_table(judged), f"Each rule set against the base ({base_label}) at "
                  f"{players} players: {SKILLED}'s win share against {BASELINE} less the "
                  "base's, in points (95% interval, independent samples), whether the first "
                  "seat wins clearly more than its share, the share of rounds that were "
                  "stand-offs, and the verdict.")  # fmt: skip
    section.text(_takeaway(rows, players))
    section.table(
        _pace_table(rows),
        f"Self-play of `{options.policy}` at {players} players, {n_games:,} games per rule set "
        f"(seed {options.seed}). Rounds per game and turns per round: mean with 95% interval "
        "(turns per round counted with each game as one sample); median game: "
        "distribution-free 95% interval; Assaf per call and stand-offs (rounds void or ended "
        "by an empty stock): 95% intervals with each game as one cluster; first seat: Wilson "
        "95% interval over the games.",
    )
    section.table(
        _skill_table(rows, n_deals, n_tune),
        f"`{SKILLED}` against `{BASELINE}` at {players} players in duplicate format "
        f"({n_deals:,} deals per rule set, each played in all {players} seatings; fair share "
        "50%; 95% intervals over the deals, paired: each deal's share averaged over its "
        f"seatings). Tuning: win share of each `{TUNE_PARAM}` value against `{BASELINE}` on "
        f"{n_tune:,} other deals (seed {options.seed + 1}); when the best of them is not "
        f"`{SKILLED}`'s own ({TUNE_DEFAULT:g}), it plays the same {n_deals:,} skill deals, and "
        "the change in win share gets a 95% interval paired over those deals; 'clearly "
        "better' means that interval is above 0.",
    )
    caption_tail = (
        f"{players} players; {n_games:,} self-play games of `{options.policy}` per rule set; "
        f"variations over {options.label}; error bars are 95% intervals."
    )
    section.figure(
        _threshold_figure(rows, options.rules.threshold),
        "variants-thresholds",
        f"Pace and Assaf rate by calling threshold. {caption_tail}",
    )
    section.figure(
        _length_figure(rows),
        "variants-game-length",
        "Game length by rule set: bars span the middle 50% and 80% of games, the dot is "
        f"the median with its 95% interval. {caption_tail}",
    )
    section.figure(
        _skill_figure(rows, players),
        "variants-skill-first-seat",
        f"Left: `{SKILLED}`'s win share against `{BASELINE}` ({n_deals:,} duplicate deals "
        f"per rule set, paired 95% intervals; open marks: with the {TUNE_PARAM} value "
        "picked by tuning, where it "
        f"differs from {SKILLED}'s own; diamonds: where that is clearly better). "
        "Right: how much more often the seat that starts the game wins than its fair share "
        f"({n_games:,} self-play games of `{options.policy}` per rule set). {players} players; "
        f"variations over {options.label}; error bars are 95% intervals.",
    )
    return section


def _tuned(options, rules: Rules, players: int, n_deals: int, n_tune: int, preset) -> dict:
    """Tune the risk limit on separate deals, then play the chosen value on the skill deals.

    The value is chosen on seed + 1, so the skill deals (the report's seed)
    judge it without the luck that picked it. It clearly changes the answer
    when its win share beats the preset's (``preset``, the comparison on the
    same deals) by more than the 95% interval paired over the deals.
    """
    if not rules.assaf:
        return {
            "tuning": "not tuned: without Assaf the policy always calls, whatever its risk limit",
            "tuned": None,
        }
    result = tune(
        SKILLED,
        TUNE_PARAM,
        list(TUNE_VALUES),
        against=[BASELINE],
        rules=rules,
        players=players,
        games=n_tune,
        seed=options.seed + 1,
        workers=workers_for(options, n_tune * players),
    )
    best = result.best
    curve = ", ".join(
        f"{r.value:g}: {100 * r.win_rate:.0f}% ({100 * r.win_low:.0f}–{100 * r.win_high:.0f})"
        for r in result.curve.itertuples()
    )
    if best["value"] == TUNE_DEFAULT:
        return {"tuning": f"{curve}; {SKILLED}'s own value is best", "tuned": None}
    again = compare(
        [best["spec"], BASELINE],
        rules,
        players,
        n_deals,
        options.seed,
        workers_for(options, n_deals * players),
    )
    tuned = _skill(again)
    # the same deals (seed and count) in both runs: pair them deal by deal
    diff = deal_interval(again.deal_wins[:, 0] - preset.deal_wins[:, 0])
    return {
        "tuning": f"{curve}; picked {best['value']:g}",
        "tuned": tuned,
        "tuned_value": float(best["value"]),
        "tuned_diff": diff,
        "tuned_better": diff[1] > 0,
    }


def _frame(rows: list[dict]) -> pd.DataFrame:
    """The section's results, one row per rule set, numbers unformatted."""
    out = []
    for r in rows:
        flat = {"rule set": r["label"], "threshold": r["rules"].threshold}
        for key, value in r.items():
            if key in ("label", "rules", "percentiles", "tuning"):
                continue
            if isinstance(value, tuple):
                flat[key], flat[f"{key}_low"], flat[f"{key}_high"] = value
            elif value is not None:
                flat[key] = value
        out.append(flat)
    return pd.DataFrame(out)


def _pace_table(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rule set": [r["label"] for r in rows],
            "games": [f"{r['games']:,}" for r in rows],
            "rounds": [f"{r['rounds']:,}" for r in rows],
            "turns per round (95%)": [_num(r["turns"]) for r in rows],
            "rounds per game (95%)": [_num(r["length"]) for r in rows],
            "median game, rounds (95%)": [_num(r["median"], 0) for r in rows],
            "calls": [f"{r['calls']:,}" for r in rows],
            "Assaf per call (95%)": [_pct(r["assaf"]) for r in rows],
            "stand-offs (95%)": [_pct(r["standoffs"]) for r in rows],
            "first seat wins (95%)": [_pct(r["first"]) for r in rows],
            "fair share": [f"{100 * r['fair']:.1f}%" for r in rows],
        }
    )


def _skill_table(rows: list[dict], n_deals: int, n_tune: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "rule set": [r["label"] for r in rows],
            "deals": [f"{n_deals:,}" for _ in rows],
            f"{SKILLED} wins vs {BASELINE} (95%)": [_pct(r["skill"]) for r in rows],
            f"{TUNE_PARAM} tuning ({n_tune:,} deals per value)": [r["tuning"] for r in rows],
            "with the picked value (95%); change (95%)": [_tuned_cell(r) for r in rows],
        }
    )


def _tuned_cell(row: dict) -> str:
    if row["tuned"] is None:
        return "same as the preset"
    verdict = "clearly better" if row["tuned_better"] else "not clearly better"
    return (
        f"{TUNE_PARAM}={row['tuned_value']:g}: {_pct(row['tuned'])}; "
        f"{_pp(row['tuned_diff'])} pp, {verdict}"
    )


def _errorbar(ax, x, estimates, **kwargs):
    est = np.asarray(estimates, dtype=np.float64)
    ax.errorbar(
        x, est[:, 0], yerr=[est[:, 0] - est[:, 1], est[:, 2] - est[:, 0]], capsize=3, **kwargs
    )


def _threshold_figure(rows: list[dict], base: int):
    series = [r for r in rows if r["label"].startswith("threshold")]
    x = [r["rules"].threshold for r in series]
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.5))
    panels = [
        ("turns", 1, "turns per round", "Turns per round"),
        ("length", 1, "rounds per game", "Rounds per game"),
        ("assaf", 100, "Assaf rate (% of calls)", "Assaf rate per call"),
    ]
    for ax, (key, scale, ylabel, title) in zip(axes, panels, strict=True):
        _errorbar(ax, x, [[scale * v for v in r[key]] for r in series], marker="o")
        ax.axvline(base, color="grey", lw=0.8, ls=":")
        ax.set_xlabel("calling threshold (hand points)")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.set_xticks(x)
        ax.grid(alpha=0.3)
    fig.suptitle("How the calling threshold changes the game (dotted line: base rules)")
    fig.tight_layout()
    return fig


def _length_figure(rows: list[dict]):
    fig, ax = plt.subplots(figsize=(8, 0.38 * len(rows) + 1.2))
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows, strict=True):
        p10, p25, p75, p90 = r["percentiles"]
        ax.plot([p10, p90], [yi, yi], color="tab:blue", lw=2, alpha=0.4)
        ax.plot([p25, p75], [yi, yi], color="tab:blue", lw=7, alpha=0.6)
    med = np.array([r["median"] for r in rows])
    ax.errorbar(
        med[:, 0],
        y,
        xerr=[med[:, 0] - med[:, 1], med[:, 2] - med[:, 0]],
        fmt="o",
        color="black",
        capsize=3,
        label="median (95% interval)",
    )
    ax.set_yticks(y)
    ax.set_yticklabels([r["label"] for r in rows])
    ax.set_xlabel("game length (rounds per game)")
    ax.set_title("How long a game lasts under each rule set")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    return fig


def _skill_figure(rows: list[dict], players: int):
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 0.38 * len(rows) + 1.6), sharey=True)
    y = np.arange(len(rows))[::-1]
    skill = np.array([r["skill"] for r in rows]) * 100
    left.errorbar(
        skill[:, 0],
        y,
        xerr=[skill[:, 0] - skill[:, 1], skill[:, 2] - skill[:, 0]],
        fmt="o",
        capsize=3,
        label=f"{SKILLED} as preset",
    )
    for better, marker, fill, text in (
        (False, "o", "white", f"picked {TUNE_PARAM}, not clearly better"),
        (True, "D", "tab:orange", f"picked {TUNE_PARAM}, clearly better"),
    ):
        tuned = [
            (yi, r)
            for yi, r in zip(y, rows, strict=True)
            if r["tuned"] is not None and r["tuned_better"] == better
        ]
        if tuned:
            t = np.array([r["tuned"] for _, r in tuned]) * 100
            left.errorbar(
                t[:, 0],
                [yi - 0.25 for yi, _ in tuned],
                xerr=[t[:, 0] - t[:, 1], t[:, 2] - t[:, 0]],
                fmt=marker,
                mfc=fill,
                color="tab:orange",
                capsize=3,
                label=text,
            )
    left.axvline(50, color="grey", lw=0.8, ls=":")
    left.set_xlabel(f"{SKILLED}'s win share against {BASELINE} (%)")
    left.set_title("How much skill matters")
    left.legend(loc="lower left", fontsize="small")
    first = np.array([[v - r["fair"] for v in r["first"]] for r in rows]) * 100
    right.errorbar(
        first[:, 0],
        y,
        xerr=[first[:, 0] - first[:, 1], first[:, 2] - first[:, 0]],
        fmt="s",
        color="tab:red",
        capsize=3,
    )
    right.axvline(0, color="grey", lw=0.8, ls=":")
    right.set_xlabel(
        f"first seat's win rate minus fair share {100 / players:.0f}% (percentage points)"
    )
    right.set_title("First-seat advantage")
    for ax in (left, right):
        ax.grid(axis="x", alpha=0.3)
    left.set_yticks(y)
    left.set_yticklabels([r["label"] for r in rows])
    fig.tight_layout()
    return fig


def _takeaway(rows: list[dict], players: int) -> str:
    by_length = sorted(rows, key=lambda r: r["length"][0])
    fast, slow = by_length[0], by_length[-1]
    thresholds = [r for r in rows if r["label"].startswith("threshold")]
    low_t, high_t = thresholds[0], thresholds[-1]
    lines = [
        f"At {players} players the quickest games are under **{fast['label']}** "
        f"({fast['length'][0]:.1f} rounds on average) and the longest under "
        f"**{slow['label']}** ({slow['length'][0]:.1f} rounds). Raising the threshold from "
        f"{low_t['rules'].threshold} to {high_t['rules'].threshold} takes a round from "
        f"{low_t['turns'][0]:.1f} to {high_t['turns'][0]:.1f} turns and the Assaf rate from "
        f"{100 * low_t['assaf'][0]:.1f}% to {100 * high_t['assaf'][0]:.1f}% of calls."
    ]
    ahead = [r["label"] for r in rows if r["first"][1] > r["fair"]]
    behind = [r["label"] for r in rows if r["first"][2] < r["fair"]]
    if ahead or behind:
        parts = []
        if ahead:
            parts.append(
                "the player who starts the game wins more than their share under "
                + ", ".join(ahead)
            )
        if behind:
            parts.append("less than their share under " + ", ".join(behind))
        found = len(ahead) + len(behind)
        caution = (
            f" With {len(rows)} rule sets tested, about {len(rows) / 20:.1f} such results are "
            "expected by chance alone, so treat this as a hint rather than proof."
            if found <= 2 * len(rows) / 20
            else ""
        )
        lines.append("Going first matters: " + "; ".join(parts) + "." + caution)
    else:
        lines.append(
            "Going first makes no difference we can tell apart from chance under any of "
            "these rule sets."
        )
    by_skill = sorted(rows, key=lambda r: r["skill"][0])
    lines.append(
        f"Skill counts most under **{by_skill[-1]['label']}** ({SKILLED} wins "
        f"{100 * by_skill[-1]['skill'][0]:.1f}% against {BASELINE}) and least under "
        f"**{by_skill[0]['label']}** ({100 * by_skill[0]['skill'][0]:.1f}%)."
    )
    tried = [r for r in rows if r["tuned"] is not None]
    changed = [r for r in tried if r["tuned_better"]]
    if changed:
        lines.append(
            f"Retuning {SKILLED}'s risk limit clearly helped under "
            + ", ".join(
                f"{r['label']} ({TUNE_PARAM}={r['tuned_value']:g}: "
                f"{100 * r['tuned_diff'][0]:+.1f} percentage points)"
                for r in changed
            )
            + "; the table shows both results."
        )
    else:
        lines.append(
            f"Retuning {SKILLED}'s risk limit for each rule set picked another value under "
            f"{len(tried)} of them, but none was clearly better than its own on fresh deals, "
            "so the preset's numbers stand."
        )
    return " ".join(lines)
