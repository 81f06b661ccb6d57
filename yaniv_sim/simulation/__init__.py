"""Batch simulation: requests split into chunks, played by numba kernels."""

from yaniv_sim.simulation.chunks import play_chunk
from yaniv_sim.simulation.request import SimRequest

__all__ = ["SimRequest", "play_chunk"]
