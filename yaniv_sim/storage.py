"""The simulation dataset on disk: Parquet parts per chunk, checked markers, a manifest.

Layout of a dataset directory (documented in ``docs/data.md``)::

    manifest.json                 the request, the tool version, the chunks done
    rounds/part-000000.parquet    one file per chunk per table
    games/part-000000.parquet     (games mode only)
    decisions/part-000000.parquet
    _chunks/000000.done           written last: the chunk's parts, their rows and checksums
    .lock                         held by the one process writing the dataset

A part file is written under a hidden temporary name and renamed into place,
so a reader never sees half a file. A chunk counts as done only once its
marker exists; the marker names the request it belongs to and every part's
size, row count and SHA-256, so :func:`open_dataset` can prove that what it
returns is exactly what the request produced. Parquet readers (pandas,
DuckDB, pyarrow, Dask) skip the hidden temporary names, the lock and the
``_chunks`` folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fsspec
import pandas as pd
from fsspec.implementations.local import LocalFileSystem

__all__ = [
    "Dataset",
    "DatasetBusy",
    "DatasetError",
    "DatasetFull",
    "open_dataset",
]

MANIFEST = "manifest.json"
MARKERS = "_chunks"
LOCK = ".lock"
TABLES = ("rounds", "games", "decisions")
FORMAT = 2  # 2: markers hold the request fingerprint and every part's checksum
_TEMPORARY = re.compile(r"^\..+\.tmp-\d+$")


class DatasetError(ValueError):
    """A dataset that is not what its manifest says: incomplete, corrupt or mixed."""


class DatasetBusy(DatasetError):
    """Another process is writing the dataset."""


class DatasetFull(DatasetError, OSError):
    """The disk filled up while a part was written."""


def location(root) -> tuple[Any, str]:
    """The fsspec filesystem and path of a dataset folder (a local path or a URL)."""
    try:
        fs, path = fsspec.core.url_to_fs(os.fspath(root))
    except (ImportError, ValueError) as error:
        raise ValueError(f"{root}: cannot use this location ({error})") from None
    return fs, path.rstrip("/")


def is_local(root) -> bool:
    return "://" not in os.fspath(root) or os.fspath(root).startswith("file://")


def part_name(table: str, index: int) -> str:
    """A chunk's part file of a table, relative to the dataset folder."""
    return f"{table}/part-{index:06d}.parquet"


def fingerprint(request: dict[str, Any]) -> str:
    """A short digest that names a request: equal requests, equal fingerprints."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


# -- writing -----------------------------------------------------------------------


def _atomic_write(fs, path: str, data: bytes) -> None:
    """Write ``data`` through a hidden temporary name in the same folder, then rename.

    A full disk raises :class:`DatasetFull` naming the file; the temporary
    file is removed.
    """
    folder, name = posixpath.split(path)
    tmp = posixpath.join(folder, f".{name}.tmp-{os.getpid()}")
    try:
        fs.makedirs(folder, exist_ok=True)
        if isinstance(fs, LocalFileSystem):
            _write_file(tmp, data)
            os.replace(tmp, path)
        else:
            with fs.open(tmp, "wb") as handle:
                handle.write(data)
            fs.mv(tmp, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            fs.rm_file(tmp)
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DatasetFull(f"{path}: no space left on device") from None
        raise


def _write_file(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


def _parquet_bytes(frame: pd.DataFrame, schema=None) -> bytes:
    """The frame as zstd Parquet; with ``schema``, first checked against it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    if schema is not None:
        # the strings of a categorical may come as large_string (pandas 3); all else must match
        found = [(f.name, str(f.type).replace("large_string", "string")) for f in table.schema]
        if found != [(f.name, str(f.type)) for f in schema]:
            raise RuntimeError(
                f"a table does not match its declared schema: {found} against {schema}"
            )
        table = table.cast(schema.with_metadata(table.schema.metadata))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def write_chunk(
    root, index: int, tables: dict[str, pd.DataFrame], request_id: str, schemas=None
) -> None:
    """Write one chunk's tables, each atomically, then its marker with their checksums.

    ``schemas`` maps table names to their declared schema
    (:func:`table_schema`); each table must match it exactly.
    """
    fs, path = location(root)
    parts = {}
    for name, frame in tables.items():
        data = _parquet_bytes(frame, None if schemas is None else schemas[name])
        _atomic_write(fs, posixpath.join(path, part_name(name, index)), data)
        parts[name] = {
            "file": part_name(name, index),
            "rows": len(frame),
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
    marker = {"chunk": index, "request": request_id, "parts": parts}
    _atomic_write(fs, _marker_path(path, index), json.dumps(marker, indent=1).encode("utf-8"))


def write_manifest(root, manifest: dict[str, Any]) -> None:
    fs, path = location(root)
    data = json.dumps(manifest, indent=2).encode("utf-8")
    _atomic_write(fs, posixpath.join(path, MANIFEST), data)


def remove_leftovers(root) -> int:
    """Remove temporary files a killed writer left; how many were removed.

    Call only while holding the dataset's lock (no writer is running).
    """
    fs, path = location(root)
    removed = 0
    for folder in (path, *(posixpath.join(path, t) for t in (*TABLES, MARKERS))):
        if not fs.isdir(folder):
            continue
        for file in fs.ls(folder, detail=False):
            if _TEMPORARY.match(posixpath.basename(file)):
                with contextlib.suppress(FileNotFoundError):
                    fs.rm_file(file)
                removed += 1
    return removed


def forget_chunk(root, index: int) -> None:
    """Remove a chunk's marker, so that it counts as not done and is played again."""
    fs, path = location(root)
    with contextlib.suppress(FileNotFoundError):
        fs.rm_file(_marker_path(path, index))


# -- one writer ----------------------------------------------------------------------


@contextlib.contextmanager
def writer_lock(root, name: str = "") -> Iterator[None]:
    """Hold the dataset's writer lock; :class:`DatasetBusy` if another process holds it.

    On a local folder this is an OS lock (``fcntl.flock``) on ``.lock``: the
    operating system releases it when its holder ends, however it ends, so a
    dead writer never blocks the next one. On other fsspec URLs there is no
    lock (see docs/data.md): one writer at a time is the caller's to ensure,
    and the markers' request fingerprints and checksums still catch mixed or
    overwritten parts when the dataset is opened.
    """
    if not is_local(root):
        yield
        return
    import fcntl

    _, path = location(root)
    label = f"{name} {root}" if name else f"{root}"
    try:
        os.makedirs(path, exist_ok=True)
        fd = os.open(os.path.join(path, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    except (FileExistsError, NotADirectoryError):
        raise ValueError(f"{label}: a file is in the way; choose a folder") from None
    except OSError as error:
        raise ValueError(f"{label}: cannot write there ({error.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
            raise DatasetBusy(
                f"{label}: another simulation (process {holder}) is writing this dataset; "
                "wait for it to finish, or choose another folder"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        yield
    finally:
        os.close(fd)


# -- reading -------------------------------------------------------------------------


def _marker_path(path: str, index: int) -> str:
    return posixpath.join(path, MARKERS, f"{index:06d}.done")


def marked_chunks(root) -> set[int]:
    """Indices of the chunks that have a marker (not yet checked)."""
    fs, path = location(root)
    folder = posixpath.join(path, MARKERS)
    if not fs.isdir(folder):
        return set()
    names = [posixpath.basename(p) for p in fs.ls(folder, detail=False)]
    return {int(n[:-5]) for n in names if n.endswith(".done") and n[:-5].isdigit()}


def read_manifest(root) -> dict[str, Any] | None:
    """The manifest, checked for shape; ``None`` if there is none."""
    fs, path = location(root)
    file = posixpath.join(path, MANIFEST)
    if fs.isdir(path) is False and fs.exists(path):
        raise ValueError(f"{root}: exists and is not a folder")
    if not fs.isfile(file):
        return None
    try:
        manifest = json.loads(fs.cat_file(file).decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DatasetError(f"{root}: {MANIFEST} is not valid JSON ({error})") from None
    problem = _manifest_problem(manifest)
    if problem:
        raise DatasetError(f"{root}: {MANIFEST} is not a yaniv-sim manifest ({problem})")
    return manifest


def _manifest_problem(manifest) -> str | None:
    if not isinstance(manifest, dict):
        return f"expected a JSON object, found {type(manifest).__name__}"
    if manifest.get("tool") != "yaniv-sim":
        return "'tool' is not \"yaniv-sim\""
    for key, kind in (("request", dict), ("policies", list), ("chunks", int)):
        if not isinstance(manifest.get(key), kind) or isinstance(manifest.get(key), bool):
            return f"'{key}' is missing or not a JSON {'object' if kind is dict else kind.__name__}"
    if manifest["chunks"] < 1:
        return "'chunks' is below 1"
    for policy in manifest["policies"]:
        if not isinstance(policy, dict) or not {"id", "spec"} <= set(policy):
            return "a 'policies' entry lacks its id or spec"
    return None


def _read_marker(fs, path: str, index: int) -> dict[str, Any] | None:
    """A chunk's marker, or ``None`` when it is missing or not a valid marker."""
    try:
        marker = json.loads(fs.cat_file(_marker_path(path, index)).decode("utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    if (
        not isinstance(marker, dict)
        or marker.get("chunk") != index
        or not isinstance(marker.get("parts"), dict)
    ):
        return None
    return marker


def _marker_problem(marker, index: int, request_id: str, tables: tuple[str, ...]) -> str | None:
    """What is wrong with a chunk's marker itself (``None``: nothing)."""
    if marker is None:
        return f"chunk {index}: its marker {MARKERS}/{index:06d}.done is unreadable"
    if marker.get("request") != request_id:
        return f"chunk {index}: written by another request than the manifest's"
    if set(marker["parts"]) != set(tables):
        return f"chunk {index}: its marker lists {sorted(marker['parts'])}, not {list(tables)}"
    return None


def chunk_problem(root, index: int, request_id: str, tables: tuple[str, ...]) -> str | None:
    """What is wrong with a marked chunk (``None``: nothing).

    Checks that the marker belongs to ``request_id`` and lists exactly
    ``tables``, and that each part exists with the recorded size and SHA-256.
    """
    fs, path = location(root)
    marker = _read_marker(fs, path, index)
    problem = _marker_problem(marker, index, request_id, tables)
    if problem is not None:
        return problem
    for table in tables:
        try:
            _part_bytes(fs, path, index, marker["parts"][table])
        except DatasetError as error:
            return str(error)
    return None


def _part_bytes(fs, path: str, index: int, part: dict[str, Any], *, read: bool = True):
    """A part's bytes after checking them against its marker entry (``None`` without read)."""
    name = part.get("file", "?")
    file = posixpath.join(path, name)
    try:
        size = fs.size(file)
    except FileNotFoundError:
        raise DatasetError(f"{name} (chunk {index}) is missing") from None
    if size != part.get("bytes"):
        raise DatasetError(
            f"{name} (chunk {index}) has {size:,} bytes, not the {part.get('bytes'):,} written "
            "(truncated or overwritten)"
        )
    if not read:
        return None
    data = fs.cat_file(file)
    if hashlib.sha256(data).hexdigest() != part.get("sha256"):
        raise DatasetError(f"{name} (chunk {index}) fails its checksum (the file is corrupt)")
    return data


def tables_of(manifest: dict[str, Any]) -> tuple[str, ...]:
    """The tables a dataset of this manifest holds."""
    mode = manifest["request"].get("mode")
    return TABLES if mode == "games" else ("rounds", "decisions")


def is_empty_or_missing(root) -> bool:
    """Whether ``root`` does not exist or is an empty folder.

    A writer's lock and temporary files do not count: a dataset that another
    writer has only just begun is refused by the lock, not taken for a
    stranger's folder.
    """
    fs, path = location(root)
    if not fs.exists(path):
        return True
    if not fs.isdir(path):
        return False
    names = (posixpath.basename(p) for p in fs.ls(path, detail=False))
    return all(name == LOCK or _TEMPORARY.match(name) for name in names)


@dataclasses.dataclass
class Dataset:
    """A simulation dataset opened for analysis.

    ``chunks`` lists the chunks it holds, ``chunks_total`` how many the
    request has; ``complete`` is true when it holds them all.
    """

    path: Path | str
    manifest: dict[str, Any]
    rounds: Any
    games: Any
    decisions: Any
    chunks: tuple[int, ...] = ()
    chunks_total: int = 0

    @property
    def complete(self) -> bool:
        return len(self.chunks) == self.chunks_total

    def policy_names(self) -> dict[int, str]:
        """Policy id -> spec, as used in the ``policy*`` columns."""
        return {p["id"]: p["spec"] for p in self.manifest["policies"]}


def open_dataset(
    path, *, lazy: bool = False, partial: bool = False, verify: bool = True
) -> Dataset:
    """Open a dataset written by ``simulate``, checked against its manifest.

    Parameters
    ----------
    path : str or Path
        A local folder or an fsspec URL (``s3://...``, ``memory://...``).
    lazy : bool
        Return ``pyarrow.dataset.Dataset`` objects instead of DataFrames, for
        runs too big to load at once.
    partial : bool
        Return the chunks that are done when the dataset is incomplete
        (``Dataset.chunks`` says which). By default an incomplete dataset is
        refused with :class:`DatasetError`.
    verify : bool
        Check every part's SHA-256 as it is read (default). ``False`` checks
        only that every part exists with its recorded size.

    Raises
    ------
    DatasetError
        No or a malformed manifest; an incomplete dataset (without
        ``partial``); a chunk whose marker belongs to another request, or a
        part file missing, truncated or failing its checksum: the message
        names the file and the chunk.
    """
    manifest = read_manifest(path)
    if manifest is None:
        raise DatasetError(f"{path}: not a yaniv-sim dataset (no {MANIFEST})")
    if manifest.get("format") != FORMAT:
        raise DatasetError(
            f"{path}: written in an older dataset format without checksums; "
            "simulate it again into a new folder"
        )
    fs, root = location(path)
    total = manifest["chunks"]
    request_id = fingerprint(manifest["request"])
    tables = tables_of(manifest)
    done = sorted(i for i in marked_chunks(path) if i < total)
    if len(done) < total and not partial:
        raise DatasetError(
            f"{path}: incomplete, {len(done)} of {total} chunks done; finish it by running "
            "the same simulation again with resume (yaniv-sim simulate ... --resume), or "
            "open it with partial=True for the chunks that are done"
        )
    markers = {}
    for index in done:
        marker = _read_marker(fs, root, index)
        problem = _marker_problem(marker, index, request_id, tables)
        if problem:
            raise DatasetError(f"{path}: {problem}; {_REPAIR}")
        markers[index] = marker
    result: dict[str, Any] = {}
    for name in TABLES:
        if name not in tables:
            result[name] = None
        elif lazy:
            result[name] = _lazy_table(fs, path, root, name, markers, verify)
        else:
            result[name] = _load_table(path, fs, root, name, markers, verify)
    where = Path(path) if is_local(path) else path
    return Dataset(where, manifest, result["rounds"], result["games"], result["decisions"],
                   tuple(done), total)  # fmt: skip


_REPAIR = "run the same simulation again with resume to re-play it"


def _checked(path, fs, root, index, part, verify):
    try:
        return _part_bytes(fs, root, index, part, read=verify)
    except DatasetError as error:
        raise DatasetError(f"{path}: {error}; {_REPAIR}") from None


def _load_table(path, fs, root, name, markers, verify) -> pd.DataFrame | None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for index, marker in markers.items():
        part = marker["parts"][name]
        data = _checked(path, fs, root, index, part, verify)
        try:
            if data is None:
                with fs.open(posixpath.join(root, part["file"]), "rb") as handle:
                    table = pq.read_table(handle)
            else:
                table = pq.read_table(pa.BufferReader(data))
        except (OSError, pa.ArrowException) as error:
            raise DatasetError(
                f"{path}: {part['file']} (chunk {index}) cannot be read ({error}); {_REPAIR}"
            ) from None
        if table.num_rows != part["rows"]:
            raise DatasetError(
                f"{path}: {part['file']} (chunk {index}) holds {table.num_rows:,} rows, not "
                f"the {part['rows']:,} written; {_REPAIR}"
            )
        tables.append(table)
    if not tables:
        return None
    return pa.concat_tables(tables).to_pandas()


def _lazy_table(fs, path, root, name, markers, verify):
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs

    files = []
    for index, marker in markers.items():
        part = marker["parts"][name]
        _checked(path, fs, root, index, part, verify)
        files.append(posixpath.join(root, part["file"]))
    if not files:
        return None
    filesystem = pafs.PyFileSystem(pafs.FSSpecHandler(fs))
    return ds.dataset(files, format="parquet", filesystem=filesystem)


# -- the declared schema ---------------------------------------------------------------

OUTCOMES = ("yaniv", "assaf", "slapdown", "void", "stock_out")

# Every table's columns in order, as (name, type, when). ``{s}`` expands to
# each seat, ``{k}`` to each opponent 1 .. players-1; ``when`` is "all",
# "games" (games mode only) or "branches" (call-or-wait branch runs only).
# docs/data.md's table reference documents exactly these (a test checks it).
COLUMNS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "rounds": (
        ("game", "int32", "all"),
        ("round", "int32", "all"),
        ("players", "int8", "all"),
        ("starter", "int8", "all"),
        ("caller", "int8", "all"),
        ("caller_value", "int8", "all"),
        ("outcome", "category", "all"),
        ("winner", "int8", "all"),
        ("turns", "int16", "all"),
        ("reshuffles", "int16", "all"),
        ("hand_{s}", "int16", "all"),
        ("score_{s}", "int16", "all"),
        ("total_{s}", "int16", "games"),
        ("policy_{s}", "int8", "all"),
    ),
    "games": (
        ("game", "int32", "all"),
        ("players", "int8", "all"),
        ("rounds", "int16", "all"),
        ("winner", "int8", "all"),
        ("winner_policy", "int8", "all"),
        ("total_{s}", "int16", "all"),
        ("landings_{s}", "int16", "all"),
        ("out_round_{s}", "int16", "all"),
        ("place_{s}", "int8", "all"),
        ("policy_{s}", "int8", "all"),
    ),
    "decisions": (
        ("game", "int32", "all"),
        ("round", "int32", "all"),
        ("turn", "int16", "all"),
        ("seat", "int8", "all"),
        ("policy", "int8", "all"),
        ("hand_value", "int8", "all"),
        ("hand_cards", "int8", "all"),
        ("opp{k}_cards", "int8", "all"),
        ("opp{k}_took", "int8", "all"),
        ("opp{k}_took_value", "int8", "all"),
        ("fewest_opponent_cards", "int8", "all"),
        ("called", "bool", "all"),
        ("lowest_opponent", "int8", "all"),
        ("points_if_call", "int16", "branches"),
        ("points_if_wait", "int16", "branches"),
        ("others_if_call", "int16", "branches"),
        ("others_if_wait", "int16", "branches"),
        ("win_if_call", "int8", "branches"),
        ("win_if_wait", "int8", "branches"),
        ("score_{s}_if_call", "int16", "branches"),
        ("score_{s}_if_wait", "int16", "branches"),
        ("round_winner_if_call", "int8", "branches"),
        ("round_winner_if_wait", "int8", "branches"),
    ),
}


def table_columns(table: str, players: int, mode: str, branches: bool) -> list[tuple[str, str]]:
    """The (column, type) pairs of a table, in order, for one request's shape."""
    wanted = {"all", mode} | ({"branches"} if branches else set())
    columns = []
    for name, kind, when in COLUMNS[table]:
        if when not in wanted:
            continue
        if "{s}" in name:
            columns += [(name.format(s=s), kind) for s in range(players)]
        elif "{k}" in name:
            columns += [(name.format(k=k), kind) for k in range(1, players)]
        else:
            columns.append((name, kind))
    return columns


def table_schema(table: str, players: int, mode: str, branches: bool):
    """The declared ``pyarrow.Schema`` of a table (``outcome``: dictionary of strings)."""
    import pyarrow as pa

    types = {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "bool": pa.bool_(),
             "category": pa.dictionary(pa.int8(), pa.string())}  # fmt: skip
    return pa.schema(
        [(name, types[kind]) for name, kind in table_columns(table, players, mode, branches)]
    )
