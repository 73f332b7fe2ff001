"""Write small real Spark event logs with each compression codec Spark offers.

Rerun from the repository root (needs PySpark and Java 17; output replaces the committed files)::

    /tmp/venv/bin/pip install pyspark
    /tmp/venv/bin/python tests/data/eventlogs/make_codec_logs.py

For each codec (lz4, lzf, snappy, zstd) a tiny SQL job runs in its own SparkContext with
``spark.eventLog.compress=true`` and rolling disabled, so Spark writes one file
``codecs/pyspark-<codec>.<codec>``; one more run (lz4) keeps Spark 4's default rolling layout
(``codecs/eventlog_v2_pyspark-rolling-lz4/``). The uncompressed reference is taken with
Spark's own ``CompressionCodec`` (through the JVM), and its line count and SHA-256 go into
``codecs/manifest.json``, so the tests compare our decoders with Spark's, not with themselves.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession

OUT = Path(__file__).resolve().parent / "codecs"


def run_job(codec: str, log_dir: str, rolling: bool) -> None:
    spark = (SparkSession.builder.master("local[2]").appName(f"codec-{codec}")
             .config("spark.eventLog.enabled", "true")
             .config("spark.eventLog.dir", log_dir)
             .config("spark.eventLog.compress", "true")
             .config("spark.eventLog.compression.codec", codec)
             .config("spark.eventLog.rolling.enabled", str(rolling).lower())
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "3")
             .getOrCreate())
    df = spark.range(0, 20000, numPartitions=4)
    df.groupBy((df.id % 7).alias("k")).count().collect()
    spark.stop()


def spark_decompress(path: Path, codec: str) -> bytes:
    """Decompress with Spark's own codec classes, the reference our Python decoders must match."""
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.eventLog.enabled", "false").getOrCreate())  # builder options persist
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.sc().conf()
    stream = jvm.org.apache.spark.io.CompressionCodec.createCodec(conf, codec) \
        .compressedInputStream(jvm.java.io.FileInputStream(str(path)))
    data = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    stream.close()
    spark.stop()
    return data


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    manifest = {}
    for codec, rolling in (("lz4", False), ("lzf", False), ("snappy", False), ("zstd", False), ("lz4", True)):
        with tempfile.TemporaryDirectory() as tmp:
            run_job(codec, "file://" + tmp, rolling)
            (produced,) = glob.glob(os.path.join(tmp, "*"))
            if rolling:
                target = OUT / "eventlog_v2_pyspark-rolling-lz4"
                target.mkdir()
                for p in sorted(Path(produced).iterdir()):
                    if p.name.startswith("."):
                        continue  # Hadoop .crc side files
                    new = p.name.replace(Path(produced).name[len("eventlog_v2_"):], "pyspark-rolling-lz4")
                    shutil.copy(p, target / new)
                files = sorted(target.glob("events_*"))
            else:
                target = OUT / f"pyspark-{codec}.{codec}"
                shutil.copy(produced, target)
                files = [target]
        for f in files:
            plain = spark_decompress(f, codec)
            manifest[str(f.relative_to(OUT))] = {
                "codec": codec, "bytes": len(plain), "lines": plain.count(b"\n"),
                "sha256": hashlib.sha256(plain).hexdigest()}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(json.dumps(manifest, indent=1))


if __name__ == "__main__":
    main()
