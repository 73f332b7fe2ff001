"""Saved traces: the tables of a loaded workload kept beside the store, as Parquet, so that time windows,
the what-if, Hound and PerfXplain's log of runs can be computed later without reading the logs again."""
from __future__ import annotations

import functools
import os
import shutil
from dataclasses import MISSING, fields
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from protoxplore.loader.logs import trace as trace_mod
from protoxplore.storage import locks


def trace_path(home: Path, fingerprint: str) -> Path:
    """Where the trace of these logs is saved: a directory of Parquet files (see :func:`save_trace`)."""
    return Path(home) / "traces" / fingerprint[:16]


def save_trace(trace: trace_mod.Trace, path: Path) -> None:
    """Keep the trace next to the store so that windowed analyses can be derived later.

    One Parquet file per table (``tasks.parquet``...; the warnings as a one-column table), in a
    directory written under a temporary name and renamed into place, so that a save killed at
    any moment leaves the trace whole or absent. A trace saved before is kept: ``path`` names
    the logs' bytes, and the same logs give the same trace. Owner-only (0700/0600): traces hold
    SQL text. Data only: unlike the pickles older versions saved, reading a trace runs no code.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    for leftover in path.parent.glob(f"{path.name}.tmp-*"):  # of saves killed before their rename
        pid = leftover.name.rpartition("-")[2]
        if pid.isdigit() and (int(pid) == os.getpid() or locks.process_gone(int(pid))):
            shutil.rmtree(leftover, ignore_errors=True)
    if path.exists():
        return
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    tmp.mkdir(mode=0o700)
    for f in fields(trace):
        value = getattr(trace, f.name)
        frame = pd.DataFrame({"warning": pd.Series(value, dtype=str)}) if f.name == "warnings" else value
        with os.fdopen(os.open(tmp / f"{f.name}.parquet", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            frame.to_parquet(out, engine="pyarrow")
    try:
        tmp.rename(path)
    except OSError:  # another process saved the same logs' trace meanwhile
        shutil.rmtree(tmp)


@functools.lru_cache(maxsize=2)
def load_trace(path: Path) -> trace_mod.Trace:
    """A saved trace (kept in memory for the next call: saved traces never change).

    A table missing from a trace saved by an older version gets its field's default.
    """
    if not path.is_dir():
        if path.with_name(path.name + ".pkl.gz").exists():
            raise FileNotFoundError(f"the trace at {path}.pkl.gz was saved by an older version as a pickle, "
                                    "which is no longer read (loading one can run code); load its logs again")
        raise FileNotFoundError(f"no trace is saved at {path}; load its logs again")
    tables = {}
    for f in fields(trace_mod.Trace):
        file = path / f"{f.name}.parquet"
        if file.exists():
            tables[f.name] = _read_table(file)
        elif f.default_factory is MISSING:
            raise FileNotFoundError(f"the trace at {path} has no {file.name}; load its logs again")
    if "warnings" in tables:
        tables["warnings"] = tables["warnings"]["warning"].tolist()
    return trace_mod.Trace(**tables)


def _read_table(file: Path) -> pd.DataFrame:
    """One saved table with the dtypes it was saved with: Arrow would turn object columns of text and
    None into pandas strings with NaN, and of lists into numpy arrays."""
    table = pq.read_table(file)
    frame = table.to_pandas()
    for column in table.schema.pandas_metadata["columns"]:
        if column["numpy_type"] == "object" and column["name"] in frame:
            frame[column["name"]] = pd.Series(table.column(column["name"]).to_pylist(), index=frame.index, dtype=object)
    return frame


def saved_trace(home: Path, analysis: dict) -> trace_mod.Trace:
    """The saved trace of ``analysis`` (a row with ``id`` and ``fingerprint``); FileNotFoundError
    saying what to do when it is not saved here (an analysis loaded on another machine)."""
    path = trace_path(home, analysis["fingerprint"])
    if not path.exists():
        raise FileNotFoundError(f"the trace of analysis {analysis['id']} is not saved at {path}; load its logs again")
    return load_trace(path)
