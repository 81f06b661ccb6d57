"""Run a simulation into a dataset: chunks in parallel, resumable, reproducible.

``simulate(...)`` is what ``yaniv-sim simulate`` calls. It writes the manifest,
plays every chunk that is not yet done (in this process, in a pool of worker
processes, or on a Dask cluster), each worker writing its own part files, and
writes the manifest's list of completed chunks when the run ends or is
interrupted (the done markers are the record while it runs).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaniv_sim
from yaniv_sim.engine._specs import policy_vector
from yaniv_sim.rules import PRESETS, Rules
from yaniv_sim.simulation.chunks import play_chunk
from yaniv_sim.simulation.request import SimRequest
from yaniv_sim.storage import (
    completed_chunks,
    is_empty_or_missing,
    is_local,
    read_manifest,
    write_chunk,
    write_manifest,
)

__all__ = ["Interrupted", "SimResult", "default_out", "simulate"]


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C; what it kept is complete and can be resumed."""

    def __init__(self, path: Path, done: int, total: int):
        super().__init__(f"interrupted: kept {done} of {total} chunks in {path}")
        self.path, self.done, self.total = path, done, total


@dataclasses.dataclass
class SimResult:
    """What a run did."""

    path: Path
    request: SimRequest
    chunks_total: int
    chunks_run: int
    chunks_done: int
    units_run: int
    seconds: float

    @property
    def complete(self) -> bool:
        return self.chunks_done == self.chunks_total

    def summary(self) -> str:
        if self.chunks_run == 0 and self.complete:
            return f"nothing to do: {self.path} already holds all {self.chunks_total} chunks"
        rate = self.units_run / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.units_run:,} {self.request.mode} played in {self.seconds:.1f} s "
            f"({rate:,.0f} {self.request.mode}/s); {self.chunks_done} of "
            f"{self.chunks_total} chunks in {self.path}"
        )


def _rules_label(rules: Rules) -> str:
    for name in PRESETS:
        if Rules.preset(name) == rules:
            return name
    digest = hashlib.sha1(json.dumps(rules.to_dict(), sort_keys=True).encode()).hexdigest()
    return f"rules-{digest[:8]}"


def default_out(request: SimRequest) -> Path:
    """``data/<rules>-<players>p-<policies>-<mode><count>-seed<seed>``, named from the request."""
    names = request.policy_names()
    label = "+".join(n.replace(":", "_").replace(",", "_").replace("=", "") for n in names)
    return Path("data") / (
        f"{_rules_label(request.rules)}-{request.players}p-{label}-"
        f"{request.mode}{request.count}-seed{request.seed}"
        + (f"-branches{request.branch_games}" if request.branches else "")
    )


def _manifest(request: SimRequest, completed: set[int]) -> dict[str, Any]:
    return {
        "tool": "yaniv-sim",
        "version": yaniv_sim.__version__,
        "request": request.to_dict(),
        "policies": [
            {"id": i, "spec": spec, "params": policy_vector(spec).tolist()}
            for i, spec in enumerate(request.policy_names())
        ],
        "chunks": request.n_chunks,
        "completed_chunks": sorted(completed),
    }


def _check_existing(path: Path, request: SimRequest, resume: bool) -> set[int]:
    """The chunks already done at ``path``; refuse to mix different requests."""
    manifest = read_manifest(path)
    if manifest is None:
        if not is_empty_or_missing(path):
            raise ValueError(
                f"--out {path}: exists and is not a yaniv-sim dataset; choose a new folder"
            )
        return set()
    old = manifest.get("request", {})
    new = request.to_dict()
    differ = [key for key in new if old.get(key) != new[key]]
    if manifest.get("version") != yaniv_sim.__version__:
        differ.append("version")
    if differ:
        raise ValueError(
            f"--out {path}: holds a dataset made with different settings "
            f"({', '.join(differ)}); refusing to mix them. Use a new --out folder"
        )
    done = completed_chunks(path)
    if done and len(done) < request.n_chunks and not resume:
        raise ValueError(
            f"--out {path}: an interrupted run of this request ({len(done)} of "
            f"{request.n_chunks} chunks done); add --resume to finish it"
        )
    return done


def _run_chunk(request_data: dict[str, Any], index: int, out: str) -> tuple[int, int, float]:
    """Play and store one chunk (runs in a worker process or on a Dask worker)."""
    start = time.perf_counter()
    request = SimRequest.from_dict(request_data)
    tables = play_chunk(request, index)
    write_chunk(out, index, tables)
    return index, request.chunk_units(index)[1], time.perf_counter() - start


def _warm_up() -> None:
    """Load the compiled kernels in a new worker before chunks arrive."""
    from yaniv_sim.simulation import kernels  # noqa: F401


def _progress(total: int, quiet: bool, unit: str):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=f" {unit}", unit_scale=True, smoothing=0.1, file=sys.stderr)


def simulate(
    rules: Rules | str = "standard",
    players: int = 4,
    policies: str | Sequence[str] = "max-shed",
    *,
    rounds: int | None = None,
    games: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    dask: str | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    quiet: bool = True,
    seating: str = "rotate",
    chunk_size: int | None = None,
    branches: bool = False,
    branch_games: int = 1,
    on_chunk: Callable[[int], None] | None = None,
) -> SimResult:
    """Simulate rounds or games and store them as a Parquet dataset.

    Parameters
    ----------
    rules : Rules or preset name
    players : int
    policies : str or list of str
        One policy spec for every seat or one per seat.
    rounds, games : int
        How much to play: give exactly one.
    seed : int
    workers : int, optional
        Worker processes (default: all cores); 1 plays in this process.
    dask : str, optional
        ``"local"`` for a ``LocalCluster`` or a scheduler address such as
        ``"tcp://host:8786"``; needs ``pip install 'yaniv-sim[dask]'``.
    out : path or URL, optional
        Dataset folder, local or any fsspec URL the workers can reach;
        default :func:`default_out`.
    resume : bool
        Finish an interrupted run of the same request.
    quiet : bool
        No progress bar.
    seating : {"rotate", "fixed"}
    chunk_size : int, optional
        Units per chunk (default 100,000 rounds or 2,000 games). The data do
        not depend on it.
    branches : bool
        Games mode: for every decision point also play the round with the
        call decision forced the other way, and record the deciding seat's
        round score both ways (see :mod:`yaniv_sim.simulation.branches`).
    branch_games : int
        With ``branches``, in one game in ``branch_games`` both branches are
        also played on to the game's end, recording the game result both ways.
    on_chunk : callable, optional
        Called with each chunk index as it completes (tests use it to stop a
        run part-way).

    Returns
    -------
    SimResult
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    request = SimRequest.make(rules, players, policies, rounds=rounds, games=games, seed=seed,
                              seating=seating, chunk_size=chunk_size, branches=branches,
                              branch_games=branch_games)  # fmt: skip
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers: {workers!r} is not allowed; use a whole number >= 1")
    if out is None:
        path = default_out(request)
    elif is_local(out):
        path = Path(os.fspath(out).removeprefix("file://"))
    else:
        path = os.fspath(out)
    done = _check_existing(path, request, resume)
    try:
        write_manifest(path, _manifest(request, done))
    except OSError as error:
        raise ValueError(f"--out {path}: cannot write there ({error.strerror})") from None
    todo = [i for i in range(request.n_chunks) if i not in done]
    start = time.perf_counter()
    bar = _progress(sum(request.chunk_units(i)[1] for i in todo), quiet, request.mode)
    units_run = 0
    run = 0

    def finished(index: int, units: int) -> None:
        nonlocal units_run, run
        done.add(index)
        units_run += units
        run += 1
        if bar is not None:
            bar.update(units)
        if on_chunk is not None:
            on_chunk(index)

    interrupted = False
    try:
        if dask is not None:
            _run_on_dask(dask, workers, request, todo, path, finished)
        elif workers == 1 or len(todo) <= 1:
            for index in todo:
                _, units, _ = _run_chunk(request.to_dict(), index, str(path))
                finished(index, units)
        else:
            _run_in_processes(workers, request, todo, path, finished)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
        done = completed_chunks(path)
        write_manifest(path, _manifest(request, done))
    if interrupted:
        raise Interrupted(path, len(done), request.n_chunks)
    return SimResult(path, request, request.n_chunks, run, len(done), units_run,
                     time.perf_counter() - start)  # fmt: skip


def _run_in_processes(workers, request, todo, path, finished) -> None:
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with cf.ProcessPoolExecutor(
        max_workers=min(workers, len(todo)), mp_context=context, initializer=_warm_up
    ) as pool:
        futures = [pool.submit(_run_chunk, request.to_dict(), i, str(path)) for i in todo]
        try:
            for future in cf.as_completed(futures):
                index, units, _ = future.result()
                finished(index, units)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _worker_path(path) -> str:
    """The output as Dask workers must see it: an absolute path or the URL."""
    return str(Path(path).resolve()) if isinstance(path, Path) else path


def _run_on_dask(address, workers, request, todo, path, finished) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ValueError("--dask needs dask.distributed: pip install 'yaniv-sim[dask]'") from None
    cluster = None
    try:
        if address == "local":
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)  # fmt: skip
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout="5s")
            except (OSError, TimeoutError) as error:
                raise ValueError(
                    f"--dask {address}: cannot reach the scheduler ({error})"
                ) from None
        with client:
            client.run(_warm_up)
            futures = [
                client.submit(_run_chunk, request.to_dict(), i, _worker_path(path), pure=False)
                for i in todo
            ]
            for future in as_completed(futures):
                index, units, _ = future.result()
                finished(index, units)
    finally:
        if cluster is not None:
            cluster.close()
