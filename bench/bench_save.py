"""Saving after a load: how long, and how long readers wait meanwhile. Prints figures; run:

    python bench/bench_save.py [--queries 300]

Loads a synthetic workload into a temporary home, then saves it twice while a thread pings the
server every 10 ms: once as loads save now (BGSAVE, the loader waits for it to finish), once as they
saved before (a blocking SAVE, during which the server answers nobody).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from protoxplore.storage.embedded import EmbeddedEngine

CLI = [sys.executable, "-m", "protoxplore.cli"]


def pings(engine: EmbeddedEngine, stop: threading.Event, seconds: list[float]) -> None:
    client = engine.client(timeout=60)
    while not stop.is_set():
        started = time.perf_counter()
        client.ping()
        seconds.append(time.perf_counter() - started)
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="bench-save"))
    subprocess.run(CLI + ["synth", str(home / "log"), "--queries", str(args.queries), "--home", str(home)], check=True,
                   capture_output=True)
    subprocess.run(CLI + ["load", str(home / "log"), "--home", str(home)], check=True, capture_output=True)
    engine = EmbeddedEngine(home)
    engine.start()
    try:
        for name, save in (("BGSAVE, waited for (loads now)", engine.save),
                           ("blocking SAVE (loads before)", lambda: engine.client(timeout=None).save())):
            stop, seconds = threading.Event(), []
            reader = threading.Thread(target=pings, args=(engine, stop, seconds))
            reader.start()
            started = time.perf_counter()
            save()
            took = time.perf_counter() - started
            stop.set()
            reader.join()
            print(f"{name}: {took:.2f} s; slowest ping meanwhile {max(seconds) * 1000:.0f} ms over {len(seconds)} pings")
        print(f"dump: {(engine.dir / 'protoxplore.rdb').stat().st_size / 2**20:.0f} MiB")
    finally:
        engine.stop()


if __name__ == "__main__":
    main()
