"""The strategy report: questions Yaniv players argue about, answered with numbers.

Each section is a module with ``build(options) -> Section``; :func:`build_report`
runs the chosen ones and writes ``report.md`` and ``report.html`` into one folder.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from yaniv_sim._version import __version__
from yaniv_sim.report.context import ReportOptions, rules_label
from yaniv_sim.report.document import write_report

__all__ = ["SECTIONS", "ReportOptions", "build_report", "rules_label"]

# name -> module under yaniv_sim.report, in report order
SECTIONS: dict[str, str] = {
    "players-page": "players_page",
    "assaf-risk": "assaf_risk",
    "when-to-call": "when_to_call",
    "what-you-see": "public_info",
    "variants": "variants",
    "milestones": "milestones",
    "league": "league",
}
# sections read from shipped data only: they need no compiled kernels
NO_SIMULATION = frozenset({"players-page"})


def _warm(job: tuple) -> None:
    """Play a tiny run so that its kernel is compiled into numba's cache."""
    rules_data, policy, branches = job
    import tempfile

    from yaniv_sim.rules import Rules
    from yaniv_sim.runs import simulate

    with tempfile.TemporaryDirectory() as tmp:
        simulate(Rules.from_dict(rules_data), 2, [policy, "best"], games=2, seed=0, workers=1,
                 out=Path(tmp) / "warm", branches=branches)  # fmt: skip


def _compile_kernels(options: ReportOptions) -> None:
    """Compile the two big kernels side by side, one per core, before the sections start.

    On a fresh install each takes one to three minutes to compile; the
    sections' worker processes would otherwise compile them one after the
    other (and each worker on its own). With a warm cache this takes a
    second or two.
    """
    import concurrent.futures as cf
    import multiprocessing
    import sys

    options.say("loading the compiled kernels (the first run after installing compiles them)")
    jobs = [(options.rules.to_dict(), options.policy, True), (options.rules.to_dict(), "best",
                                                               False)]  # fmt: skip
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with cf.ProcessPoolExecutor(2, mp_context=context) as pool:
        list(pool.map(_warm, jobs))


def build_report(
    options: ReportOptions, out: Path, sections: list[str] | tuple[str, ...] | None = None
) -> tuple[Path, Path]:
    """Simulate what the chosen sections need and write the report into ``out``.

    Returns the paths of ``report.md`` and ``report.html``.
    """
    names = list(sections or SECTIONS)
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        raise ValueError(f"section {unknown[0]!r} is not known; sections: " + ", ".join(SECTIONS))
    if not set(names) <= NO_SIMULATION:
        _compile_kernels(options)
    built = []
    for i, name in enumerate(names, 1):
        options.say(f"section {i} of {len(names)}: {name}")
        module = importlib.import_module(f"yaniv_sim.report.{SECTIONS[name]}")
        built.append(module.build(options))
    mode = "a quick run, with wide intervals" if options.quick else "a full run"
    preface = [
        f"Made by yaniv-sim {__version__} with `{options.command()}` "
        f"({mode}). Every number is from seeded simulation and is reproduced "
        "exactly by the same command; intervals are 95%.",
        f"Rules: {options.label}. Table sizes (players at the start of a game): "
        + ", ".join(str(p) for p in options.players)
        + f". Policy that produced the data: `{options.policy}`.",
    ]
    return write_report(built, out, "Yaniv strategy report", preface)
