"""Hostile inputs keep the loader within bounds: decompression bombs, endless lines, link loops (issue 14)."""
from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import random
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest
import zstandard

from protoxplore import budget
from protoxplore.errors import CodecError, EventLogError, OverBudget
from protoxplore.loader.logs import codecs
from protoxplore.loader.logs.eventlog import LogSource, discover, read_events
from protoxplore.loader.logs.events import YEAR_2200_MS
from protoxplore.loader.logs.trace import read_trace
from protoxplore.settings import MAX_LINE_BYTES, Settings
from protoxplore.storage import traces

from bombs import BOMBS, flood_bomb, zstd_bomb
from logs import REAL, big_trace, real_trace


def peak_rss_mib(command: list[str], env: dict) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``command`` as the only child of a fresh interpreter; return its result and peak RSS (MiB)."""
    wrapper = ("import resource, subprocess, sys\n"
               "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "sys.stdout.write(r.stdout); sys.stderr.write(r.stderr)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
               "sys.exit(r.returncode)\n")
    result = subprocess.run([sys.executable, "-c", wrapper, *command], capture_output=True, text=True, env=env,
                            timeout=300)
    *rest, peak_kib = result.stderr.rstrip("\n").split("\n")
    result.stderr = "\n".join(rest)
    return result, int(peak_kib) / 1024


@pytest.mark.slow  # a load in a process, its memory measured
def test_zstd_bomb_loads_in_bounded_memory(tmp_path, store, home):
    """128 KB of zstd claiming 4 GiB: a one-line error naming the file, and the `load` process never
    above a few hundred MiB (it used to pass 8 GB)."""
    bomb = tmp_path / "app-bomb.zstd"
    bomb.write_bytes(zstd_bomb(128 << 10))
    env = dict(os.environ, PROTOXPLORE_HOME=str(home))
    result, peak = peak_rss_mib([sys.executable, "-m", "protoxplore.cli", "load", str(bomb)], env)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == (f"protoxplore load: error: {bomb}: expands more than 200x (Spark's logs: 10-20x), "
                                     "refused as a decompression bomb; decompress it yourself to read it anyway")
    assert peak < 400, f"peak RSS {peak:.0f} MiB"


@pytest.mark.slow  # a load in a process, its memory measured
def test_longest_line_allowed_loads_under_1_gb(tmp_path, store, home):
    """A real log with an event as long as the default line limit allows, a list of empty objects (the
    most Python objects per byte, ~32x its bytes once parsed), in a 0.2 MB zstd: loaded, under 1 GB.
    With the old 64 MiB limit this load peaked at about 2 GB."""
    limit = MAX_LINE_BYTES
    start, end = b'{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{},"x":[', b"{}]}\n"
    rng = random.Random(0)  # one empty list in 64 at random: compresses ~90x, under the 200x refusal
    line = start + b"".join(b"[]," if rng.random() < 1 / 64 else b"{}," for _ in range(
        (limit - len(start) - len(end) - 1) // 3)) + end
    first, rest = (REAL / "event_log_1").read_bytes().split(b"\n", 1)
    log = tmp_path / "app-long-line.zstd"
    log.write_bytes(zstandard.ZstdCompressor(level=19).compress(first + b"\n" + line + rest))
    assert limit - 1000 < len(line) <= limit and log.stat().st_size < 1 << 20
    env = dict(os.environ, PROTOXPLORE_HOME=str(home))
    result, peak = peak_rss_mib([sys.executable, "-m", "protoxplore.cli", "load", str(log)], env)
    assert result.returncode == 0, result.stderr
    assert "line skipped" not in result.stdout + result.stderr
    assert peak < 1000, f"peak RSS {peak:.0f} MiB"


@pytest.mark.slow  # five loads, each in a process of its own, their memory measured
def test_a_load_past_its_memory_budget_stops_and_leaves_nothing(engine_env, home):
    """Bounded memory on any input (issue 14): a load that needs more memory than its budget
    (PROTOXPLORE_LOAD_MEMORY_MIB per MiB of input, protoxplore/budget.py) stops with one line naming the
    file and the setting, its resident memory held near the budget, and nothing of it listed; the
    same logs then load whole. Budgets: 1 MiB (past at once), and 90% of what the load needed."""
    log = next((Path(__file__).parent / "data" / "stragglers_heldout4").glob("*.zstd"))
    env = dict(os.environ, PROTOXPLORE_HOME=str(home))
    cli = [sys.executable, "-m", "protoxplore.cli"]

    def load(mib: float) -> tuple[subprocess.CompletedProcess, float]:
        return peak_rss_mib(cli + ["load", str(log), "--json"], dict(env, PROTOXPLORE_LOAD_MEMORY_MIB=str(mib)))

    def listed() -> set[str]:
        rows = json.loads(subprocess.run(cli + ["analyses", "--json"], env=env, capture_output=True, text=True,
                                         check=True).stdout)
        return {r["id"] for r in rows}

    before = listed()
    first, _ = load(1)
    whole, needed = load(0)
    assert whole.returncode == 0, whole.stderr
    analysis = json.loads(whole.stdout)["id"]
    nodes = json.loads(whole.stdout)["nodes"]
    subprocess.run(cli + ["delete", analysis], env=env, capture_output=True, check=True)
    limit = round(0.9 * needed)
    stopped, peak = load(limit)
    for result, mib in ((first, 1), (stopped, limit)):
        assert result.returncode == 1 and result.stdout == "", result.stdout
        assert result.stderr.strip().splitlines()[-1] == (
            f"protoxplore load: error: {log}: the load needed more than {mib} MiB of memory, its budget "
            "(PROTOXPLORE_LOAD_MEMORY_MIB per MiB of input); a workload this dense is better explained a window "
            "at a time (load --window T0,T1), or raise the setting"), result.stderr
    assert peak < limit + 50, f"stopped at {peak:.0f} MiB, budget {limit} MiB"
    assert listed() == before
    again, _ = load(0)
    assert again.returncode == 0 and json.loads(again.stdout)["nodes"] == nodes, again.stderr
    subprocess.run(cli + ["delete", analysis], env=env, capture_output=True, check=True)


def test_a_load_started_with_sigint_ignored_still_stops_at_its_budget(tmp_path):
    """A command a script starts with ``&`` ignores SIGINT; the budget interrupted through SIGINT, so
    such a load went on to twice its budget and was listed (hostile-input audit). Its own signal now.
    A home of its own: where the log is loaded already, nothing is read."""
    import signal

    from protoxplore.storage.embedded import EmbeddedEngine

    log = next((Path(__file__).parent / "data" / "stragglers_heldout4").glob("*.zstd"))
    env = dict(os.environ, PROTOXPLORE_HOME=str(tmp_path), PROTOXPLORE_NEO4J_URI="", PROTOXPLORE_LOAD_MEMORY_MIB="1")
    try:
        result = subprocess.run([sys.executable, "-m", "protoxplore.cli", "load", str(log)], env=env,
                                capture_output=True, text=True, timeout=300,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    finally:
        EmbeddedEngine(tmp_path).stop()
    assert result.returncode == 1 and "the load needed more than 1 MiB of memory" in result.stderr, result.stderr


def until_the_watchdog_acts(seconds: float = 30.0) -> None:
    """Wait until the budget's watchdog has found the budget passed: outside a database call it
    interrupts this wait, inside one it marks the stop for when the call returns. A fixed 20 periods
    (0.1 s) were too few for its thread on a loaded machine (CI, 2026-11-27)."""
    deadline = time.monotonic() + seconds
    while not budget._active.over and time.monotonic() < deadline:
        time.sleep(budget.PERIOD_S)


def test_a_budget_passed_before_its_watchdog_start_returns_is_still_an_over_budget_stop(monkeypatch):
    """On a busy machine the main thread can be left waiting in the watchdog's ``Thread.start()``
    long after the watchdog interrupted it (seen: Neo4j's load exited 130, "interrupted", instead
    of 1). Such a late start, made certain here, still ends in OverBudget, never a bare Ctrl-C."""
    class LateStart(threading.Thread):
        def start(self) -> None:
            super().start()
            until_the_watchdog_acts()  # the watchdog interrupts meanwhile

    monkeypatch.setattr(budget.threading, "Thread", LateStart)
    try:
        with pytest.raises(OverBudget, match="x: the load needed more than 0 MiB"):
            with budget.bounded(0.001, "x"):
                until_the_watchdog_acts()
    except KeyboardInterrupt:
        pytest.fail("the budget's interruption escaped as a bare KeyboardInterrupt (exit 130)")


def test_a_budget_passed_during_a_failed_database_call_says_both():
    """The budget is passed while a database call runs, and the call fails: the stop names the
    budget and keeps the database's error (it was dropped: ``raise ... from None``)."""
    with pytest.raises(OverBudget, match="x: the load needed more than 0 MiB.*failed too: refused by the server"):
        with budget.bounded(0.001, "x"):
            with budget.database_call():
                until_the_watchdog_acts()  # the watchdog finds the budget passed meanwhile
                raise RuntimeError("refused by the server")


def test_a_budget_passed_while_removing_after_a_refused_write_says_both():
    """A write is refused, and the budget is passed while the writer removes what it began: the stop
    names the budget and the refusal (the user's real problem)."""
    from protoxplore.errors import StoreError

    with pytest.raises(OverBudget, match="x: the load needed more than 0 MiB.*failed too: refused by Neo4j"):
        with budget.bounded(0.001, "x"):
            try:
                raise StoreError("refused by Neo4j")
            except StoreError:
                with budget.database_call():  # lifecycle.delete's
                    until_the_watchdog_acts()
                raise


def test_a_budget_passed_while_a_library_handles_its_own_error_names_only_the_budget():
    """The watchdog can interrupt inside any ``except`` block, e.g. a library's ``except
    ImportError`` for an optional module (seen in CI: "failed too: No module named 'compression'").
    That error was the interruption's context, not a failed database call: the stop names the budget
    alone."""
    with pytest.raises(OverBudget) as stopped:
        with budget.bounded(0.001, "x"):
            try:
                import compression_that_is_not_installed  # noqa: F401
            except ImportError:
                until_the_watchdog_acts()  # the watchdog finds the budget passed meanwhile
    assert str(stopped.value).endswith("or raise the setting"), stopped.value


def test_flood_of_valid_events_is_refused(tmp_path, monkeypatch):
    """Every line a valid TaskEnd, 5,000x: refused before it fills memory with tasks."""
    flood = tmp_path / "app-flood.zstd"
    flood.write_bytes(flood_bomb(20_000))
    with pytest.raises(EventLogError, match=rf"^{flood}: expands more than 200x"):
        read_trace(discover([flood]))
    monkeypatch.setattr(codecs, "MAX_EXPANSION", 10**6)  # what the limit keeps out
    tasks = read_trace(discover([flood]), warn=lambda m: None).tasks
    assert (~tasks["running"]).sum() == 20_000  # and the flood's application has not ended: a few still run


@pytest.mark.slow  # a bomb per codec
@pytest.mark.parametrize("codec", sorted(BOMBS))
def test_each_codec_caps_its_output_per_read(codec):
    """However much a few KB claim, each codec hands over at most a chunk (plus one block) at a time;
    the whole is then refused for its expansion."""
    data = BOMBS[codec](300 << 10)
    biggest = total = 0
    try:
        for chunk in codecs.CODECS[codec](io.BufferedReader(io.BytesIO(data))):
            biggest, total = max(biggest, len(chunk)), total + len(chunk)
    except CodecError as exc:  # zstd's decoder, shared with `watch`, refuses the bomb itself
        assert codec == "zstd" and "expands more than 200x" in str(exc)
    assert total > 20 * len(data)  # it is a bomb
    assert biggest <= codecs.CHUNK + (codecs.MAX_BLOCK if codec in ("lz4", "snappy", "lzf") else codecs.CHUNK)
    if total > codecs.MAX_EXPANSION * len(data) or codec == "zstd":
        with pytest.raises(CodecError, match="expands more than 200x"):
            list(codecs.chunks(Path(f"bomb.{codec}"), io.BufferedReader(io.BytesIO(data))))


def test_block_claiming_more_than_the_largest_block_is_corrupt(tmp_path):
    claim = bytearray()  # the block's varint length: one byte more than MAX_BLOCK
    n = codecs.MAX_BLOCK + 1
    while n >= 0x80:
        claim.append(n & 0x7F | 0x80)
        n >>= 7
    claim.append(n)
    data = bytes(claim) + b"\x00a"
    stream = b"\x82SNAPPY\x00" + b"\x00\x00\x00\x01" * 2 + len(data).to_bytes(4, "big") + data
    path = tmp_path / "app.snappy"
    path.write_bytes(stream)
    with pytest.raises(EventLogError, match=rf"{path}: corrupt snappy stream in the block at byte 16: "
                                            rf"it claims more than {codecs.MAX_BLOCK} bytes"):
        list(read_events(LogSource(str(path), [path])))


def log_with_long_line(tmp_path: Path, at: int, length: int, newline_after: bool = True) -> tuple[Path, list[bytes]]:
    """A real log with an ``Event`` line of ``length`` bytes inserted as line ``at`` (1-based)."""
    lines = (REAL / "event_log_1").read_bytes().splitlines()
    pad = length - len(b'{"Event":"Padding","pad":""}')
    lines.insert(at - 1, b'{"Event":"Padding","pad":"' + b"x" * pad + b'"}')
    path = tmp_path / "app-long"
    path.write_bytes(b"\n".join(lines) + (b"\n" if newline_after else b""))
    return path, lines


@pytest.mark.parametrize("chunk", [777, codecs.CHUNK], ids=["line-across-chunks", "line-inside-a-chunk"])
def test_line_over_the_limit_is_skipped_with_a_warning(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(codecs, "CHUNK", chunk)
    path, lines = log_with_long_line(tmp_path, at=5, length=50_000)
    limit = 20_000
    assert max(len(line) for i, line in enumerate(lines) if i != 4) < limit  # the real lines all fit
    warnings: list[str] = []
    events = list(read_events(LogSource(str(path), [path]), warn=warnings.append, max_line=limit))
    assert warnings == [f"{path}:5: line longer than {limit} bytes (PROTOXPLORE_MAX_LINE_BYTES); line skipped"]
    assert [n for _, n, _ in events] == [n for n in range(1, len(lines) + 1) if n != 5]
    with pytest.raises(EventLogError, match=rf"^{path}:5: line longer than {limit} bytes"):
        list(read_events(LogSource(str(path), [path]), strict=True, max_line=limit))


def test_last_line_over_the_limit_without_newline(tmp_path, monkeypatch):
    monkeypatch.setattr(codecs, "CHUNK", 777)
    path, lines = log_with_long_line(tmp_path, at=34, length=50_000, newline_after=False)
    warnings: list[str] = []
    events = list(read_events(LogSource(str(path), [path]), warn=warnings.append, max_line=20_000))
    assert warnings == [f"{path}:34: line longer than 20000 bytes (PROTOXPLORE_MAX_LINE_BYTES); line skipped"]
    assert [n for _, n, _ in events] == list(range(1, 34))


def test_max_line_setting(monkeypatch):
    monkeypatch.setenv("PROTOXPLORE_MAX_LINE_BYTES", "1000")
    assert Settings.from_env().max_line_bytes == 1000
    monkeypatch.setenv("PROTOXPLORE_MAX_LINE_BYTES", "64M")
    with pytest.raises(ValueError, match="PROTOXPLORE_MAX_LINE_BYTES must be an integer, not '64M'"):
        Settings.from_env()
    monkeypatch.setenv("PROTOXPLORE_MAX_LINE_BYTES", "0")
    with pytest.raises(ValueError, match="PROTOXPLORE_MAX_LINE_BYTES must be at least 1"):
        Settings.from_env()


# -- directory scans (issue 14, item 6) ------------------------------------------------------------

def names(sources) -> list[str]:
    return [s.name for s in sources]


def test_self_link_is_not_followed_into_a_loop(tmp_path):
    shutil.copy(REAL / "event_log_1", tmp_path / "event_log_1")
    (tmp_path / "again").symlink_to(".")
    warnings: list[str] = []
    assert names(discover([tmp_path], warn=warnings.append)) == [str(tmp_path / "event_log_1")]
    assert warnings == [f"{tmp_path / 'again'}: the same directory as {tmp_path} (a link, or named twice); read once"]


def test_two_directories_linking_to_each_other(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    shutil.copy(REAL / "event_log_1", a / "event_log_1")
    shutil.copy(REAL / "local-1532512550423", b / "local-1532512550423")
    (a / "to-b").symlink_to(b)
    (b / "to-a").symlink_to(a)
    warnings: list[str] = []
    found = names(discover([tmp_path], warn=warnings.append))
    assert found == [str(a / "event_log_1"), str(a / "to-b" / "local-1532512550423")]
    assert warnings == [f"{a / 'to-b' / 'to-a'}: the same directory as {a} (a link, or named twice); read once",
                        f"{b}: the same directory as {a / 'to-b'} (a link, or named twice); read once"]


def test_two_links_to_each_other_are_skipped(tmp_path):
    shutil.copy(REAL / "event_log_1", tmp_path / "event_log_1")
    (tmp_path / "x").symlink_to(tmp_path / "y")
    (tmp_path / "y").symlink_to(tmp_path / "x")
    warnings: list[str] = []
    assert names(discover([tmp_path], warn=warnings.append)) == [str(tmp_path / "event_log_1")]
    assert warnings == [f"{tmp_path / p}: neither a file nor a directory (a broken or looping symbolic link?); skipped"
                        for p in ("x", "y")]


def test_file_named_twice_or_by_a_second_name_is_read_once(tmp_path):
    log = tmp_path / "event_log_1"
    shutil.copy(REAL / "event_log_1", log)
    os.link(log, tmp_path / "hard-link")
    warnings: list[str] = []
    assert names(discover([log, log, tmp_path / "hard-link"], warn=warnings.append)) == [str(log)]
    assert warnings == [f"{log}: the same file as {log} (a link, or named twice); read once",
                        f"{tmp_path / 'hard-link'}: the same file as {log} (a link, or named twice); read once"]
    warnings.clear()
    assert names(discover([log, tmp_path], warn=warnings.append)) == [str(log)]  # no "holds no event logs"
    assert warnings == [f"{tmp_path / name}: the same file as {log} (a link, or named twice); read once"
                        for name in ("event_log_1", "hard-link")]


# -- timestamps (issue 14, item 10) ----------------------------------------------------------------

def test_implausible_times_skip_their_event_with_a_warning(tmp_path):
    """1e300, negative and year-2200 times: each event is skipped with a warning naming the file and line."""
    events = [orjson.loads(line) for line in (REAL / "event_log_1").read_bytes().splitlines()]
    events[4]["Submission Time"] = YEAR_2200_MS  # line 5: JobStart
    events[15]["Task Info"]["Finish Time"] = 1e300  # line 16: TaskEnd
    events[17]["Task Info"]["Launch Time"] = -1  # line 18: TaskEnd
    path = tmp_path / "app-times"
    path.write_bytes(b"\n".join(orjson.dumps(e) for e in events) + b"\n")
    warnings: list[str] = []
    trace = read_trace(discover([path]), warn=warnings.append)
    assert [w for w in warnings if "implausible" in w] == [
        f"{path}:5: SparkListenerJobStart has an implausible time: Submission Time {YEAR_2200_MS} ms is not a date "
        "between 1970 and 2200; event skipped",
        f"{path}:16: SparkListenerTaskEnd has an implausible time: Finish Time 1e+300 ms is not a date "
        "between 1970 and 2200; event skipped",
        f"{path}:18: SparkListenerTaskEnd has an implausible time: Launch Time -1 ms is not a date "
        "between 1970 and 2200; event skipped"]
    assert len(trace.tasks) == 8 and trace.tasks["finish"].max() < 1.5e9 and trace.start > 1.4e9
    with pytest.raises(EventLogError, match=rf"^{path}:5: SparkListenerJobStart has an implausible time"):
        read_trace(discover([path]), strict=True)


# -- a home of its own, loaded by the CLI: file modes, saved traces, terminal text (issue 14, item 9) --

DESCRIPTION = ("nightly \x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ report\x1b[2J\x1b[H"
               "\x1b]0;pwned\x07\x9b31m\u202eredirected\r\x08\x7f")
APP_NAME = "app\x1b]2;title\x1b\\\x1b[8mhidden"
HOST = "h1\x1bc\x90dcs\x9c"
FORBIDDEN = [b"\x1b", b"\x07", b"\r", b"\x08", b"\x7f", "\u202e".encode()] + [bytes([0xC2, c]) for c in range(0x80, 0xA0)]


def cli(home: Path, *argv: str, check: bool = True, **env: str) -> subprocess.CompletedProcess:
    """The CLI in a process of its own, with the permissive umask most shells have."""
    result = subprocess.run([sys.executable, "-m", "protoxplore.cli", *argv, "--home", str(home)], capture_output=True,
                            preexec_fn=lambda: os.umask(0o022), timeout=300, env={**os.environ, **env})
    assert not check or result.returncode == 0, result.stderr.decode()
    return result


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """A new home (two levels down) with one hostile log loaded: names and SQL full of terminal controls."""
    from handmade import make_log

    root = tmp_path_factory.mktemp("fresh")
    home = root / "not" / "yet"
    tasks = ([{"query": DESCRIPTION, "host": HOST, "launch": 0.0, "finish": 10.0, "cpu_s": 2.0}] * 4
             + [{"query": "etl \x1b[31mload for the report", "host": HOST, "launch": 0.0, "finish": 10.0, "cpu_s": 10.0}] * 8)
    log = make_log(root / "app-\x1b]0;file\x07.log", tasks, hosts=(HOST,), slots=8)
    events = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    for event in events:
        if event["Event"] == "SparkListenerApplicationStart":
            event["App Name"] = APP_NAME
    log.write_bytes(b"\n".join(orjson.dumps(e) for e in events) + b"\n")
    load = cli(home, "load", str(log))
    yield home, log, load
    cli(home, "engine", "stop", check=False)


@pytest.mark.slow  # an engine of its own
def test_home_and_every_file_written_are_owner_only(loaded):
    home, _, _ = loaded
    modes = {}
    for root, dirs, files in os.walk(home.parent.parent):
        for name in dirs + files:
            path = Path(root) / name
            modes[path.relative_to(home.parent.parent)] = os.lstat(path).st_mode
    under_home = {str(p.relative_to(Path("not/yet"))) for p in modes if p.is_relative_to("not/yet") and p != Path("not/yet")}
    assert {"falkordb/protoxplore.rdb", "falkordb/falkordb.log"} <= under_home, under_home
    assert any(p.startswith("traces/") and p.endswith("/tasks.parquet") for p in under_home), under_home
    for path, mode in modes.items():
        if stat.S_ISDIR(mode) and path.is_relative_to("not"):
            assert stat.S_IMODE(mode) == 0o700, f"{path}: {oct(mode)}"
        elif stat.S_ISREG(mode) and path.is_relative_to("not"):
            assert stat.S_IMODE(mode) == 0o600, f"{path}: {oct(mode)}"
        elif path.is_relative_to("not"):
            assert stat.S_IMODE(mode) & 0o077 == 0, f"{path}: {oct(mode)}"  # the engine's socket


@pytest.mark.slow  # loads in subprocesses
def test_load_skips_lines_over_the_max_line_setting(tmp_path):
    home = tmp_path / "home"  # its own: the hostile analysis stays the latest in `loaded`'s
    path, _ = log_with_long_line(tmp_path, at=5, length=50_000)
    try:
        result = cli(home, "load", str(path), "--json", PROTOXPLORE_MAX_LINE_BYTES="20000")
        assert f"warning: {path}:5: line longer than 20000 bytes (PROTOXPLORE_MAX_LINE_BYTES); line skipped" \
            in result.stderr.decode()
        assert json.loads(result.stdout)["tasks"] == 10
        other = shutil.copy(path, tmp_path / "app-long-2")  # not loaded yet
        strict = cli(home, "load", str(other), "--strict", check=False, PROTOXPLORE_MAX_LINE_BYTES="20000")
        assert strict.returncode == 1
        assert strict.stderr.decode().strip() == (f"protoxplore load: error: {other}:5: line longer than 20000 bytes "
                                                  "(PROTOXPLORE_MAX_LINE_BYTES)")
    finally:
        cli(home, "engine", "stop", check=False)


@pytest.mark.slow  # a CLI process
def test_traces_saved_by_older_versions_as_pickles_are_not_loaded(loaded, tmp_path):
    """A pickle in the home would run code when read: it is refused with a one-line 'load its logs again'."""

    home, _, _ = loaded
    (saved,) = (home / "traces").iterdir()
    marker = tmp_path / "code-ran"

    class Payload:
        def __reduce__(self):
            return open, (str(marker), "w")

    aside = tmp_path / "saved"
    saved.rename(aside)
    try:
        pickled = saved.with_name(saved.name + ".pkl.gz")
        pickled.write_bytes(gzip.compress(pickle.dumps(Payload())))
        with pytest.raises(FileNotFoundError, match=r"saved by an older version as a pickle, which is no longer "
                                                    r"read \(loading one can run code\); load its logs again"):
            traces.load_trace(saved)
        result = cli(home, "explain", "--victim", "nightly", "--window", "0,5", check=False)
        assert result.returncode == 1
        error = result.stderr.decode().strip()
        assert "\n" not in error and error.endswith("load its logs again"), error
        assert not marker.exists()
        pickled.unlink()
    finally:
        aside.rename(saved)


@pytest.mark.parametrize("argv", [("victims",), ("explain", "--victim", "nightly"), ("analyses",), ("culprits",),
                                  ("hosts",), ("explain", "--victim", "report"), ("explain", "--victim", "etl")],
                         ids=lambda argv: "-".join(argv))
@pytest.mark.slow  # a CLI process per command
def test_log_text_reaches_the_terminal_without_controls(loaded, argv):
    home, _, load = loaded
    result = cli(home, *argv, check=False)
    for output in (load.stdout, load.stderr, result.stdout, result.stderr):
        found = [b for b in FORBIDDEN if b in output]
        assert not found, (found, output.decode())
    text = (result.stdout + result.stderr).decode()
    if argv[-1] == "nightly":
        assert "nightly click report" in text and "apphidden:sql-0" in text
    if argv[-1] == "report":  # several matches: the error lists them, cleaned too
        assert result.returncode == 1


@pytest.mark.slow  # CLI processes
def test_json_output_keeps_log_text_exact_and_escaped(loaded):
    home, _, _ = loaded
    result = cli(home, "victims", "--json")
    assert not [b for b in FORBIDDEN if b in result.stdout]
    assert DESCRIPTION in {row["description"] for row in json.loads(result.stdout)}


# -- saved traces (issue 14, item 9) ---------------------------------------------------------------

def test_saved_trace_reads_back_equal(tmp_path):
    from dataclasses import fields

    import pandas as pd


    trace = real_trace()
    path = tmp_path / "traces" / "abc"
    traces.save_trace(trace, path)
    assert sorted(p.name for p in path.iterdir()) == sorted(f"{f.name}.parquet" for f in fields(trace))
    traces.load_trace.cache_clear()
    back = traces.load_trace(path)
    assert back.warnings == trace.warnings and back.warnings
    for f in fields(trace):
        if f.name != "warnings":
            pd.testing.assert_frame_equal(getattr(back, f.name), getattr(trace, f.name))
            for column, values in getattr(trace, f.name).items():  # None stays None, lists stay lists
                assert [type(v) for v in getattr(back, f.name)[column]] == [type(v) for v in values], column


KILLED_SAVER = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from logs import big_trace
from protoxplore.storage import traces
t = big_trace()
print("ready", flush=True)
traces.save_trace(t, Path(sys.argv[1]))
print("saved", flush=True)
time.sleep(60)
"""


@pytest.mark.slow  # nine kills of a real save
def test_a_save_killed_at_any_moment_leaves_the_trace_whole_or_absent(tmp_path):
    """SIGKILL at 9 moments of a real save (before it, while its files are being written, after its
    rename): the trace then reads back whole, or is absent and the next save cleans up and writes it."""
    import random
    import signal
    import time


    trace = big_trace()
    started = time.perf_counter()
    traces.save_trace(trace, tmp_path / "timing")
    duration = time.perf_counter() - started
    rng = random.Random(14)
    outcomes = []
    for n in range(9):
        path = tmp_path / "traces" / f"t{n}"
        child = subprocess.Popen([sys.executable, "-c", KILLED_SAVER, str(path), str(Path(__file__).parent)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "ready\n"
        if n % 3 == 0:  # as it starts
            time.sleep(rng.uniform(0, duration / 4))
        elif n % 3 == 1:  # while it writes
            while not list(path.parent.glob(f"{path.name}.tmp-*")) and not path.exists():
                time.sleep(0.0002)
            time.sleep(rng.uniform(0, duration / 2))
        else:  # once it is done
            assert child.stdout.readline() == "saved\n"
        child.send_signal(signal.SIGKILL)
        child.wait()
        traces.load_trace.cache_clear()
        if path.exists():
            outcomes.append("whole")
        else:
            outcomes.append("cut mid-save" if list(path.parent.glob(f"{path.name}.tmp-*")) else "absent")
            traces.save_trace(trace, path)
            assert not list(path.parent.glob(f"{path.name}.tmp-*"))  # the dead save's leftover is gone
        assert len(traces.load_trace(path).tasks) == len(trace.tasks)
    assert {"whole", "cut mid-save"} <= set(outcomes), outcomes


def test_a_nul_character_in_a_name_is_replaced_and_the_log_loads(tmp_path, store, home):
    """A NUL character in a text of a log (``\\u0000`` in valid JSON: an application, host or stage
    name) is replaced by U+FFFD, said once naming the file and line: FalkorDB reads a query's text up
    to a NUL, and the whole load failed with "Invalid input at end of input" naming nothing."""
    from protoxplore.service import pipeline

    lines = (REAL / "event_log_1").read_text().splitlines(keepends=True)
    log = tmp_path / "application_1457600942802_0093"
    log.write_text("".join(line.replace('"App Name":"PythonPi"', '"App Name":"Python\\u0000Pi"')
                           .replace('"Stage Name":"reduce at', '"Stage Name":"reduce\\u0000at') for line in lines))
    said = []
    analysis, _ = pipeline.load_paths(store, pipeline.LoadRequest((str(log),)), home, pipeline.Progress(lambda m: None,
                                                                                                        said.append))
    assert said == [f"{log}:4: NUL characters (\\u0000) in its texts are replaced by U+FFFD"]
    names = store.run_text("MATCH (a:Application {analysis: $a}) RETURN a.name AS name", {"a": analysis})
    assert names == [{"name": "Python\ufffdPi"}]
    stages = store.run_text("MATCH (s:VictimStage {analysis: $a}) RETURN s.stage_name AS name", {"a": analysis})
    assert stages and all("\x00" not in s["name"] for s in stages) and any("\ufffd" in s["name"] for s in stages)
