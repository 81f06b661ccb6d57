"""Run a simulation into a dataset: chunks in parallel, resumable, reproducible.

``simulate(...)`` is what ``yaniv-sim simulate`` calls. It writes the manifest,
plays every chunk that is not yet done (in this process, in a pool of worker
processes, or on a Dask cluster), each worker writing its own part files, and
writes the manifest's list of completed chunks when the run ends or is
interrupted (the done markers are the record while it runs).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import dataclasses
import hashlib
import itertools
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from yaniv_sim import storage
from yaniv_sim._version import __version__, source_digest
from yaniv_sim.engine.specs import policy_vector
from yaniv_sim.rules import PRESETS, Rules
from yaniv_sim.simulation.chunks import play_chunk
from yaniv_sim.simulation.request import SimRequest
from yaniv_sim.storage import DatasetError, DatasetFull

__all__ = ["Interrupted", "SimResult", "default_out", "simulate"]


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or a stop signal; what it kept is complete and can be resumed.

    ``signal`` is the signal's number (``signal.SIGINT`` for Ctrl-C).
    """

    def __init__(self, path, done: int, total: int, signum: int = signal.SIGINT):
        name = signal.Signals(signum).name
        super().__init__(f"interrupted ({name}): kept {done} of {total} chunks in {path}")
        self.path, self.done, self.total, self.signal = path, done, total, signum


class _Stop(KeyboardInterrupt):
    """Raised in the main thread by the SIGTERM and SIGHUP handlers."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


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
        "version": __version__,
        "source": source_digest(),
        "format": storage.FORMAT,
        "request": request.to_dict(),
        "policies": [
            {"id": i, "spec": spec, "params": policy_vector(spec).tolist()}
            for i, spec in enumerate(request.policy_names())
        ],
        "chunks": request.n_chunks,
        "completed_chunks": sorted(completed),
    }


def _check_existing(path, request: SimRequest, resume: bool) -> set[int]:
    """The chunks already done (and sound) at ``path``; refuse to mix different requests.

    Every marked chunk is checked against its marker (request, sizes,
    checksums). With ``resume`` a chunk that fails is forgotten, so it is
    played again; without it the run is refused, saying why.
    """
    manifest = storage.read_manifest(path)
    if manifest is None:  # an empty folder: simulate refused a stranger's before the lock
        return set()
    old = manifest["request"]
    new = request.to_dict()
    differ = [key for key in new if old.get(key) != new[key]]
    if manifest.get("version") != __version__:
        differ.append("version")
    if manifest.get("source") != source_digest():
        differ.append("source code")
    if manifest.get("format") != storage.FORMAT:
        differ.append("format")
    if differ:
        raise ValueError(
            f"out {path}: holds a dataset made with different settings "
            f"({', '.join(differ)}); refusing to mix them. Use a new folder"
        )
    request_id = storage.fingerprint(new)
    tables = storage.tables_of(manifest)
    done: set[int] = set()
    bad: dict[int, str] = {}
    for index in sorted(storage.marked_chunks(path)):
        if index >= request.n_chunks:
            bad[index] = f"chunk {index} is not in this request"
            continue
        problem = storage.chunk_problem(path, index, request_id, tables)
        if problem is None:
            done.add(index)
        else:
            bad[index] = problem
    if not resume:
        if bad:
            first = next(iter(bad.values()))
            raise DatasetError(
                f"out {path}: {len(bad)} chunk(s) failed their check ({first}); resume the run to "
                "play them again (resume=True)"
            )
        if done and len(done) < request.n_chunks:
            raise ValueError(
                f"out {path}: an interrupted run of this request ({len(done)} of "
                f"{request.n_chunks} chunks done); resume it (resume=True)"
            )
    for index in bad:
        storage.forget_chunk(path, index)
    return done


def _run_chunk(request_data: dict[str, Any], index: int, out: str) -> tuple[int, int, float]:
    """Play and store one chunk (runs in a worker process or on a Dask worker)."""
    start = time.perf_counter()
    request = SimRequest.from_dict(request_data)
    tables = play_chunk(request, index)
    schemas = {
        name: storage.table_schema(name, request.players, request.mode, request.branches)
        for name in tables
    }
    storage.write_chunk(out, index, tables, storage.fingerprint(request_data), schemas)
    return index, request.chunk_units(index)[1], time.perf_counter() - start


def _warm_up() -> None:
    """Load the compiled kernels in a new worker before chunks arrive."""
    from yaniv_sim.simulation import kernels  # noqa: F401


def _worker_start(parent: int) -> None:
    """A new worker process: leave stopping to the main process, and die with it.

    Ctrl-C reaches every process of the terminal's group; the main process
    stops the workers itself, so they ignore it. A worker forked after the
    main process set its own stop handlers gets the default ones back. If the
    main process dies (even by SIGKILL), the kernel kills the worker (Linux
    ``PR_SET_PDEATHSIG``); elsewhere a watchdog thread notices the new parent.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in _STOP_SIGNALS:
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    _warm_up()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(1)


_STOP_SIGNALS = tuple(name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def _stopping_on_signals():
    """SIGTERM and SIGHUP stop the run the way Ctrl-C does (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise _Stop(signum)

    old = {name: signal.signal(getattr(signal, name), stop) for name in _STOP_SIGNALS}
    try:
        yield
    finally:
        for name, handler in old.items():
            signal.signal(getattr(signal, name), handler)


@contextlib.contextmanager
def _signals_held():
    """While cleaning up, Ctrl-C and stop signals wait: nothing half-done is left behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = ("SIGINT", *_STOP_SIGNALS)
    old = {name: signal.signal(getattr(signal, name), signal.SIG_IGN) for name in names}
    try:
        yield
    finally:
        for name, handler in old.items():
            signal.signal(getattr(signal, name), handler)


def usable_workers(workers: int | None) -> tuple[int, str | None]:
    """Worker processes to start, and a note when the request was capped at the cores."""
    cores = os.cpu_count() or 1
    if workers is None:
        return cores, None
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers: {workers!r} is not allowed; use a whole number >= 1")
    if workers > cores:
        return cores, f"workers: {workers} capped at {cores}, the cores of this machine"
    return workers, None


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
        How much to play: give exactly one (1 to 2**31 - 1).
    seed : int
    workers : int, optional
        Worker processes (default: all cores; more than the cores are capped
        at the cores); 1 plays in this process.
    dask : str, optional
        ``"local"`` for a ``LocalCluster`` or a scheduler address such as
        ``"tcp://host:8786"``; needs ``pip install 'yaniv-sim[dask]'``.
    out : path or URL, optional
        Dataset folder, local or any fsspec URL the workers can reach;
        default :func:`default_out`.
    resume : bool
        Finish an interrupted run of the same request, playing again any
        chunk that is missing or fails its check.
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

    Raises
    ------
    Interrupted
        Ctrl-C, SIGTERM or SIGHUP: the workers are stopped, the manifest is
        written, and what was kept can be resumed.
    yaniv_sim.storage.DatasetBusy
        Another process is writing the same folder.
    yaniv_sim.storage.DatasetFull
        The disk filled up; the chunks kept are complete and can be resumed.
    ValueError
        A bad request, or a folder that holds something else.
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    request = SimRequest.make(rules, players, policies, rounds=rounds, games=games, seed=seed,
                              seating=seating, chunk_size=chunk_size, branches=branches,
                              branch_games=branch_games)  # fmt: skip
    workers, _ = usable_workers(workers)
    if out is None:
        path = default_out(request)
    elif storage.is_local(out):
        path = Path(os.fspath(out).removeprefix("file://"))
    else:
        path = os.fspath(out)
    # checked before the lock, which would add a file to somebody else's folder; emptiness
    # first: a writer makes the manifest before anything else, so a folder found not empty
    # has its manifest by the time it is read (no race with a writer just starting)
    if not storage.is_empty_or_missing(path) and storage.read_manifest(path) is None:
        raise ValueError(f"out {path}: exists and is not a yaniv-sim dataset; choose a new folder")
    with storage.writer_lock(path, name="out"):
        return _simulate_locked(request, path, workers, dask, resume, quiet, on_chunk)


def _simulate_locked(request, path, workers, dask, resume, quiet, on_chunk) -> SimResult:
    done = _check_existing(path, request, resume)
    storage.remove_leftovers(path)
    try:
        storage.write_manifest(path, _manifest(request, done))
    except DatasetFull:
        raise
    except OSError as error:
        raise ValueError(f"out {path}: cannot write there ({error.strerror})") from None
    todo = (i for i in range(request.n_chunks) if i not in done)
    units_todo = request.count - sum(request.chunk_units(i)[1] for i in done)
    start = time.perf_counter()
    bar = _progress(units_todo, quiet, request.mode)
    units_run = 0
    run = 0

    def finished(index: int, units: int) -> None:
        nonlocal units_run, run
        units_run += units
        run += 1
        if bar is not None:
            bar.update(units)
        if on_chunk is not None:
            on_chunk(index)

    stopped: int | None = None
    failure: BaseException | None = None
    try:
        with _stopping_on_signals():
            if dask is not None:
                _run_on_dask(dask, workers, request, todo, path, finished)
            elif workers == 1 or request.n_chunks - len(done) <= 1:
                for index in todo:
                    _, units, _ = _run_chunk(request.to_dict(), index, str(path))
                    finished(index, units)
            else:
                _run_in_processes(workers, request, todo, path, finished)
    except KeyboardInterrupt as stop:
        stopped = getattr(stop, "signum", signal.SIGINT)
    except (DatasetFull, BrokenProcessPool) as error:
        failure = error
    finally:
        with _signals_held():
            if bar is not None:
                bar.close()
            storage.remove_leftovers(path)
            kept = {i for i in storage.marked_chunks(path) if i < request.n_chunks}
            with contextlib.suppress(OSError):  # the markers are the record; this is a summary
                storage.write_manifest(path, _manifest(request, kept))
    if stopped is not None:
        raise Interrupted(path, len(kept), request.n_chunks, stopped)
    if isinstance(failure, DatasetFull):
        raise DatasetFull(
            f"{failure}; kept {len(kept)} of {request.n_chunks} chunks in {path}; free some "
            "space, then resume the run (resume=True)"
        ) from None
    if failure is not None:
        raise DatasetError(
            f"{path}: a worker process died (killed, or out of memory); kept {len(kept)} of "
            f"{request.n_chunks} chunks; resume the run (resume=True)"
        ) from None
    return SimResult(path, request, request.n_chunks, run, len(kept), units_run,
                     time.perf_counter() - start)  # fmt: skip


def _run_in_processes(workers, request, todo, path, finished) -> None:
    """Chunks on a pool of worker processes, at most two per worker queued at a time."""
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                  initializer=_worker_start, initargs=(os.getpid(),))  # fmt: skip
    data = request.to_dict()

    def submit(index):
        return pool.submit(_run_chunk, data, index, str(path))

    try:
        pending = {submit(i) for i in itertools.islice(todo, 2 * workers)}
        while pending:
            ready, pending = cf.wait(pending, timeout=0.5, return_when=cf.FIRST_COMPLETED)
            for future in ready:
                index, units, _ = future.result()
                finished(index, units)
                following = next(todo, None)
                if following is not None:
                    pending.add(submit(following))
    except BaseException:
        _stop_workers(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _stop_workers(pool: cf.ProcessPoolExecutor) -> None:
    """End the pool's processes now: a chunk half-played is played again on resume."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.terminate()
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.join(3)
            if process.is_alive():
                process.kill()
                process.join(1)


def _worker_path(path) -> str:
    """The output as Dask workers must see it: an absolute path or the URL."""
    return str(Path(path).resolve()) if isinstance(path, Path) else path


def _run_on_dask(address, workers, request, todo, path, finished) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ValueError("dask: needs dask.distributed: pip install 'yaniv-sim[dask]'") from None
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
                raise ValueError(f"dask {address}: cannot reach the scheduler ({error})") from None
        with client:
            client.run(_warm_up)
            data = request.to_dict()
            out = _worker_path(path)

            def submit(index):
                return client.submit(_run_chunk, data, index, out, pure=False)

            width = 2 * max(1, sum(client.nthreads().values()))
            queue = as_completed([submit(i) for i in itertools.islice(todo, width)])
            try:
                for future in queue:
                    index, units, _ = future.result()
                    finished(index, units)
                    following = next(todo, None)
                    if following is not None:
                        queue.add(submit(following))
            except BaseException:
                client.cancel(list(queue.futures))
                raise
    finally:
        if cluster is not None:
            cluster.close()
