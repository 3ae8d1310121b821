"""Instructions per turn: a measure of a turn's CPU that does not move with the host.

CPU time per turn on this machine swings by 10-20% from one minute to the next (the CPU probe beside
it moved from 52 to 95 ms within a quarter of an hour), as much as most changes worth making. The
number of instructions the process executes does not: the load phase's simple turns (add, list,
complete, delete by title), one at a time through the app in this process on Postgres against the
scripted fake model (as `stages.timed_stages` runs them), counted by valgrind's callgrind while
they run and only then (`--instr-atstart=no`, switched on and off by vgdb), come
out the same to 0.3% run to run. What it does not see: the time spent waiting for memory (a large
regular expression run cold costs more than its instructions say), the kernel's work for a socket,
and Postgres. Read it beside the served CPU, never instead of it. The driving client's instructions
(httpx's ASGI transport) are in the count; they do not change with Taskchat's code.

`measure` starts this module under valgrind (about 40 s for 100 turns); run alone:

    python -m backend.devtools.bench.instructions --database-url URL --fake-url URL/v1 [--turns 100]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from backend.app.main import create_app
from backend.devtools.bench import stages

UNDER_VALGRIND = "TASKCHAT_COUNTING"  # set for the process valgrind runs
MODULE = "backend.devtools.bench.instructions"  # (not __name__: run with -m, that is "__main__")
_COLLECTED = re.compile(r"Collected : (\d+)")  # valgrind's count, on its stderr
_FAILED = re.compile(r"^failed=(\d+)$", re.MULTILINE)  # the counted turns that failed, on this module's stdout


def measure(*, database_url: str, fake_url: str, turns: int = 100) -> dict[str, Any]:
    """This module run under callgrind for `turns` turns after a warm-up: instructions per turn.
    Without valgrind on the PATH, says so instead of a figure."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return {"skipped": "valgrind not found (apt-get install valgrind)"}
    with tempfile.TemporaryDirectory(prefix="taskchat-instructions-") as tmp:
        command = [
            valgrind,
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={Path(tmp) / 'callgrind.out'}",
            sys.executable,
            "-m",
            MODULE,
            "--database-url",
            database_url,
            "--fake-url",
            fake_url,
            "--turns",
            str(turns),
        ]
        # The system allocator, not Python's: valgrind follows its calls, as it cannot pymalloc's arenas.
        env = {**os.environ, UNDER_VALGRIND: "1", "PYTHONMALLOC": "malloc"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200, check=False)
    found, failed = _COLLECTED.search(done.stderr), _FAILED.search(done.stdout)
    if done.returncode != 0 or found is None or failed is None:
        raise RuntimeError(f"the counted run failed ({done.returncode}): {done.stderr[-2000:]}")
    return {
        "turns": turns,
        "failed": int(failed.group(1)),
        "instructions_per_turn_m": round(int(found.group(1)) / turns / 1e6, 3),
    }


async def _counted(*, database_url: str, fake_url: str, turns: int) -> int:
    """`turns` turns one at a time, counted; a warm-up of at least 64 before (each user's first turns
    and the first of each kind run code paths once that a served worker has long run)."""
    app = create_app(stages.app_settings(database_url, fake_url, "direct"), served_gc=True)
    tag = f"counted-{int(time.time() * 1000)}"
    async with stages.in_process(app) as driving:
        warm, counted = stages.new_users(f"{tag}w"), stages.new_users(f"{tag}c")
        failed = await stages.drive(driving, warm, turns=max(turns // 2, 64), concurrency=1)
        _collect("on")
        try:
            failed += await stages.drive(driving, counted, turns=turns, concurrency=1)
        finally:
            _collect("off")
    return failed


def _collect(switch: str) -> None:
    """Callgrind's collection switched on or off, by its monitor command sent with vgdb. This process
    keeps running (a busy wait) until vgdb is done: a running process is where valgrind looks for the
    command, so vgdb never has to wake it with ptrace (`--max-invoke-ms=0`), which not every host allows."""
    command = ["vgdb", "--max-invoke-ms=0", f"--pid={os.getpid()}", "instrumentation", switch]
    vgdb = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while vgdb.poll() is None:
        pass
    if vgdb.returncode != 0:
        raise RuntimeError(f"vgdb could not switch the count {switch}: {vgdb.stderr.read() if vgdb.stderr else b''!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description="instructions per turn, counted by callgrind (run by `measure`)")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--fake-url", required=True)
    parser.add_argument("--turns", type=int, default=100)
    args = parser.parse_args()
    if not os.environ.get(UNDER_VALGRIND):
        print(measure(database_url=args.database_url, fake_url=args.fake_url, turns=args.turns))
        return 0
    failed = asyncio.run(_counted(database_url=args.database_url, fake_url=args.fake_url, turns=args.turns))
    print(f"failed={failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
