"""What the bench reads of the servers it runs: the memory of their workers."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from backend.devtools.bench.servers import worker_rss_mb

# A Python process that holds 600 MiB, touched so that it is resident.
HOLD = "x = bytearray(600 * 1024 * 1024); x[::4096] = b'1' * len(x[::4096]); import time; time.sleep(30)"


def test_worker_rss_reads_the_workers_not_the_supervisor() -> None:
    """`--workers N`: a supervisor's Python children; one worker in process: the server itself."""
    mine = worker_rss_mb(os.getpid())
    assert mine is not None and mine < 600  # no child yet: this process's own memory
    child = subprocess.Popen([sys.executable, "-c", HOLD])
    try:
        deadline = time.monotonic() + 20
        while (worker_rss_mb(os.getpid()) or 0) < 600 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (worker_rss_mb(os.getpid()) or 0) >= 600  # the child (a "worker"), not this process
        alone = worker_rss_mb(child.pid)
        assert alone is not None and alone >= 600  # no children of its own: itself
    finally:
        child.kill()
        child.wait()
