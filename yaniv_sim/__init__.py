"""yaniv-sim: Monte-Carlo strategy analysis for the card game Yaniv.

>>> from yaniv_sim import Rules, engine
>>> record = engine.play_round(Rules.preset("standard"), players=4, seed=1)
>>> record.outcome in {"yaniv", "assaf"}
True
"""

from __future__ import annotations

from yaniv_sim._version import __version__
from yaniv_sim.cards import format_cards, parse_cards
from yaniv_sim.rules import PRESETS, VARIANTS, Rules

__all__ = [
    "PRESETS",
    "VARIANTS",
    "Rules",
    "__version__",
    "format_cards",
    "open_dataset",
    "parse_cards",
    "simulate",
]


def __getattr__(name: str):
    # the simulator pulls in pandas and the kernels: load it on first use only
    if name == "simulate":
        from yaniv_sim.runs import simulate

        return simulate
    if name == "open_dataset":
        from yaniv_sim.storage import open_dataset

        return open_dataset
    raise AttributeError(f"module 'yaniv_sim' has no attribute {name!r}")
