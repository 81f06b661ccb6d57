"""The ``yaniv-sim`` command line: a thin layer over the library.

Every command builds library objects and calls library functions; anything
it does, a notebook can do with one import. User errors print one line
(``Error: ...``) and exit with a non-zero status, never a traceback.
"""

from __future__ import annotations

import functools
import json
import os
import re
import signal
import sys
import tomllib
from pathlib import Path

import click

from yaniv_sim import __version__
from yaniv_sim.datafiles import is_data_file, read_data_file
from yaniv_sim.rules import PRESETS, VARIANTS, Rules

# library parameters whose errors the command line reports under its option's name
_FLAGS = {"rounds": "--rounds", "games": "--games", "chunk_size": "--chunk-size",
          "workers": "--workers", "seed": "--seed", "seating": "--seating", "dask": "--dask",
          "policy": "--policy", "out": "--out", "values": "--values", "range": "--range",
          "sequential": "--sequential", "opponents": "--opponents", "turn": "--turn",
          "took": "--took", "hand": "--hand", "seen": "--seen", "tables": "--tables",
          "pile": "--pile", "pile_kind": "--pile-kind", "totals": "--totals",
          "base": "--base", "iterations": "--iterations", "fdr": "--fdr",
          "objective": "--objective", "equity": "--equity", "against": "--against"}  # fmt: skip


def _message(text: str) -> str:
    """A library message, with a leading parameter name written as the CLI option."""
    text = text.replace("(resume=True)", "(add --resume to the same command)")
    match = re.match(r"(\w+)([ :])", text)
    if match and match.group(1) in _FLAGS:
        return _FLAGS[match.group(1)] + text[len(match.group(1)) :]
    return text


def _user_errors(func):
    """Turn the library's ``ValueError`` into a one-line click error."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (ValueError, OSError) as error:
            raise click.ClickException(_message(str(error))) from None

    return wrapper


def _parse_setting(text: str) -> tuple[str, object]:
    """``FIELD=VALUE`` with VALUE read as a TOML value (bare words are strings)."""
    field, eq, value = text.partition("=")
    if not eq or not field.strip():
        raise ValueError(f"--set {text!r}: use FIELD=VALUE, for example --set threshold=5")
    field = field.strip()
    try:
        parsed = tomllib.loads(f"v = {value.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        parsed = value.strip()
    return field, parsed


def build_rules(rules: str, variants: tuple[str, ...], settings: tuple[str, ...]) -> Rules:
    """The rule set named on the command line: a preset or a TOML/JSON file, then changes."""
    overrides = dict(_parse_setting(s) for s in settings)
    if rules in PRESETS:
        return Rules.preset(rules, variants, **overrides)
    if not is_data_file(rules):
        raise ValueError(
            f"--rules {rules!r}: use a preset ({', '.join(PRESETS)}) or a .toml/.json file"
        )
    data = read_data_file(rules, "--rules")
    if "rules" in data and isinstance(data["rules"], dict):
        data = data["rules"]
    data = dict(data)
    data["variants"] = list(data.get("variants", [])) + list(variants)
    data.update(overrides)
    return Rules.from_dict(data)


def rules_options(func):
    """The shared ``--rules``, ``--variant`` and ``--set`` options."""

    @click.option(
        "--rules",
        "rules_name",
        default="standard",
        show_default=True,
        help="A preset (standard, nordic) or a rule file (.toml or .json).",
    )
    @click.option(
        "--variant",
        "variants",
        multiple=True,
        metavar="NAME",
        help="A named variant, repeatable: " + ", ".join(VARIANTS) + ".",
    )
    @click.option(
        "--set",
        "settings",
        multiple=True,
        metavar="FIELD=VALUE",
        help="Change one rule field, repeatable (e.g. --set threshold=5).",
    )
    @functools.wraps(func)
    def wrapper(*args, rules_name, variants, settings, **kwargs):
        try:
            rules = build_rules(rules_name, variants, settings)
        except ValueError as error:
            raise click.ClickException(str(error)) from None
        return func(*args, rules=rules, **kwargs)

    return wrapper


players_option = click.option(
    "--players", type=click.IntRange(2, 8), default=4, show_default=True, help="Seats, 2 to 8."
)
workers_option = click.option(
    "--workers", type=click.IntRange(1), default=None, help="Worker processes [default: all cores]."
)
seed_option = click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True, help="Random seed."
)
policy_option = click.option(
    "--policy",
    "policies",
    multiple=True,
    default=("max-shed",),
    show_default=True,
    metavar="SPEC",
    help="Policy for every seat, or repeat once per seat (max-shed, random:call=0.5,pile=0.5).",
)


def _policies(policies: tuple[str, ...]):
    return policies[0] if len(policies) == 1 else list(policies)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="yaniv-sim")
def main():
    """Monte-Carlo strategy analysis for the card game Yaniv.

    Example: yaniv-sim demo --players 4 --rounds 200000
    """


@main.command("rules")
@rules_options
@click.option("--players", type=click.IntRange(2, 8), help="Also check the deal for N players.")
@click.option("--json", "as_json", is_flag=True, help="Print the rule set as JSON.")
@_user_errors
def rules_command(rules: Rules, players: int | None, as_json: bool):
    """Show a rule set, every field with its value.

    Example: yaniv-sim rules --rules nordic --variant slapdown --set limit=100 --players 4
    """
    if players is not None:
        rules.check_players(players)
    data = rules.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        width = max(map(len, data))
        for field, value in data.items():
            click.echo(f"{field:<{width}}  {value}")
    if players is not None:
        click.echo(
            f"{players} players: {rules.decks_for(players)} deck(s) of "
            f"{rules.deck_size(players)} cards, {rules.hand_size} cards each"
        )


@main.command("legal")
@click.argument("hand")
@rules_options
@_user_errors
def legal_command(hand: str, rules: Rules):
    """List every legal discard of HAND and what the next player could take.

    Example: yaniv-sim legal "4D 5D JK 7D 7S" --rules nordic
    """
    from yaniv_sim import engine

    lines = [f"hand {engine.format_cards(engine.parse_cards(hand))}: "
             f"{engine.hand_value(hand)} points"]  # fmt: skip
    for discard, kind in engine.legal_layings(hand, rules):
        points = engine.hand_value(discard)
        take = engine.format_cards(engine.takeable(discard, rules, kind))
        lines.append(f"  {kind:<6} {engine.format_cards(discard):<22} {points:>3} points; "
                     f"next may take {take}")  # fmt: skip
    click.echo("\n".join(lines))


@main.command("round")
@rules_options
@players_option
@seed_option
@policy_option
@click.option("--round", "round_index", type=click.IntRange(0), default=0, show_default=True,
              help="Which round (its index keys the shuffle).")  # fmt: skip
@click.option("--starter", type=click.IntRange(0, 7), default=0, show_default=True,
              help="Seat that plays first.")  # fmt: skip
@_user_errors
def round_command(rules, players, seed, policies, round_index, starter):
    """Play one seeded round and print it turn by turn.

    Example: yaniv-sim round --players 3 --seed 7 --rules nordic
    """
    from yaniv_sim import engine

    record = engine.play_round(rules, players, seed, _policies(policies), round=round_index,
                               starter=starter)  # fmt: skip
    click.echo(str(record))


@main.command("game")
@rules_options
@players_option
@seed_option
@policy_option
@click.option("--game", "game_index", type=click.IntRange(0), default=0, show_default=True,
              help="Which game (its index keys the shuffles).")  # fmt: skip
@click.option("--turns", is_flag=True, help="Show every turn of every round.")
@_user_errors
def game_command(rules, players, seed, policies, game_index, turns):
    """Play one seeded game to its winner and print it round by round.

    Example: yaniv-sim game --players 4 --seed 1 --variant milestone-theft
    """
    from yaniv_sim import engine

    record = engine.play_game(rules, players, seed, _policies(policies), game=game_index,
                              turns=turns)  # fmt: skip
    click.echo(str(record))


@main.command("demo")
@rules_options
@players_option
@seed_option
@click.option("--policy", default="max-shed", show_default=True, metavar="SPEC",
              help="Policy for every seat.")  # fmt: skip
@click.option("--rounds", type=click.IntRange(1), default=1_000_000, show_default=True,
              help="Rounds to play.")  # fmt: skip
@click.option("--out", type=click.Path(dir_okay=True, path_type=Path),
              default=Path("reports"), show_default=True,
              help="Report file (.md) or directory.")  # fmt: skip
@_user_errors
def demo_command(rules, players, seed, policy, rounds, out):
    """Play seeded self-play rounds and write a short statistics report.

    The report gives how rounds end, the Assaf rate at each calling hand
    value with 95% intervals, and a check of the simulated first-turn call
    rate against the exact odds of the deal.

    Example: yaniv-sim demo --players 4 --rounds 1000000 --out reports/
    """
    from yaniv_sim.selfplay import report_path, run_selfplay, write_report

    rules.check_players(players)
    report_path(out)
    click.echo(f"playing {rounds:,} rounds of {policy} self-play, {players} players ...")
    study = run_selfplay(rules, players, rounds, seed, policy)
    path = write_report(study, out)
    assaf = study.outcomes["assaf"] / rounds
    click.echo(
        f"done in {study.seconds:.1f} s: {study.turns_mean:.1f} turns per round, "
        f"Assaf after {assaf:.1%} of rounds; report written to {path}"
    )


@main.command("simulate")
@rules_options
@players_option
@policy_option
@click.option("--rounds", type=click.IntRange(1), help="Play N independent rounds.")
@click.option("--games", type=click.IntRange(1), help="Play N whole games.")
@seed_option
@workers_option
@click.option(
    "--dask",
    "dask_address",
    metavar="ADDRESS|local",
    help="Run on Dask: 'local' starts a LocalCluster, or a scheduler address.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Dataset folder [default: data/<rules>-<players>p-<policies>-...-seed<S>].",
)
@click.option("--resume", is_flag=True, help="Finish an interrupted run of the same request.")
@click.option(
    "--seating",
    type=click.Choice(["rotate", "fixed"]),
    default="rotate",
    show_default=True,
    help="Rotate policies over the seats, or keep them fixed.",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(1),
    default=None,
    help="Units per chunk [default: 100000 rounds or 2000 games].",
)
@click.option("--quiet", is_flag=True, help="No progress bar and no summary.")
@_user_errors
def simulate_command(
    rules,
    players,
    policies,
    rounds,
    games,
    seed,
    workers,
    dask_address,
    out,
    resume,
    seating,
    chunk_size,
    quiet,
):
    """Simulate rounds or games into a Parquet dataset (see docs/data.md).

    Example: yaniv-sim simulate --players 4 --rounds 1000000 --out data/demo
    """
    from yaniv_sim.runs import Interrupted, simulate, usable_workers

    if (rounds is None) == (games is None):
        raise ValueError("give either --rounds N or --games N")
    _, note = usable_workers(workers)
    if note is not None and dask_address in (None, "local"):
        click.echo(f"note: {_message(note)}", err=True)
    try:
        result = simulate(
            rules,
            players,
            _policies(policies),
            rounds=rounds,
            games=games,
            seed=seed,
            workers=workers,
            dask=dask_address,
            out=out,
            resume=resume,
            quiet=quiet,
            seating=seating,
            chunk_size=chunk_size,
        )
    except Interrupted as stop:
        # the run is over and cleaned up: a further Ctrl-C must not interrupt the exit
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        click.echo(f"{stop}; run the same command with --resume to finish", err=True)
        if sys.stderr is sys.__stderr__:  # the real program, not a test's runner
            # the run is cleaned up; leave now, so that the process pool's exit hook does
            # not print a traceback after a Ctrl-C hit it mid-shutdown
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + stop.signal)
        raise SystemExit(128 + stop.signal) from None
    if not quiet:
        click.echo(result.summary())


@main.command("compare")
@click.argument("policies", nargs=-1, required=True)
@rules_options
@players_option
@click.option("--games", type=click.IntRange(1), default=2000, show_default=True,
              help="Deals; each is played once in every seating.")  # fmt: skip
@seed_option
@workers_option
@click.option("--sequential", is_flag=True,
              help="Stop as soon as a sequential test decides (two policies).")  # fmt: skip
@click.option("--effect", type=click.FloatRange(0.001, 1), default=0.02, show_default=True,
              help="With --sequential: the win-rate difference worth detecting.")  # fmt: skip
@click.option("--alpha", type=click.FloatRange(0.0001, 0.5), default=0.05, show_default=True,
              help="With --sequential: the error rates of the test.")  # fmt: skip
@_user_errors
def compare_command(policies, rules, players, games, seed, workers, sequential, effect, alpha):
    """Compare policies head to head in duplicate format, with 95% intervals.

    Each deal is replayed with the policies turned round the table, so every
    policy plays every seat on the same cards. With more than two policies the
    table is a league.

    Example: yaniv-sim compare best max-shed --players 4 --games 20000
    """
    from yaniv_sim.compare import compare

    if len(policies) < 2:
        raise ValueError("name at least two policies to compare, e.g. best max-shed")
    result = compare(list(policies), rules, players, games, seed, workers,
                     sequential=sequential, effect=effect, alpha=alpha)  # fmt: skip
    click.echo(str(result))


@main.command("tune")
@click.argument("policy")
@click.option("--param", "params", required=True, multiple=True,
              help="A parameter to search, e.g. call_at; repeat for several.")  # fmt: skip
@click.option("--values", "values_texts", multiple=True, metavar="LIST|A..B",
              help="Grid: values to try, 3,4,5 or 3..7; one --values per --param.")  # fmt: skip
@click.option("--range", "range_texts", multiple=True, metavar="LOW..HIGH",
              help="Optimize: the range to search, e.g. 0.02..0.3; one per --param "
              "[default: the parameter's whole range].")  # fmt: skip
@click.option("--method", type=click.Choice(["grid", "optimize"]), default="grid",
              show_default=True,
              help="grid: every combination of the values; optimize: scipy.optimize.")  # fmt: skip
@click.option("--evaluations", type=click.IntRange(1), default=20, show_default=True,
              help="With --method optimize: the most settings to play.")  # fmt: skip
@click.option("--against", multiple=True, default=("max-shed",), show_default=True,
              metavar="SPEC", help="The field of opponents, repeatable.")  # fmt: skip
@rules_options
@players_option
@click.option("--games", type=click.IntRange(1), default=1000, show_default=True,
              help="Duplicate deals per setting.")  # fmt: skip
@seed_option
@workers_option
@_user_errors
def tune_command(policy, params, values_texts, range_texts, method, evaluations, against, rules,
                 players, games, seed, workers):  # fmt: skip
    """Search parameters of a policy for the best game win rate, with intervals.

    Each setting plays the same deals against the same field in duplicate
    format, so the win rate is a deterministic function of the setting. A
    grid plays every combination of the values; --method optimize lets
    scipy.optimize search the ranges (integer parameters rounded, each
    setting played once).

    Example: yaniv-sim tune best --param max_risk --range 0.02..0.3 --method optimize
    """
    from yaniv_sim.tune import parse_range, parse_values, tune

    if method == "grid":
        if range_texts:
            raise ValueError("--range is for --method optimize; a grid takes --values")
        if len(values_texts) != len(params):
            raise ValueError(f"{len(params)} --param but {len(values_texts)} --values; "
                             "give one --values for each --param, in the same order")  # fmt: skip
        values = [parse_values(text) for text in values_texts]
        ranges = None
    else:
        if values_texts:
            raise ValueError("--values is for --method grid; optimize takes --range LOW..HIGH")
        if range_texts and len(range_texts) != len(params):
            raise ValueError(f"{len(params)} --param but {len(range_texts)} --range; "
                             "give one --range for each --param, in the same order")  # fmt: skip
        values = None
        ranges = [parse_range(text) for text in range_texts] or None
    result = tune(policy, list(params), values, against=list(against), rules=rules,
                  players=players, games=games, seed=seed, workers=workers, method=method,
                  ranges=ranges, evaluations=evaluations)  # fmt: skip
    click.echo(str(result))


def _player_counts(text: str) -> tuple[int, ...]:
    """``"2..5"`` or ``"2,3,4"``: table sizes from 2 to 8."""
    try:
        if ".." in text:
            low, high = (int(p) for p in text.split(".."))
            counts = tuple(range(low, high + 1))
        else:
            counts = tuple(int(p) for p in text.split(",") if p.strip())
    except ValueError:
        counts = ()
    if not counts or any(not 2 <= c <= 8 for c in counts):
        raise ValueError(f"--players {text!r}: give table sizes from 2 to 8, as 2..5 or 2,4")
    return tuple(sorted(set(counts)))


@main.command("report")
@rules_options
@click.option(
    "--players",
    "players_text",
    default="2..8",
    show_default=True,
    metavar="A..B|LIST",
    help="Table sizes to study, e.g. 2..5 or 3,4 (with --quick and no --players: 2..5, "
    "the player's page 2..8).",
)
@click.option("--policy", default="best", show_default=True, metavar="SPEC",
              help="The policy whose play the Assaf-risk and calling sections study.")  # fmt: skip
@click.option("--games", type=click.IntRange(10), default=None,
              help="Games per table size for the calling sections (default 3,000; 300 with "
                   "--quick); the other sections scale with it.")  # fmt: skip
@click.option("--quick", is_flag=True, help="A small run: about two minutes, wider intervals.")
@seed_option
@click.option("--section", "sections", multiple=True, metavar="NAME",
              help="Only this section, repeatable: players-page, assaf-risk, when-to-call, "
                   "what-you-see, variants, milestones, league.")  # fmt: skip
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Report folder [default: reports/strategy-<rules>, with -quick for --quick; with no "
    "rule set named, one folder each for standard and nordic: OUT/standard, OUT/nordic].",
)
@click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=Path("data"),
              show_default=True, help="Where simulations are stored and reused.")  # fmt: skip
@workers_option
@click.option("--dask", metavar="local|ADDRESS", default=None,
              help="Run the simulations on a Dask cluster.")  # fmt: skip
@click.option("--quiet", is_flag=True, help="No progress lines.")
@_user_errors
def report_command(rules, players_text, policy, games, quick, seed, sections, out, data, workers,
                   dask, quiet):  # fmt: skip
    """Simulate and write the strategy report (Markdown, HTML and PNG charts).

    With no --rules, --variant or --set, it writes two reports, one for each
    rule book the project starts from: standard (the German rules) and nordic
    (the Norwegian rules).

    Sections: the player's page (read from the shipped solved strategies and
    equity tables, nothing simulated); Assaf risk by hand value; when to call
    Yaniv (a decision table from paired call-or-wait branches, exported as
    playable policies); rule
    variants; milestone targeting; a league of the policy presets. Datasets
    go to --data and are reused by later runs with the same settings.

    Example: yaniv-sim report --quick
    """
    import shlex
    import sys

    from yaniv_sim.engine.specs import canonical_spec
    from yaniv_sim.report import ReportOptions, build_report
    from yaniv_sim.rules import Rules, rules_label

    ctx = click.get_current_context()
    named = (ctx.get_parameter_source("rules_name") != click.core.ParameterSource.DEFAULT
             or ctx.params.get("variants") or ctx.params.get("settings"))  # fmt: skip
    books = [rules] if named else [Rules.preset("standard"), Rules.preset("nordic")]
    counts = _player_counts(players_text)
    page_counts = None
    if quick and ctx.get_parameter_source("players_text") == click.core.ParameterSource.DEFAULT:
        # a quick report keeps to two minutes: its simulated sections cover 2 to 5 players,
        # its player's page (shipped files only) every size
        counts, page_counts = (2, 3, 4, 5), counts
    for book in books:
        for n in counts:
            book.check_players(n)
    policy = canonical_spec(policy)
    command = "yaniv-sim " + shlex.join(sys.argv[1:])
    for i, book in enumerate(books, 1):
        label = rules_label(book) if rules_label(book) in ("standard", "nordic") else "custom"
        # the command that makes this report alone
        command_line = command + (f" --rules {label}" if len(books) > 1 else "")
        options = ReportOptions(rules=book, players=counts, policy=policy, seed=seed,
                                quick=quick, workers=workers, dask=dask, data=data, quiet=quiet,
                                command_line=command_line, page_players=page_counts)  # fmt: skip
        if games is not None:
            options.scale = games / options.DECISION_GAMES[1 if quick else 0]
        if out is None:
            folder = Path("reports") / (f"strategy-{label}" + ("-quick" if quick else ""))
        else:
            folder = out / label if len(books) > 1 else out
        if len(books) > 1:
            options.say(f"rules {label}: report {i} of {len(books)}")
        md, html = build_report(options, folder, sections or None)
        click.echo(f"report written to {md} and {html}")


def _took(items: tuple[str, ...]) -> dict[int, str]:
    took: dict[int, str] = {}
    for item in items:
        k, sep, cards = item.partition(":")
        if not sep or not k.strip().isdigit():
            raise ValueError(
                f"--took {item!r}: use OPPONENT:CARDS, e.g. --took 2:JK for a joker opponent 2 "
                "took from the pile"
            )
        took[int(k)] = (took.get(int(k), "") + " " + cards).strip()
    return took


@main.command("advise")
@click.option("--hand", required=True, metavar="CARDS", help='Your cards, e.g. "AS 2D 3C".')
@click.option("--opponents", required=True, metavar="N,N,...",
              help="Cards each opponent holds, in playing order, e.g. 2,4,5.")  # fmt: skip
@click.option("--turn", type=click.IntRange(0), default=0, show_default=True,
              help="Turns already played in this round (everyone's turns).")  # fmt: skip
@rules_options
@click.option("--seen", metavar="CARDS", default=None,
              help="Cards gone into the discard pile that nobody can take any more.")  # fmt: skip
@click.option("--took", multiple=True, metavar="OPP:CARDS",
              help="Cards an opponent took from the pile and still holds, e.g. 2:JK; "
                   "opponents are numbered 1, 2, ... as in --opponents. Repeatable.")  # fmt: skip
@click.option("--tables", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="A report folder with the simulated tables [default: the newest "
                   "reports/strategy-<rules> folder, if any].")  # fmt: skip
@click.option("--pile", metavar="CARDS", default=None,
              help="The previous player's discard as laid, e.g. \"5H 6H 7H\"; with it the "
                   "search also answers for this exact position.")  # fmt: skip
@click.option(
    "--pile-kind",
    type=click.Choice(["single", "set", "run"]),
    default=None,
    help="How the pile was laid, when it could be a set or a run.",
)
@click.option(
    "--totals",
    metavar="N,N,...",
    default=None,
    help="Running totals, yours first, then the opponents' in order.",
)
@click.option("--search", "search_spec", metavar="SPEC", default=None,
              help="The search policy to ask (with --pile) [default: "
                   "search:worlds=256,base=best; with --totals, searching for the game: "
                   "objective=win, under the standard and nordic presets].")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the search.")
@_user_errors
def advise_command(hand, opponents, turn, rules, seen, took, tables, pile, pile_kind, totals,
                   search_spec, seed):  # fmt: skip
    """Should I call Yaniv now? Assaf risk, call-or-wait value and a verdict.

    Gives the exact Assaf risk if the opponents' unknown cards were random,
    and, from the tables a `yaniv-sim report` run wrote, the simulated risk
    and what calling now gains over waiting a turn in positions like this.
    With --pile, a search that sees what you see plays every choice on in
    sampled deals and answers call or wait, the best discard and the best
    draw for this exact position, each with its value and interval. Cards
    under the pile you do not list with --seen are taken to be in the stock.

    Example: yaniv-sim advise --hand "AS 2D 3C" --opponents 2,4,5 --turn 8 --pile KD
    """
    from yaniv_sim.advice import advise, default_tables
    from yaniv_sim.rules import rules_label

    try:
        counts = [int(c) for c in opponents.split(",") if c.strip()]
    except ValueError:
        raise ValueError(
            f"--opponents {opponents!r}: give each opponent's card count, e.g. 2,4,5"
        ) from None
    if pile is None and (search_spec is not None or totals is not None or pile_kind is not None):
        raise ValueError("--pile: the search needs the previous discard as laid, e.g. --pile 7H")
    try:
        sums = None if totals is None else [int(x) for x in totals.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--totals {totals!r}: whole numbers, yours first, e.g. 12,40,7") from None
    label = rules_label(rules)
    if tables is None:
        tables = default_tables(label)
    result = advise(hand, counts, turn, rules, seen=seen, took=_took(took), tables=tables,
                    rules_label=label)  # fmt: skip
    position = None
    if pile is not None:
        from yaniv_sim.advice import default_search, table_position
        from yaniv_sim.engine import search_position

        position = table_position(hand, counts, pile, turn, rules, seen=seen, took=_took(took),
                                  totals=sums, pile_kind=pile_kind)  # fmt: skip
    click.echo(str(result))
    if position is None:
        return
    click.echo("")
    spec = search_spec or default_search(rules, sums is not None)
    click.echo(str(search_position(position, rules, spec, seed=seed)))


_preset_option = click.option(
    "--rules", "rules_name", type=click.Choice(["standard", "nordic"]), default="standard",
    show_default=True, help="A preset (its table ships with the package).")  # fmt: skip


@main.group("equity")
def equity_group():
    """Game equity: the chance of winning the game from the totals (docs/equity.md)."""


@equity_group.command("show")
@_preset_option
@players_option
@click.option("--totals", required=True, metavar="T0,T1,...",
              help="Every seat's running total, e.g. 40,120.")  # fmt: skip
@click.option("--starter", type=click.IntRange(0, 7), default=0, show_default=True,
              help="The seat that starts the next round.")  # fmt: skip
@click.option("--table", "table_path", type=click.Path(path_type=Path),
              help="An equity table file (.npz) instead of the shipped one.")  # fmt: skip
@_user_errors
def equity_show(rules_name, players, totals, starter, table_path):
    """Each seat's chance of winning the game from these totals.

    Example: yaniv-sim equity show --players 2 --totals 40,120
    """
    from yaniv_sim import equity

    table = equity.load(table_path) if table_path else equity.shipped(rules_name, players)
    values = _int_list(totals, "totals")
    chances = table.win_chances(values, starter=starter)
    click.echo(f"{table.players} seats, rules {table_path or rules_name}, "
               f"policy {table.policy}; seat {starter} starts the next round")  # fmt: skip
    for s, (t, p) in enumerate(zip(values, chances, strict=True)):
        click.echo(f"  seat {s}: total {t:>3}  wins the game {100 * p:5.1f}%")


@equity_group.command("build")
@rules_options
@players_option
@click.option("--policy", default="best", show_default=True, metavar="SPEC",
              help="The policy every seat plays.")  # fmt: skip
@click.option("--games", type=click.IntRange(100), default=20_000, show_default=True,
              help="Self-play games to build from.")  # fmt: skip
@seed_option
@workers_option
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="The table file to write (.npz).")  # fmt: skip
@_user_errors
def equity_build(rules, players, policy, games, seed, workers, out):
    """Build an equity table from whole-game self-play and write it.

    Example: yaniv-sim equity build --rules nordic --players 3 --games 5000 --out n3.npz
    """
    import os
    import shlex
    import sys

    from yaniv_sim import equity

    command = shlex.join(["yaniv-sim", *sys.argv[1:]])
    table = equity.build(rules, players, policy, games=games, seed=seed,
                         workers=workers or os.cpu_count() or 1, command=command)  # fmt: skip
    click.echo(f"wrote {table.save(out)}")


def _int_list(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(" ", "").split(",") if x != ""]
    except ValueError:
        raise ValueError(f"{what}: {text!r}; give whole numbers separated by commas") from None


@equity_group.command("points")
@_preset_option
@click.option("--opponent", type=click.IntRange(0), default=100, show_default=True,
              help="The opponent's total (two players in).")  # fmt: skip
@click.option("--near", type=click.IntRange(0, 50), default=10, show_default=True,
              help="Show this many totals below the limit and each milestone.")  # fmt: skip
@_user_errors
def equity_points(rules_name, opponent, near):
    """What a point and a milestone landing are worth in win chance (two players in).

    Example: yaniv-sim equity points --rules nordic --opponent 150
    """
    import numpy as np

    from yaniv_sim import equity

    table = equity.shipped(rules_name, 2)
    frame = equity.point_values(table, opponent)
    limit = table.rules.limit
    marks = [at for at, _ in table.rules.milestones if at <= limit]
    show = sorted({t for m in [*marks, limit] for t in range(max(0, m - near), m + 1)})
    click.echo(f"{rules_name}, two players in, opponent at {opponent}, you start the next "
               f"round; policy {table.policy}")  # fmt: skip
    click.echo("total  win chance  cost of the last point  landing here is worth")
    for row in frame.iloc[show].itertuples(index=False):
        land = "" if np.isnan(row.landing) else f"{100 * row.landing:+.1f} points"
        cost = "" if np.isnan(row.last_point) else f"{100 * row.last_point:.2f} points"
        click.echo(f"{row.total:>5}  {100 * row.chance:9.1f}%  {cost:>22}  {land}")


@main.command("solve")
@rules_options
@players_option
@click.option("--base", default="best", show_default=True, metavar="SPEC",
              help="The heuristic-family policy deciding where the table does not.")  # fmt: skip
@click.option("--games", type=click.IntRange(10), default=20_000, show_default=True,
              help="Games simulated per iteration.")  # fmt: skip
@click.option("--iterations", type=click.IntRange(1), default=8, show_default=True,
              help="At most this many improvement steps.")  # fmt: skip
@click.option("--fdr", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="False-discovery rate of each step's tests.")  # fmt: skip
@click.option("--objective", type=click.Choice(["win", "points"]), default="win",
              show_default=True,
              help="Value a round by the game-win chance after it, or by points.")  # fmt: skip
@click.option("--equity", "equity_path", type=click.Path(path_type=Path),
              help="An equity table file (.npz) [default: the preset's].")  # fmt: skip
@click.option("--against", metavar="SPEC", default=None,
              help="Solve one seat against this policy in every other seat (a best "
                   "response) instead of self-play.")  # fmt: skip
@click.option("--check-games", type=click.IntRange(0), default=None,
              help="Games of the fresh-seed check, 0 to skip [default: --games].")  # fmt: skip
@click.option("--seed", type=click.IntRange(0, 2**62), default=2026, show_default=True,
              help="Random seed.")  # fmt: skip
@workers_option
@click.option("--dask", "dask_address", metavar="ADDRESS|local",
              help="Run the simulations on Dask: 'local' or a scheduler address.")  # fmt: skip
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Folder of the run (run the same command again to resume it).")  # fmt: skip
@_user_errors
def solve_command(rules, players, base, games, iterations, fdr, objective, equity_path,
                  against, check_games, seed, workers, dask_address, out):  # fmt: skip
    """Solve when to call: iterate the call-or-wait improvement step to a fixed point.

    Every iteration plays games with all seats on the current policy, plays
    every decision point both ways, and sets each call-table cell where the
    other choice is clearly better (tests clustered by game, false-discovery
    rate controlled). It stops when no cell changes. See docs/solve.md.

    Example: yaniv-sim solve --rules nordic --players 4 --out solve-nordic-4p
    """
    import os
    import shlex
    import sys

    from yaniv_sim import equity as equity_module
    from yaniv_sim import solve as solver
    from yaniv_sim.rules import rules_label

    name = rules_label(rules)
    request = solver.SolveRequest(rules, name, players, base=base, games=games, seed=seed,
                                  iterations=iterations, fdr=fdr, objective=objective,
                                  against=against)  # fmt: skip
    table = equity_module.load(equity_path) if equity_path else None
    command = shlex.join(["yaniv-sim", *sys.argv[1:]])
    workers = workers or os.cpu_count() or 1
    solution = solver.solve(request, out, equity=table, workers=workers, dask=dask_address,
                            command=command, say=click.echo)  # fmt: skip
    calls = sum(v == 1 for v in solution.table.values())
    state = "converged" if solution.converged else "did NOT converge"
    click.echo(f"{state} after {len(solution.trace)} iterations: {calls} cells call, "
               f"{len(solution.table) - calls} wait, the rest defer to {base}")  # fmt: skip
    if check_games != 0:
        click.echo("fresh-seed check: the same tests on new games of the solved policy")
        tests = solver.check(solution, out, games=check_games, equity=table, workers=workers,
                             dask=dask_address)  # fmt: skip
        tests.to_csv(Path(out) / "check.csv", index=False)
        profitable = solver.profitable_deviations(tests)
        where = Path(out) / "check.csv"
        click.echo(f"  {len(profitable)} of {len(tests)} cells with a clearly profitable "
                   f"deviation (false-discovery rate {fdr:g}); details in {where}")  # fmt: skip
    click.echo(f"policy: {solution.policy_file}")
