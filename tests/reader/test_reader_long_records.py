"""Records longer than the reader's chunk buffer, lengths no record can have, and files that
are not regular: each loads what is intact or says what it skipped (file and byte offset).

The logdirs are written by the TF-free writer; the long and damaged records are framed by
hand, so the expected offsets come from what was written, not from the reader.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from support.tui import write_reference

from reader import CorruptRecordError, open_logdir
from reader.io.cursors import CHUNK
from reader.io.records import read_record
from reader.io.tfrecord import MAX_RECORD, frame_record, masked_crc32c
from reader.proto import tfdbg_events_pb2 as pb


def one(d: Path, suffix: str) -> Path:
    (path,) = d.glob(f"*.{suffix}")
    return path


def source_record(path: str, n_bytes: int) -> bytes:
    """A framed source-file record of about `n_bytes` bytes (a program of 100-byte lines)."""
    lines = [f"x{i} = {i}".ljust(100) for i in range(n_bytes // 100)]
    ev = pb.DebugEvent(wall_time=1.0, source_file=pb.SourceFile(file_path=path,
                                                                host_name="host", lines=lines))
    return frame_record(ev.SerializeToString())


def header(length: int) -> bytes:
    raw = struct.pack("<Q", length)
    return raw + struct.pack("<I", masked_crc32c(raw))


@pytest.fixture
def logdir_dir(tmp_path: Path) -> Path:
    d = tmp_path / "ld"
    write_reference(d)
    return d


def test_record_longer_than_a_chunk_loads_once_complete(logdir_dir: Path) -> None:
    before = open_logdir(str(logdir_dir)).num_source_files
    src = one(logdir_dir, "source_files")
    start = src.stat().st_size
    big = source_record("/big.py", CHUNK + CHUNK // 2)
    assert len(big) > CHUNK
    with open(src, "ab") as f:
        f.write(big[: len(big) // 2])  # still being written
    logdir = open_logdir(str(logdir_dir))
    assert logdir.num_source_files == before
    assert logdir.warnings == []
    assert logdir.file_cursor(0, "source_files").offset == start
    with open(src, "ab") as f:
        f.write(big[len(big) // 2:])
    logdir.update()
    assert logdir.num_source_files == before + 1
    assert logdir.warnings == []
    assert logdir.file_cursor(0, "source_files").offset == start + len(big)


def test_long_record_with_bad_crc_is_skipped_and_reading_goes_on(logdir_dir: Path) -> None:
    before = open_logdir(str(logdir_dir)).num_source_files
    src = one(logdir_dir, "source_files")
    start = src.stat().st_size
    big = bytearray(source_record("/big.py", CHUNK + 1000))
    big[len(big) // 2] ^= 0xFF
    with open(src, "ab") as f:
        f.write(big)
        f.write(source_record("/after.py", 1000))
    logdir = open_logdir(str(logdir_dir))
    assert logdir.num_source_files == before + 1  # the record after the damaged one
    assert logdir.corrupt_records == 1
    assert any(src.name in w and f"byte {start} " in w for w in logdir.warnings), logdir.warnings


@pytest.mark.parametrize("length", [MAX_RECORD + 1, 1 << 40, (1 << 64) - 1])
def test_impossible_length_is_damage_not_a_record_being_written(logdir_dir: Path,
                                                                length: int) -> None:
    clean = open_logdir(str(logdir_dir))
    traces = one(logdir_dir, "graph_execution_traces")
    start = traces.stat().st_size
    with open(traces, "ab") as f:
        f.write(header(length) + bytes(64))
    logdir = open_logdir(str(logdir_dir))
    assert len(logdir.traces) == len(clean.traces)  # every record before it
    assert any(traces.name in w and f"byte {start} " in w and str(length) in w
               for w in logdir.warnings), logdir.warnings
    assert logdir.file_cursor(0, "graph_execution_traces").stopped


def test_length_up_to_the_bound_is_still_being_written(logdir_dir: Path) -> None:
    traces = one(logdir_dir, "graph_execution_traces")
    with open(traces, "ab") as f:
        f.write(header(MAX_RECORD) + bytes(64))
    logdir = open_logdir(str(logdir_dir))
    assert logdir.warnings == []
    assert not logdir.file_cursor(0, "graph_execution_traces").stopped


def test_reread_record_claiming_more_than_the_file_is_ours(logdir_dir: Path) -> None:
    traces = one(logdir_dir, "graph_execution_traces")
    start = traces.stat().st_size
    with open(traces, "ab") as f:
        f.write(header(1 << 40) + bytes(64))
    with pytest.raises(CorruptRecordError, match=f"byte {start} claims"):
        read_record(str(traces), start)


def test_fifo_named_like_a_logdir_file_is_skipped(logdir_dir: Path) -> None:
    clean = open_logdir(str(logdir_dir))
    execution = one(logdir_dir, "execution")
    execution.unlink()
    os.mkfifo(execution)  # open() would block until a writer came
    logdir = open_logdir(str(logdir_dir))
    assert len(logdir.executions) == 0
    assert len(logdir.traces) == len(clean.traces)
    assert [w for w in logdir.warnings if execution.name in w] == [
        f"{execution.name}: not a regular file (a FIFO); skipped"]
