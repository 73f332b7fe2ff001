"""The life of an analysis in the store, safe against kills and concurrent processes.

An analysis goes ``loading`` -> ``complete`` -> ``deleting`` -> gone; its Analysis node holds the
status, and only ``complete`` analyses are ever listed, so what a user can list is always whole.

- One writer per analysis id at a time, across processes: a file lock ``<home>/locks/<id>.lock``
  held for the whole load, window derivation or delete. The kernel drops it when its process dies
  (even by kill -9), so for a writer of the same home "the writer is gone" means "the lock is
  free"; homes sharing a Neo4j server lock in different directories, so a writer of another home
  (its name, ``host:pid:home``, says) is gone once its process is (:func:`dead`).
- ``begin`` is a compare-and-set: a MERGE on the id that creates the node with this writer's name,
  or returns the one already there. A node found by a writer holding the lock is a dead writer's
  leftover: it is removed (with a note), then the analysis is begun again.
- ``delete`` marks the analysis ``deleting`` first (gone from listings at once), then deletes its
  nodes in batches; ``recover``, run whenever a store is opened, removes every analysis that is not
  complete and whose writer is gone, so a load or delete that died is cleaned up by the next command.
See docs/reliability.md for what this guarantees.
"""
from __future__ import annotations

import re
import secrets
import shutil
from pathlib import Path
from typing import Callable

from protoxplore.errors import AnalysisBusy, StoreError
from protoxplore.storage.locks import WRITING_HOME, dead, home_id, unless_written, writer_name, writing
from protoxplore.storage.traces import trace_path

Say = Callable[[str], None]

#: The statuses of an analysis that is not listed, with what a dead writer was doing.
UNFINISHED = {"loading": "an unfinished load", "deleting": "an unfinished delete"}


def begin(store, analysis: str, meta: dict, say: Say = print) -> str:
    """Create ``analysis`` as 'loading' and return this write's name (the writer's, and a token of this
    write: a leftover of this very process's failed write is not taken for its own); call it
    holding ``writing``."""
    me = f"{writer_name()}:{secrets.token_hex(4)}"
    for _attempt in range(2):
        row = store.run("analysis_begin", {"analysis": analysis, "writer": me, "meta": meta}, write=True)[0]
        if row["writer"] == me:
            return me
        if row["status"] == "complete" or not dead(row["writer"], WRITING_HOME.get()):
            raise AnalysisBusy(f"analysis {analysis} was begun by another writer ({row['writer']}, now "
                               f"{row['status']}); try again when it is done")
        say(f"note: removing {UNFINISHED.get(row['status'], 'a leftover')} of analysis {analysis} "
            f"(its writer {row['writer']} is gone)")
        delete(store, analysis)
    raise AnalysisBusy(f"analysis {analysis} is being written by another process ({row['writer']})")


def publish(store, analysis: str, writer: str) -> None:
    if not store.run("analysis_publish", {"analysis": analysis, "writer": writer}, write=True):
        raise AnalysisBusy(f"analysis {analysis} is no longer the one this process began; it was not published")


def delete(store, analysis: str, progress: Say | None = None, save: bool = True) -> None:
    """Hide ``analysis`` at once, then delete its nodes in batches and save (unless ``save`` is false:
    the caller saves); call it holding ``writing``."""
    store.run("analysis_mark_deleting", {"analysis": analysis, "writer": writer_name()}, write=True)
    # The ProtoGraph, then the saved PerfXplain explanations naming its runs (also those another
    # analysis owns: an explanation needs both its runs), then the entities and the Analysis node.
    for name in ("analysis_delete", "perfxplain_delete_explanations"):
        deleted = 0
        while True:
            rows = store.run(name, {"analysis": analysis, "limit": store.batch_size}, write=True)
            if not rows or not rows[0]["deleted"]:
                break
            deleted += rows[0]["deleted"]
            if progress:
                progress(f"  deleted {deleted} nodes of {analysis}")
    store.run("analysis_delete_entities", {"analysis": analysis}, write=True)
    if save:
        store.save()


def forget_trace(store, home: Path, fingerprint: str | None) -> None:
    """Remove the trace of the logs of ``fingerprint`` saved in ``home`` once no analysis of the store
    (of any status) is of them: a deleted, failed or killed load's trace holds the logs' SQL text."""


    if fingerprint and not store.run("analyses_of_fingerprint", {"fingerprint": fingerprint}):
        shutil.rmtree(trace_path(home, fingerprint), ignore_errors=True)


def unsaved_notes(store, home: Path, key: str) -> Path:
    """The notes of the live analysis ``key``'s saved traces that ``store`` as last saved may not
    match (``live.Watch``, which saves at most every ``live.SAVE_EVERY`` seconds). A home's traces
    serve every store it points at: notes are per store, so that only the store they are about
    decides which traces no analysis names."""
    return Path(home) / "live" / store.identity / f"{key}.unsaved"


def watch_lock(store, key: str) -> str:
    """The lock a watch of the live analysis ``key`` holds while it runs (:func:`unless_written`)."""
    return f"{key}-watch-{store.identity}"


def forget_unsaved(store, home: Path, notes: Path) -> None:
    """Save the store, then remove the saved traces noted in ``notes`` (one fingerprint a line) that
    no analysis names, then the notes: after the save, the store on disk names what the one in
    memory does."""
    store.save()
    try:
        noted = set(notes.read_text().split())
    except FileNotFoundError:
        return
    for fingerprint in noted:
        if re.fullmatch(r"[0-9a-f]{64}", fingerprint):  # a line cut short could name another trace's directory
            forget_trace(store, home, fingerprint)
    notes.unlink(missing_ok=True)


def add_totals(store) -> list[str]:
    """Store the host and resource totals of complete analyses loaded before loads stored them
    (their overview's slow nodes and hot resources would be empty); return their ids. Idempotent:
    two processes doing it at once write the same values."""
    ids = [row["id"] for row in store.run("analyses_without_totals")]
    for analysis in ids:
        store.run("overview_totals", {"analysis": analysis})
    return ids


def recover(store, home: Path, say: Say = print) -> list[str]:
    """Remove every unfinished analysis whose writer is gone, and every live window whose total is
    not listed and not being written (a watch died between the two: ``live.Watch.publish``);
    return their ids. A writer of another machine sharing a Neo4j server is never taken for dead.
    Then the saved traces that a watch no longer running left unnamed (:func:`forget_unsaved`)."""
    removed = []

    def remove(row: dict, what: str) -> None:
        say(f"note: removing {what} {row['id']} ({row['name']}) left by a process that died")
        delete(store, row["id"])
        forget_trace(store, home, row.get("fingerprint"))
        removed.append(row["id"])

    for status, what in UNFINISHED.items():
        for row in store.run("analyses", {"status": status}):
            with unless_written(home, row["id"]) as free:
                # Read again under the lock: the writer may have finished since we listed.
                if free and any(r["id"] == row["id"] and dead(r["writer"], home_id(home))
                                for r in store.run("analyses", {"status": status})):
                    remove(row, f"{what} of analysis")
    listed = store.run("analyses", {"status": "complete"})
    for row in listed:
        if not (row.get("live") and row.get("window")) or any(r["id"] == row["parent"] for r in listed):
            continue
        # Its watch (the window's writer) is gone, or is of this home and not writing the total.
        with unless_written(home, row["parent"]) as free:
            if free and dead(row["writer"], home_id(home)) and not any(
                    r["id"] == row["parent"] for r in store.run("analyses", {"status": "complete"})):
                with writing(home, row["id"], say):
                    remove(row, "the live window without its total,")
    for notes in sorted(unsaved_notes(store, home, "*").parent.glob("*.unsaved")):
        key = notes.name.removesuffix(".unsaved")
        if not re.fullmatch(r"w[0-9a-f]{11}", key):  # not a live key (live.live_key): not ours
            continue
        with unless_written(home, watch_lock(store, key)) as free:
            if not free:  # a running watch holds it (``live.Watch.claim``)
                continue
            try:
                forget_unsaved(store, home, notes)
            except StoreError as exc:  # a full disk: the command goes on, the next one tries again
                say(f"note: the saved traces a watch left in {notes.parent} stay for now: {exc}")
    return removed


