"""The simulation dataset on disk: Parquet parts per chunk and a manifest.

Layout of a dataset directory (documented in ``docs/data.md``)::

    manifest.json                 the request, the tool version, the chunks done
    rounds/part-000000.parquet    one file per chunk per table
    games/part-000000.parquet     (games mode only)
    decisions/part-000000.parquet
    _chunks/000000.done           written last: the chunk is complete

A part file is written under a hidden temporary name and renamed into place,
so a reader never sees half a file; a chunk counts as done only once its
marker exists, so an interrupted run is resumed by playing the chunks that
have none. Parquet readers (pandas, DuckDB, pyarrow, Dask) skip the hidden
temporary names and the ``_chunks`` folder.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
from pathlib import Path
from typing import Any

import fsspec
import pandas as pd
from fsspec.implementations.local import LocalFileSystem

MANIFEST = "manifest.json"
MARKERS = "_chunks"
TABLES = ("rounds", "games", "decisions")


def location(root) -> tuple[Any, str]:
    """The fsspec filesystem and path of a dataset folder (a local path or a URL)."""
    try:
        fs, path = fsspec.core.url_to_fs(os.fspath(root))
    except (ImportError, ValueError) as error:
        raise ValueError(f"--out {root}: cannot use this location ({error})") from None
    return fs, path.rstrip("/")


def is_local(root) -> bool:
    return "://" not in os.fspath(root) or os.fspath(root).startswith("file://")


def part_path(root, table: str, index: int) -> str:
    """Path (within the dataset's filesystem) of one chunk's part file of a table."""
    _, path = location(root)
    return posixpath.join(path, table, f"part-{index:06d}.parquet")


def _atomic_write(fs, path: str, write) -> None:
    """Write through a hidden temporary name in the same folder, then rename into place.

    ``write`` gets a local path on a local filesystem (pyarrow writes a path
    much faster than a Python file object) and an open binary file elsewhere.
    """
    folder, name = posixpath.split(path)
    fs.makedirs(folder, exist_ok=True)
    tmp = posixpath.join(folder, f".{name}.tmp-{os.getpid()}")
    if isinstance(fs, LocalFileSystem):
        write(tmp)
        os.replace(tmp, path)
        return
    with fs.open(tmp, "wb") as handle:
        write(handle)
    fs.mv(tmp, path)


def _write_bytes(data: bytes):
    def write(target) -> None:
        if isinstance(target, str):
            with open(target, "wb") as handle:
                handle.write(data)
        else:
            target.write(data)

    return write


def write_chunk(root, index: int, tables: dict[str, pd.DataFrame]) -> None:
    """Write one chunk's tables, each atomically, then its done marker."""
    fs, path = location(root)
    for name, frame in tables.items():
        _atomic_write(
            fs,
            posixpath.join(path, name, f"part-{index:06d}.parquet"),
            lambda target, frame=frame: frame.to_parquet(target, index=False, compression="zstd"),
        )
    _atomic_write(fs, posixpath.join(path, MARKERS, f"{index:06d}.done"), _write_bytes(b""))


def completed_chunks(root) -> set[int]:
    """Indices of the chunks whose every table was written."""
    fs, path = location(root)
    folder = posixpath.join(path, MARKERS)
    if not fs.isdir(folder):
        return set()
    names = [posixpath.basename(p) for p in fs.ls(folder, detail=False)]
    return {int(n[:-5]) for n in names if n.endswith(".done") and n[:-5].isdigit()}


def read_manifest(root) -> dict[str, Any] | None:
    fs, path = location(root)
    file = posixpath.join(path, MANIFEST)
    if not fs.isfile(file):
        return None
    try:
        return json.loads(fs.cat_file(file).decode("utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{root}: the manifest is not valid JSON ({error})") from None


def write_manifest(root, manifest: dict[str, Any]) -> None:
    fs, path = location(root)
    data = json.dumps(manifest, indent=2).encode("utf-8")
    _atomic_write(fs, posixpath.join(path, MANIFEST), _write_bytes(data))


def is_empty_or_missing(root) -> bool:
    """Whether ``root`` does not exist or is an empty folder."""
    fs, path = location(root)
    if not fs.exists(path):
        return True
    return fs.isdir(path) and not fs.ls(path, detail=False)


@dataclasses.dataclass
class Dataset:
    """A simulation dataset opened for analysis."""

    path: Path
    manifest: dict[str, Any]
    rounds: Any
    games: Any
    decisions: Any

    def policy_names(self) -> dict[int, str]:
        """Policy id -> spec, as used in the ``policy*`` columns."""
        return {p["id"]: p["spec"] for p in self.manifest["policies"]}


def open_dataset(path, *, lazy: bool = False) -> Dataset:
    """Open a dataset written by ``simulate``.

    Parameters
    ----------
    path : str or Path
        A local folder or an fsspec URL (``s3://...``, ``memory://...``).
    lazy : bool
        Return ``pyarrow.dataset.Dataset`` objects instead of DataFrames, for
        runs too big to load at once.

    Only chunks marked complete are read, in chunk order.
    """
    manifest = read_manifest(path)
    if manifest is None:
        raise ValueError(f"{path}: not a yaniv-sim dataset (no {MANIFEST})")
    fs, _ = location(path)
    done = sorted(completed_chunks(path))
    tables: dict[str, Any] = {}
    for name in TABLES:
        files = [part_path(path, name, i) for i in done]
        files = [f for f in files if fs.isfile(f)]
        if not files:
            tables[name] = None
        elif lazy:
            import pyarrow.dataset as ds
            import pyarrow.fs as pafs

            filesystem = pafs.PyFileSystem(pafs.FSSpecHandler(fs))
            tables[name] = ds.dataset(files, format="parquet", filesystem=filesystem)
        else:
            frames = []
            for f in files:
                with fs.open(f, "rb") as handle:
                    frames.append(pd.read_parquet(handle))
            tables[name] = pd.concat(frames, ignore_index=True)
    root = Path(path) if is_local(path) else path
    return Dataset(root, manifest, tables["rounds"], tables["games"], tables["decisions"])
