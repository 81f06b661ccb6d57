"""Datasets that never lie: every fault either is refused or repaired by resume.

Each test breaks a dataset the way a user's machine might (a deleted or
damaged part, a lost marker, a second writer, a kill signal, a full disk, an
absurd request) and checks that ``open_dataset`` refuses it with a message
naming the file, and that resuming gives exactly the data of an
uninterrupted run.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from yaniv_sim import Rules, storage
from yaniv_sim.cli import main
from yaniv_sim.runs import simulate
from yaniv_sim.storage import DatasetBusy, DatasetError, open_dataset

RULES = Rules.preset("standard")
REQUEST = dict(rounds=6_000, seed=11, chunk_size=2_000)  # three chunks


def _make(out, workers=1, resume=False, **changes):
    request = {**REQUEST, **changes}
    return simulate(RULES, 3, "max-shed", out=out, workers=workers, resume=resume, **request)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("integrity") / "reference"
    _make(out)
    return open_dataset(out)


@pytest.fixture
def copy(reference, tmp_path):
    """A fresh copy of the finished reference dataset to break."""
    out = tmp_path / "copy"
    shutil.copytree(reference.path, out)
    return out


def _same_as(reference, out):
    data = open_dataset(out)
    assert data.complete and data.chunks == (0, 1, 2)
    for name in ("rounds", "decisions"):
        pd.testing.assert_frame_equal(getattr(data, name), getattr(reference, name))


def _temporaries(out: Path) -> list[Path]:
    return [p for p in out.rglob(".*") if ".tmp-" in p.name]


# -- damaged parts -------------------------------------------------------------------


def test_a_deleted_part_is_refused_and_resume_replays_its_chunk(reference, copy):
    (copy / "decisions" / "part-000001.parquet").unlink()
    with pytest.raises(
        DatasetError, match=r"decisions/part-000001\.parquet \(chunk 1\) is missing"
    ):
        open_dataset(copy)
    with pytest.raises(DatasetError, match="failed their check"):
        _make(copy)
    result = _make(copy, resume=True)
    assert result.chunks_run == 1 and result.complete
    _same_as(reference, copy)


def test_flipped_bytes_fail_the_checksum(reference, copy):
    part = copy / "rounds" / "part-000002.parquet"
    data = bytearray(part.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 16] = bytes(b ^ 0xFF for b in data[middle : middle + 16])
    part.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match=r"rounds/part-000002\.parquet \(chunk 2\) fails its"):
        open_dataset(copy)
    assert _make(copy, resume=True).chunks_run == 1
    _same_as(reference, copy)


def test_a_truncated_part_is_named(reference, copy):
    part = copy / "rounds" / "part-000000.parquet"
    part.write_bytes(part.read_bytes()[:-100])
    for verify in (True, False):
        with pytest.raises(DatasetError, match=r"part-000000\.parquet \(chunk 0\) has .*truncated"):
            open_dataset(copy, verify=verify)
    assert _make(copy, resume=True).chunks_run == 1
    _same_as(reference, copy)


def test_a_part_swapped_in_from_another_request_is_refused(reference, copy, tmp_path):
    other = tmp_path / "other"
    _make(other, seed=12)
    for name in ("rounds", "decisions", "_chunks"):
        file = "000001.done" if name == "_chunks" else "part-000001.parquet"
        shutil.copy(other / name / file, copy / name / file)
    with pytest.raises(DatasetError, match="chunk 1: written by another request"):
        open_dataset(copy)
    assert _make(copy, resume=True).chunks_run == 1
    _same_as(reference, copy)


# -- completeness --------------------------------------------------------------------


def test_a_deleted_marker_makes_the_dataset_incomplete(reference, copy):
    (copy / "_chunks" / "000001.done").unlink()
    with pytest.raises(DatasetError, match=r"incomplete, 2 of 3 chunks done.*--resume"):
        open_dataset(copy)
    part = open_dataset(copy, partial=True)
    assert not part.complete and part.chunks == (0, 2) and part.chunks_total == 3
    # both tables hold the same chunks: rounds 0-1999 and 4000-5999, nothing of chunk 1
    for table in (part.rounds, part.decisions):
        assert set(table["round"] // 2_000) == {0, 2}
    assert len(part.rounds) == 4_000
    assert len(part.decisions) == (reference.decisions["round"] // 2_000 != 1).sum()
    with pytest.raises(ValueError, match="interrupted run"):
        _make(copy)
    assert _make(copy, resume=True).chunks_run == 1
    _same_as(reference, copy)


def test_other_code_may_not_add_to_a_dataset(copy):
    """Rows made by an edited checkout of the same version would not be the request's rows."""
    (copy / "_chunks" / "000001.done").unlink()
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["source"] = "0123456789abcdef"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=r"different settings \(source code\)"):
        _make(copy, resume=True)


@pytest.mark.parametrize("text", ["[]", '{"tool": "yaniv-sim", "request": 5}', "{not json"])
def test_a_malformed_manifest_is_a_clear_error(copy, text):
    (copy / "manifest.json").write_text(text)
    with pytest.raises(DatasetError, match="manifest"):
        open_dataset(copy)
    with pytest.raises(DatasetError, match="manifest"):
        _make(copy)
    result = CliRunner().invoke(main, ["simulate", "--players", "3", "--rounds", "6000",
                                       "--seed", "11", "--out", str(copy)])  # fmt: skip
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "manifest.json" in result.output
    assert "Traceback" not in result.output


def test_resume_removes_temporary_leftovers(reference, copy):
    (copy / "_chunks" / "000002.done").unlink()
    for name in ("rounds/.part-000002.parquet.tmp-123", "_chunks/.000002.done.tmp-9",
                 ".manifest.json.tmp-77"):  # fmt: skip
        (copy / name).write_bytes(b"half written")
    assert _make(copy, resume=True).chunks_run == 1
    assert _temporaries(copy) == []
    _same_as(reference, copy)


# -- one writer ----------------------------------------------------------------------


def _writer(out, seed, barrier, results):
    barrier.wait()
    try:
        _make(out, seed=seed)
        results.put((seed, "ok"))
    except ValueError as error:
        results.put((seed, str(error)))


@pytest.mark.parametrize("trial", range(3))
def test_two_writers_released_together_leave_one_request(reference, tmp_path, trial):
    out = tmp_path / "contested"
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(2), context.Queue()
    seeds = (11, 12) if trial % 2 == 0 else (12, 11)
    writers = [context.Process(target=_writer, args=(out, s, barrier, results)) for s in seeds]
    for process in writers:
        process.start()
    outcome = dict(results.get(timeout=300) for _ in writers)
    for process in writers:
        process.join(30)
    winners = [seed for seed, text in outcome.items() if text == "ok"]
    assert len(winners) == 1, outcome
    (loser,) = set(seeds) - set(winners)
    assert "another simulation" in outcome[loser] or "different settings" in outcome[loser]
    data = open_dataset(out)
    assert data.manifest["request"]["seed"] == winners[0]
    if winners[0] == 11:
        _same_as(reference, out)
    else:
        fresh = tmp_path / "fresh"
        _make(fresh, seed=12)
        pd.testing.assert_frame_equal(data.rounds, open_dataset(fresh).rounds)
        pd.testing.assert_frame_equal(data.decisions, open_dataset(fresh).decisions)


def test_a_second_writer_is_refused_and_a_dead_one_blocks_nothing(tmp_path):
    out = tmp_path / "locked"
    with storage.writer_lock(out):
        with pytest.raises(DatasetBusy, match=f"process {os.getpid()}"):
            _make(out)
        result = CliRunner().invoke(main, ["simulate", "--rounds", "10", "--out", str(out)])
        assert result.exit_code == 1 and "another simulation" in result.output
    # a writer killed while holding the lock: the OS frees it
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom yaniv_sim import storage\n"
        f"with storage.writer_lock({str(out)!r}):\n    print('held', flush=True)\n"
        "    time.sleep(600)")], stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(DatasetBusy):
        _make(out)
    holder.kill()
    holder.wait(10)
    holder.stdout.close()
    assert _make(out).complete


# -- bounded requests ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--rounds", "100000000000000000000"], "--rounds: 100000000000000000000 is more than"),
        (["--games", "2147483648"], "use 1 to 2,147,483,647"),
        (["--rounds", "10000000", "--chunk-size", "1"], "--chunk-size: 1 makes 10,000,000 chunks"),
    ],
)
def test_an_absurd_request_is_refused_at_once(args, fragment, tmp_path):
    start = time.perf_counter()
    result = CliRunner().invoke(main, ["simulate", *args, "--out", str(tmp_path / "x")])
    assert time.perf_counter() - start < 5
    assert result.exit_code == 1 and fragment in result.output, result.output
    assert result.output.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_more_workers_than_cores_are_capped_with_a_note(tmp_path):
    args = ["--rounds", "300", "--chunk-size", "100", "--workers", "1000"]
    result = CliRunner().invoke(main, ["simulate", *args, "--out", str(tmp_path / "w")])
    assert result.exit_code == 0, result.output
    cores = os.cpu_count()
    assert f"note: --workers: 1000 capped at {cores}, the cores of this machine" in result.output


# -- a full disk ---------------------------------------------------------------------


def test_a_full_disk_names_the_file_and_the_chunks_kept(reference, tmp_path, monkeypatch):
    """The disk fills while chunk 1 is written (ENOSPC injected at the write)."""
    out = tmp_path / "full"
    real = storage._write_file
    calls = []

    def write(path, data):
        calls.append(path)
        if "part-000001" in path and "decisions" in path:
            with open(path, "wb") as handle:
                handle.write(data[:10])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(storage, "_write_file", write)
    with pytest.raises(storage.DatasetFull) as caught:
        _make(out)
    message = str(caught.value)
    assert "decisions/part-000001.parquet: no space left on device" in message
    assert "kept 1 of 3 chunks" in message and "resume" in message
    assert _temporaries(out) == []
    monkeypatch.setattr(storage, "_write_file", real)
    assert _make(out, resume=True).chunks_run == 2
    _same_as(reference, out)


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True)  # fmt: skip
    return done.returncode == 0


@pytest.mark.slow
def test_a_real_full_disk_through_the_command_line(reference, tmp_path):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "120k"):
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    try:
        out = disk / "ds"
        args = [sys.executable, "-m", "yaniv_sim", "simulate", "--players", "3", "--rounds",
                "6000", "--seed", "11", "--chunk-size", "2000", "--workers", "2",
                "--out", str(out)]  # fmt: skip
        done = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert done.returncode == 1, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "no space left on device" in lines[0], done.stderr
        # the file that did not fit: a part or a marker, wherever the disk filled up
        assert re.search(rf"{re.escape(str(out))}/\S+: no space left on device", lines[0])
        assert "chunks in" in lines[0] and "--resume" in lines[0]
        kept = len(storage.marked_chunks(out))
        assert f"kept {kept} of 3 chunks" in lines[0] and kept < 3
        assert _temporaries(out) == []
        subprocess.run(["mount", "-o", "remount,size=50m", str(disk)], check=True)
        again = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        _same_as(reference, out)
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


# -- signals -------------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _rss_mb(pid: int) -> float:
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _start(out, *args):
    command = [sys.executable, "-m", "yaniv_sim", "simulate", "--workers", "2", "--out", str(out),
               *args]  # fmt: skip
    # as from a terminal: Ctrl-C acts even when the tests themselves were started in the
    # background (a shell's background job inherits SIGINT ignored, and so would the run)
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_default_sigint)  # fmt: skip


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for(condition, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


pytestmark_linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")


@pytestmark_linux
@pytest.mark.slow
def test_a_huge_request_streams_in_flat_memory_and_sigterm_stops_it_cleanly(tmp_path):
    out = tmp_path / "huge"
    run = _start(out, "--rounds", "2000000000")
    try:
        _wait_for(lambda: len(storage.marked_chunks(out)) >= 2)
        workers = _children(run.pid)
        assert workers, "the run plays in worker processes"
        samples = []
        for _ in range(12):
            samples.append(_rss_mb(run.pid))
            time.sleep(0.5)
        assert max(samples) - samples[0] < 20, samples
        assert max(samples) < 400, samples
        run.send_signal(signal.SIGTERM)
        _, stderr = run.communicate(timeout=60)
    finally:
        run.kill()
    assert run.returncode == 128 + signal.SIGTERM
    kept = len(storage.marked_chunks(out))
    assert stderr.strip().splitlines()[-1] == (
        f"interrupted (SIGTERM): kept {kept} of 20000 chunks in {out}; "
        "run the same command with --resume to finish"
    )
    _wait_for(lambda: not any(_alive(w) for w in workers), seconds=5)
    assert _temporaries(out) == []
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["completed_chunks"] == sorted(storage.marked_chunks(out))
    partial = open_dataset(out, partial=True)
    assert len(partial.rounds) == 100_000 * kept and not partial.complete


@pytestmark_linux
@pytest.mark.slow
@pytest.mark.parametrize("stop", ["SIGHUP", "SIGKILL", "Ctrl-C three times"])
def test_a_stopped_or_killed_run_leaves_no_worker_and_resumes_to_the_same_data(
    tmp_path, stop, uninterrupted
):
    out = tmp_path / "stopped"
    args = ("--players", "3", "--rounds", "1000000", "--seed", "3", "--chunk-size", "5000")
    run = _start(out, *args)
    try:
        _wait_for(lambda: len(storage.marked_chunks(out)) >= 3)
        workers = _children(run.pid)
        assert workers, "the run plays in worker processes"
        if stop.startswith("Ctrl-C"):
            # a terminal sends SIGINT to every process of the group, workers too
            for _ in range(3):
                os.killpg(run.pid, signal.SIGINT)
                time.sleep(0.05)
        else:
            run.send_signal(getattr(signal, stop))
        _, stderr = run.communicate(timeout=60)
    finally:
        run.kill()
    number = signal.SIGINT if stop.startswith("Ctrl-C") else getattr(signal, stop)
    assert run.returncode in (128 + number, -number)
    _wait_for(lambda: not any(_alive(w) for w in workers), seconds=5)
    kept = len(storage.marked_chunks(out))
    assert 3 <= kept < 200, "the run was stopped part-way"
    if stop != "SIGKILL":
        name = signal.Signals(number).name
        assert stderr.strip().splitlines() == [
            f"interrupted ({name}): kept {kept} of 200 chunks in {out}; "
            "run the same command with --resume to finish"
        ]
        assert _temporaries(out) == []
    with pytest.raises(DatasetError, match=f"incomplete, {kept} of 200"):
        open_dataset(out)
    resumed = subprocess.run([sys.executable, "-m", "yaniv_sim", "simulate", *args, "--out",
                              str(out), "--resume", "--quiet"], capture_output=True, text=True,
                             timeout=600)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert _temporaries(out) == []
    resumed = open_dataset(out)
    pd.testing.assert_frame_equal(resumed.rounds, uninterrupted.rounds)
    pd.testing.assert_frame_equal(resumed.decisions, uninterrupted.decisions)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole") / "whole"
    simulate(RULES, 3, "max-shed", rounds=1_000_000, seed=3, chunk_size=5_000, out=out,
             workers=2)  # fmt: skip
    return open_dataset(out)
