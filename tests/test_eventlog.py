"""The event-log reader against real Spark logs: every codec, rolling directories, live and broken logs."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
import zstandard

from protoxplore.errors import CodecError, EventLogError
from protoxplore.loader.logs import codecs
from protoxplore.loader.logs.eventlog import LogSource, discover, read_events

from logs import CODECS, REAL, lz4_java_stream

MANIFEST = json.loads((CODECS / "manifest.json").read_text())
ROLLING = "eventlog_v2_spark-110be3a8424d4a2789cb88134418217b"

# Per log: lines and event counts, as PROVENANCE.md lists them.
PROVENANCE = {
    'application_1506645932520_24630151': (63, {'SparkListenerExecutorMetricsUpdate': 10, 'SparkListenerTaskStart': 9, 'SparkListenerTaskEnd': 9, 'SparkListenerBlockManagerAdded': 8, 'SparkListenerExecutorAdded': 7, 'SparkListenerSQLExecutionStart': 3, 'SparkListenerSQLExecutionEnd': 3, 'SparkListenerStageSubmitted': 3, 'SparkListenerStageCompleted': 3, 'SparkListenerUnpersistRDD': 2, 'SparkListenerLogStart': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerJobStart': 1, 'SparkListenerJobEnd': 1, 'SparkListenerApplicationEnd': 1}),
    'app-20161116163331-0000': (68, {'SparkListenerTaskStart': 24, 'SparkListenerTaskEnd': 24, 'SparkListenerBlockManagerAdded': 5, 'SparkListenerExecutorAdded': 4, 'SparkListenerExecutorBlacklisted': 2, 'SparkListenerLogStart': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerJobStart': 1, 'SparkListenerStageSubmitted': 1, 'SparkListenerStageCompleted': 1, 'SparkListenerJobEnd': 1, 'SparkListenerNodeBlacklisted': 1, 'SparkListenerApplicationEnd': 1}),
    'event_log_1': (33, {'SparkListenerTaskStart': 10, 'SparkListenerTaskEnd': 10, 'SparkListenerBlockManagerAdded': 3, 'SparkListenerExecutorAdded': 2, 'SparkListenerLogStart': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerJobStart': 1, 'SparkListenerStageSubmitted': 1, 'SparkListenerStageCompleted': 1, 'SparkListenerJobEnd': 1, 'SparkListenerApplicationEnd': 1}),
    'local-1532512550423': (30, {'SparkListenerTaskStart': 8, 'SparkListenerTaskEnd': 8, 'SparkListenerJobStart': 2, 'SparkListenerStageSubmitted': 2, 'SparkListenerStageCompleted': 2, 'SparkListenerJobEnd': 2, 'SparkListenerLogStart': 1, 'SparkListenerExecutorAdded': 1, 'SparkListenerBlockManagerAdded': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerApplicationEnd': 1}),
    'spark2-eventlog.zstd': (58, {'SparkListenerDriverAccumUpdates': 8, 'SparkListenerJobStart': 6, 'SparkListenerStageSubmitted': 6, 'SparkListenerTaskStart': 6, 'SparkListenerTaskEnd': 6, 'SparkListenerStageCompleted': 6, 'SparkListenerJobEnd': 6, 'SparkListenerSQLExecutionStart': 4, 'SparkListenerSQLExecutionEnd': 4, 'SparkListenerLogStart': 1, 'SparkListenerExecutorAdded': 1, 'SparkListenerBlockManagerAdded': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerApplicationEnd': 1}),
    'rp_sql_eventlog.zstd': (477, {'SparkListenerTaskStart': 217, 'SparkListenerTaskEnd': 217, 'SparkListenerBlockManagerAdded': 10, 'SparkListenerExecutorAdded': 9, 'SparkListenerStageSubmitted': 5, 'SparkListenerStageCompleted': 5, 'SparkListenerResourceProfileAdded': 2, 'SparkListenerJobStart': 2, 'SparkListenerJobEnd': 2, 'SparkListenerLogStart': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerBlockManagerRemoved': 1, 'SparkListenerExecutorRemoved': 1, 'SparkListenerSQLExecutionStart': 1, 'SparkListenerSQLExecutionEnd': 1, 'SparkListenerApplicationEnd': 1}),
    'eventlog_4nodes_8cores_dynamic_alloc.zstd': (665, {'SparkListenerTaskStart': 235, 'SparkListenerTaskEnd': 235, 'SparkListenerDriverAccumUpdates': 25, 'SparkListenerJobStart': 20, 'SparkListenerStageSubmitted': 20, 'SparkListenerStageCompleted': 20, 'SparkListenerJobEnd': 20, 'SparkListenerBlockManagerAdded': 16, 'SparkListenerExecutorAdded': 15, 'SparkListenerSQLAdaptiveExecutionUpdate': 15, 'SparkListenerBlockManagerRemoved': 14, 'SparkListenerExecutorRemoved': 14, 'SparkListenerSQLExecutionStart': 5, 'SparkListenerSQLExecutionEnd': 5, 'SparkListenerLogStart': 1, 'SparkListenerResourceProfileAdded': 1, 'SparkListenerMiscellaneousProcessAdded': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerApplicationEnd': 1}),
    'eventlog_v2_spark-110be3a8424d4a2789cb88134418217b': (132, {'SparkListenerTaskStart': 39, 'SparkListenerTaskEnd': 39, 'SparkListenerJobStart': 6, 'SparkListenerStageSubmitted': 6, 'SparkListenerStageCompleted': 6, 'SparkListenerJobEnd': 6, 'SparkListenerDriverAccumUpdates': 6, 'SparkListenerBlockManagerAdded': 5, 'SparkListenerExecutorAdded': 4, 'SparkListenerSQLAdaptiveExecutionUpdate': 4, 'SparkListenerSQLExecutionStart': 3, 'SparkListenerSQLExecutionEnd': 3, 'SparkListenerLogStart': 1, 'SparkListenerResourceProfileAdded': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerApplicationEnd': 1}),
    'application_1713000000000_0001_1.zstd': (81, {'SparkListenerTaskStart': 21, 'SparkListenerTaskEnd': 21, 'SparkListenerJobStart': 5, 'SparkListenerStageSubmitted': 5, 'SparkListenerStageCompleted': 5, 'SparkListenerJobEnd': 5, 'SparkListenerDriverAccumUpdates': 4, 'SparkListenerSQLExecutionStart': 3, 'SparkListenerSQLExecutionEnd': 3, 'SparkListenerSQLAdaptiveExecutionUpdate': 3, 'SparkListenerLogStart': 1, 'SparkListenerResourceProfileAdded': 1, 'SparkListenerExecutorAdded': 1, 'SparkListenerBlockManagerAdded': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1}),
    'application_1713000000000_0001_2.zstd': (268, {'SparkListenerTaskStart': 50, 'SparkListenerTaskEnd': 50, 'SparkListenerSQLAdaptiveExecutionUpdate': 26, 'SparkListenerJobStart': 23, 'SparkListenerStageSubmitted': 23, 'SparkListenerStageCompleted': 23, 'SparkListenerJobEnd': 23, 'SparkListenerDriverAccumUpdates': 23, 'SparkListenerSQLExecutionStart': 10, 'SparkListenerSQLExecutionEnd': 10, 'SparkListenerLogStart': 1, 'SparkListenerResourceProfileAdded': 1, 'SparkListenerExecutorAdded': 1, 'SparkListenerBlockManagerAdded': 1, 'SparkListenerEnvironmentUpdate': 1, 'SparkListenerApplicationStart': 1, 'SparkListenerApplicationEnd': 1}),
}


def read_all(source: LogSource, strict: bool = False):
    warnings: list[str] = []
    events = list(read_events(source, strict=strict, warn=warnings.append))
    return events, warnings


def one(path: Path) -> LogSource:
    (source,) = discover([path])
    return source


def plain_bytes(path: Path) -> bytes:
    with open(path, "rb") as f:
        return b"".join(codecs.chunks(path, f))


@pytest.mark.parametrize("name", sorted(PROVENANCE))
def test_real_logs_match_provenance(name):
    lines, counts = PROVENANCE[name]
    source = one(REAL / name)
    events, warnings = read_all(source, strict=True)
    assert warnings == []
    assert len(events) == lines
    # PROVENANCE.md counts by short name; some listener events carry their full class name
    assert Counter(e["Event"].rpartition(".")[2] for _, _, e in events) == counts
    assert [n for _, n, _ in events] == list(range(1, lines + 1))
    assert not source.in_progress


def test_discover_directory_of_many_applications(tmp_path):
    sources = discover([REAL])
    assert [Path(s.name).name for s in sources] == sorted(PROVENANCE)
    rolling = next(s for s in sources if s.name.endswith(ROLLING))
    assert [p.name for p in rolling.parts] == ["events_1_spark-110be3a8424d4a2789cb88134418217b"]

    mixed = tmp_path / "mixed"
    shutil.copytree(REAL, mixed)
    shutil.copytree(CODECS / "eventlog_v2_pyspark-rolling-lz4", mixed / "eventlog_v2_pyspark-rolling-lz4")
    shutil.copy(CODECS / "pyspark-snappy.snappy", mixed)
    (mixed / "README.md").write_text("# notes\n")
    (mixed / ".event_log_1.crc").write_bytes(b"crc\x00\x01")
    (mixed / "event_log_1.crc").write_bytes(b"crc\x00\x01")
    (mixed / ".hidden").write_text("x")
    (mixed / "nested").mkdir()
    shutil.copy(REAL / "event_log_1", mixed / "nested" / "app-1.inprogress")
    names = [Path(s.name).relative_to(mixed).as_posix() for s in discover([mixed])]
    assert names == sorted(list(PROVENANCE) + ["eventlog_v2_pyspark-rolling-lz4", "pyspark-snappy.snappy",
                                               "nested/app-1.inprogress"])
    assert [s.in_progress for s in discover([mixed / "nested"])] == [True]


def test_directory_without_logs(tmp_path):
    (tmp_path / "README.md").write_text("nothing here")
    (tmp_path / ".hidden").write_text("{}")
    with pytest.raises(EventLogError, match="holds no event logs"):
        discover([tmp_path])
    with pytest.raises(EventLogError, match="no such file"):
        discover([tmp_path / "absent"])


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_codec_logs_decode_as_spark_does(name):
    """Each codec file decodes to exactly the bytes Spark's own CompressionCodec gives."""
    expected = MANIFEST[name]
    data = plain_bytes(CODECS / name)
    assert hashlib.sha256(data).hexdigest() == expected["sha256"]
    assert data.count(b"\n") == expected["lines"]
    source = one(CODECS / name.split("/")[0])
    events, warnings = read_all(source, strict=True)
    assert warnings == [] and len(events) == expected["lines"]
    assert events[0][2]["Event"] == "SparkListenerLogStart"
    assert events[0][2]["Spark Version"].startswith("4.")
    assert events[-1][2]["Event"] == "SparkListenerApplicationEnd"


def test_codec_magic_without_suffix_is_decoded(tmp_path):
    shutil.copy(CODECS / "pyspark-lz4.lz4", tmp_path / "app-lz4")
    shutil.copy(REAL / "spark2-eventlog.zstd", tmp_path / "app-zstd")
    assert [len(read_all(s)[0]) for s in discover([tmp_path])] == [32, 58]


def split_parts(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


@pytest.mark.parametrize("codec", ["", ".zstd", ".lz4"])
def test_rolling_dir_with_lines_across_parts(tmp_path, codec):
    data = (REAL / "event_log_1").read_bytes()
    newline = data.index(b"\n", 5000)
    start = data.rindex(b"\n", 0, newline) + 1
    cuts = [(start + newline) // 2, data.index(b"\n", 9000) + 1, len(data) - 40]  # mid-line, boundary, mid-line
    parts = split_parts(data, cuts)
    assert len(parts) == 4
    app = tmp_path / "eventlog_v2_app-1"
    app.mkdir()
    for n, part in zip([1, 2, 9, 10], parts):  # numeric, not lexical, order: 9 before 10
        if codec == ".zstd":
            part = zstandard.ZstdCompressor().compress(part)
        elif codec == ".lz4":
            part = lz4_java_stream(part)
        (app / f"events_{n}_app-1{codec}").write_bytes(part)
    (app / "appstatus_app-1.inprogress").write_bytes(b"")
    source = one(app)
    assert source.in_progress
    assert [p.name for p in source.parts] == [f"events_{n}_app-1{codec}" for n in (1, 2, 9, 10)]
    events, warnings = read_all(source, strict=True)
    assert warnings == []
    expected = [json.loads(line) for line in data.splitlines()]
    assert [e for _, _, e in events] == expected
    # the line cut by the first boundary is reported where it starts; part 2 counts its tail as its line 1
    spanning = data[:newline].count(b"\n") + 1
    assert (Path(events[spanning - 1][0]).name, events[spanning - 1][1]) == (f"events_1_app-1{codec}", spanning)
    assert (Path(events[spanning][0]).name, events[spanning][1]) == (f"events_2_app-1{codec}", 2)
    (app / "appstatus_app-1.inprogress").rename(app / "appstatus_app-1")
    assert not one(app).in_progress


def test_in_progress_log_with_cut_last_line(tmp_path):
    data = (REAL / "event_log_1").read_bytes()
    live = tmp_path / "app-1.inprogress"
    live.write_bytes(data[:-30])
    source = one(live)
    assert source.in_progress
    events, warnings = read_all(source, strict=True)  # never raises, even strict
    assert len(events) == 32
    waits = f"{live}:33: last line has no newline yet (%d bytes: log still being written); left for when it ends"
    assert warnings == [waits % (len(data.splitlines()[-1]) - 29)]
    # a last line that is whole but lacks its newline waits too, as `watch` waits for it (the two
    # read the same bytes alike: a load counted the event that the live generation did not yet)
    live.write_bytes(data.rstrip(b"\n"))
    events, warnings = read_all(one(live), strict=True)
    assert len(events) == 32 and warnings == [waits % len(data.splitlines()[-1])]
    # in a finished log it is kept, and a last line cut short is said so
    done = tmp_path / "app-1"
    done.write_bytes(data.rstrip(b"\n"))
    events, warnings = read_all(one(done), strict=True)
    assert warnings == [] and len(events) == 33
    assert events[-1][1:] == (33, json.loads(data.splitlines()[-1]))
    done.write_bytes(data[:-30])
    events, warnings = read_all(one(done), strict=True)
    assert len(events) == 32 and warnings == [f"{done}:33: last line is cut short ({len(data.splitlines()[-1]) - 29} "
                                              "bytes, no newline: log still being written?); ignored"]


def test_in_progress_compressed_log_cut_mid_frame(tmp_path):
    data = (REAL / "rp_sql_eventlog.zstd").read_bytes()
    live = tmp_path / "app.zstd.inprogress"
    live.write_bytes(data[:60000])
    source = one(live)
    assert source.in_progress
    events, warnings = read_all(source, strict=True)
    assert 0 < len(events) < 477
    assert any("zstd stream cut short" in w for w in warnings)
    for codec in ("pyspark-lz4.lz4", "pyspark-snappy.snappy", "pyspark-lzf.lzf"):
        data = (CODECS / codec).read_bytes()
        cut = tmp_path / (codec + ".inprogress")
        cut.write_bytes(data[:len(data) * 2 // 3])
        events, warnings = read_all(one(cut), strict=True)
        assert 0 < len(events) < 32 and any("cut short" in w for w in warnings), codec


def test_a_text_file_given_by_mistake_gives_one_warning(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("".join(f"line {i} of a text file\n" for i in range(1, 1001)) + '{"Event": "SparkListenerLogStart"}\n')
    events, warnings = read_all(one(text))
    assert len(events) == 1
    assert len(warnings) == 1 and warnings[0].startswith(f"{text}:1: malformed JSON (")
    assert warnings[0].endswith("; 1000 lines skipped in all (the others not Spark events either: lines 2, 3, 4, 5, 6, ...)")


def test_malformed_lines_warn_or_raise_when_strict(tmp_path):
    lines = (REAL / "event_log_1").read_bytes().splitlines(keepends=True)
    lines[4] = b'{"Event": "SparkListenerTaskStart", "Stage ID": \n'
    lines[6] = b'[1, 2, 3]\n'
    lines[8] = b'{"Stage ID": 3}\n'
    lines[10] = b"   \n"
    bad = tmp_path / "bad-log"
    bad.write_bytes(b"".join(lines))
    events, warnings = read_all(one(bad))
    assert len(events) == 29
    # one warning for the file, at its first bad line, with the count and the other lines
    assert [w.split(": ", 1)[0] for w in warnings] == [f"{bad}:5"]
    assert "malformed JSON" in warnings[0] and warnings[0].endswith("; 3 lines skipped in all (the others not "
                                                                    "Spark events either: lines 7, 9)")
    bad.write_bytes(b"".join(lines[:6]))
    assert read_all(one(bad))[1][0].endswith("; line skipped")  # one bad line: as before
    with pytest.raises(EventLogError, match="malformed JSON") as info:
        read_all(one(bad), strict=True)
    assert (info.value.path, info.value.line) == (str(bad), 5)


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", zstandard.ZstdCompressor().compress(b"")])
def test_empty_log(tmp_path, content):
    empty = tmp_path / "app.zstd" if content.startswith(b"\x28\xb5") else tmp_path / "app"
    empty.write_bytes(content)
    with pytest.raises(EventLogError, match="empty event log") as info:
        read_all(one(empty))
    assert info.value.path == str(empty)


def test_log_cut_before_its_first_block(tmp_path):
    cut = tmp_path / "app.lzf.inprogress"
    cut.write_bytes((CODECS / "pyspark-lzf.lzf").read_bytes()[:1000])
    with pytest.raises(EventLogError, match=r"empty event log \(lzf stream cut short at byte 1000"):
        read_all(one(cut))


def test_unknown_binary_file(tmp_path):
    binary = tmp_path / "app.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(EventLogError, match="binary data, not a JSON-lines event log") as info:
        read_all(one(binary))
    assert info.value.path == str(binary)


def test_unreadable_part(tmp_path):
    with pytest.raises(EventLogError, match="cannot read") as info:
        read_all(LogSource(name="x", parts=[tmp_path]))
    assert info.value.path == str(tmp_path)


@pytest.mark.parametrize("name, offset, message", [
    ("pyspark-zstd.zstd", 0, "corrupt zstd stream"),
    ("pyspark-lz4.lz4", 0, "corrupt lz4 stream at byte 0: no LZ4Block magic"),
    ("pyspark-lz4.lz4", 10, "corrupt lz4 stream at byte 0: bad block header"),
    ("pyspark-snappy.snappy", 3, "corrupt snappy stream at byte 0"),
    ("pyspark-snappy.snappy", 18, "corrupt snappy stream"),
    ("pyspark-lzf.lzf", 1, "corrupt lzf stream at byte 0"),
])
def test_corrupt_compressed_stream(tmp_path, name, offset, message):
    data = bytearray((CODECS / name).read_bytes())
    data[offset:offset + 4] = bytes(b ^ 0xA5 for b in data[offset:offset + 4])
    corrupt = tmp_path / name
    corrupt.write_bytes(bytes(data))
    with pytest.raises(EventLogError, match=message) as info:
        read_all(one(corrupt))
    assert info.value.path == str(corrupt)


def test_plain_file_named_zstd(tmp_path):
    wrong = tmp_path / "app.zstd"
    shutil.copy(REAL / "event_log_1", wrong)
    with pytest.raises(EventLogError, match=f"{wrong}: corrupt zstd stream"):
        read_all(one(wrong))


def test_lzf_overlapping_back_reference():
    # literal "ab", then copy 6 bytes from distance 2 (overlapping): "abababab"
    assert codecs.lzf_decode(b"\x01ab\x80\x01", 8) == b"abababab"
    with pytest.raises(ValueError):
        codecs.lzf_decode(b"\x80\x05", 2)


def test_events_stream_from_large_chunks(tmp_path, monkeypatch):
    """Lines split across decompressed chunks (tiny chunks here) come out whole and numbered."""
    monkeypatch.setattr(codecs, "CHUNK", 777)
    events = read_all(one(REAL / "local-1532512550423"), strict=True)[0]
    assert [n for _, n, _ in events] == list(range(1, 31))


def test_missing_codec_library_names_the_package():
    with pytest.raises(CodecError, match=r"zstd-compressed event log: install the Python package "
                                                r"'zstandard' \(pip install zstandard\)"):
        codecs._require("protoxplore_no_such_module", "zstandard", "zstd")


def test_directory_files_that_are_not_event_logs_are_skipped_with_a_warning(tmp_path):
    shutil.copy(REAL / "event_log_1", tmp_path / "event_log_1")
    shutil.copy(CODECS / "pyspark-snappy.snappy", tmp_path)  # compressed logs are sniffed decompressed
    (tmp_path / "truth.json").write_text('{\n  "scenario": "x"\n}\n')
    (tmp_path / "notes.txt").write_text("load these on Monday\n")
    warnings = []
    names = [Path(s.name).name for s in discover([tmp_path], warn=warnings.append)]
    assert names == ["event_log_1", "pyspark-snappy.snappy"]
    assert sorted(Path(w.split(":")[0]).name for w in warnings) == ["notes.txt", "truth.json"]
    assert all("not a Spark event log" in w for w in warnings)
    # Named explicitly, a file is always read, and its problem reported.
    from protoxplore.loader.logs.trace import read_trace
    with pytest.raises(EventLogError, match="truth.json: holds no Spark events"):
        read_trace(discover([tmp_path / "truth.json"]))


def test_a_task_event_with_a_broken_identity_is_skipped_naming_its_line(tmp_path):
    """Found by a hostile-input audit, each silently changed the numbers before: a TaskEnd read twice
    counted its task twice (10 tasks read as 11, blocked 121.3 s as 129.8 s), a text or negative Stage
    ID made a query of its own, a host that is no text took blame on a host no command lists, a task
    that finished before its launch was dropped with a count naming no line. Each
    such event is now skipped with a note naming its file and line (an error with --strict)."""
    from protoxplore.loader.logs.trace import read_trace

    lines = (REAL / "event_log_1").read_text().splitlines(keepends=True)
    ends = [i for i, line in enumerate(lines) if '"SparkListenerTaskEnd"' in line]
    broken = list(lines)
    broken.insert(ends[0] + 1, lines[ends[0]])  # read twice
    broken[ends[1] + 1] = broken[ends[1] + 1].replace('"Stage ID":0,', '"Stage ID":"zero",', 1)
    broken[ends[2] + 1] = broken[ends[2] + 1].replace('"Host":"', '"Host":null,"Was":"', 1)
    broken[ends[3] + 1] = re.sub(r'"Finish Time":\d+', '"Finish Time":1000', broken[ends[3] + 1], count=1)
    log = tmp_path / "application_1457600942802_0093"
    log.write_text("".join(broken))
    launch = json.loads(broken[ends[3] + 1])["Task Info"]["Launch Time"]
    said = []
    tasks = read_trace(discover([log]), warn=said.append).tasks
    assert len(tasks) == 10 - 3 and set(tasks["stage_id"]) == {0} and tasks["host"].notna().all()
    assert said == [f"{log}:{ends[0] + 2}: SparkListenerTaskEnd has an unexpected shape (ValueError('a second "
                    f"TaskEnd of task 1')); event skipped",
                    f"{log}:{ends[1] + 2}: SparkListenerTaskEnd has an unexpected shape (ValueError(\"Stage ID "
                    f"'zero' is no stage id\")); event skipped",
                    f"{log}:{ends[2] + 2}: SparkListenerTaskEnd has an unexpected shape (ValueError('Host None is "
                    f"no host name')); event skipped",
                    f"{log}:{ends[3] + 2}: SparkListenerTaskEnd has an unexpected shape (ValueError('Launch Time "
                    f"{launch} and Finish Time 1000 are no task times')); event skipped"]
    with pytest.raises(EventLogError, match=rf"^{log}:{ends[0] + 2}: SparkListenerTaskEnd has an unexpected shape"):
        read_trace(discover([log]), strict=True)
