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
from pathlib import Path
from typing import Any

import pandas as pd

MANIFEST = "manifest.json"
MARKERS = "_chunks"
TABLES = ("rounds", "games", "decisions")


def part_path(root: Path, table: str, index: int) -> Path:
    return Path(root) / table / f"part-{index:06d}.parquet"


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_chunk(root: Path, index: int, tables: dict[str, pd.DataFrame]) -> None:
    """Write one chunk's tables, each atomically, then its done marker."""
    root = Path(root)
    for name, frame in tables.items():
        path = part_path(root, name, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
        frame.to_parquet(tmp, index=False, compression="zstd")
        os.replace(tmp, path)
    (root / MARKERS).mkdir(parents=True, exist_ok=True)
    _atomic_write_bytes(root / MARKERS / f"{index:06d}.done", b"")


def completed_chunks(root: Path) -> set[int]:
    """Indices of the chunks whose every table was written."""
    folder = Path(root) / MARKERS
    if not folder.is_dir():
        return set()
    return {int(p.stem) for p in folder.glob("*.done") if p.stem.isdigit()}


def read_manifest(root: Path) -> dict[str, Any] | None:
    path = Path(root) / MANIFEST
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: the manifest is not valid JSON ({error})") from None


def write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    _atomic_write_bytes(root / MANIFEST, json.dumps(manifest, indent=2).encode("utf-8"))


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
    lazy : bool
        Return ``pyarrow.dataset.Dataset`` objects instead of DataFrames, for
        runs too big to load at once.

    Only chunks marked complete are read, in chunk order.
    """
    root = Path(path)
    manifest = read_manifest(root)
    if manifest is None:
        raise ValueError(f"{root}: not a yaniv-sim dataset (no {MANIFEST})")
    done = sorted(completed_chunks(root))
    tables: dict[str, Any] = {}
    for name in TABLES:
        files = [part_path(root, name, i) for i in done if part_path(root, name, i).is_file()]
        if not files:
            tables[name] = None
        elif lazy:
            import pyarrow.dataset as ds

            tables[name] = ds.dataset([str(f) for f in files], format="parquet")
        else:
            tables[name] = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    return Dataset(root, manifest, tables["rounds"], tables["games"], tables["decisions"])
