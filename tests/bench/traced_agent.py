"""`python -m tests.bench.traced_agent`: our agent with `tracemalloc` on, for hunting leaks.

For benchmarks and the memory-slope test only, never shipped in the adapter: the agent runs as
`python -m adapter` does, and (each signal is handled between bytecodes on the main thread,
where the event loop runs, after a full collection):

- each `SIGUSR1` writes a `tracemalloc` snapshot to `$CLAUDE_ACP_BENCH_SNAPSHOTS/<n>.snap` and
  the live objects the collector tracks, counted by type, to `<n>.types` (JSON), so a driver
  can diff what the rounds left behind (`python -m tests.bench.slopes --trace`);
- each `SIGUSR2` writes `<n>.count` (JSON): the interpreter's allocated blocks
  (`sys.getallocatedblocks`) and the objects the collector tracks. Exact and cheap, where the
  resident set moves in pages and arenas: what `tests/e2e/test_memory_slopes.py` bounds.

With `CLAUDE_ACP_BENCH_TRACEMALLOC=0` tracing stays off (SIGUSR1 then writes nothing): the
agent runs at its own speed and SIGUSR2's counts are its own.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import signal
import sys
import tracemalloc
from pathlib import Path
from types import FrameType

SNAPSHOTS_ENV = "CLAUDE_ACP_BENCH_SNAPSHOTS"
TRACEMALLOC_ENV = "CLAUDE_ACP_BENCH_TRACEMALLOC"
FRAMES = 12  # deep enough to see which of our modules allocated, through the SDKs' frames


def _write(target: Path, text: str) -> None:
    target.with_suffix(".tmp").write_text(text)
    target.with_suffix(".tmp").rename(target)  # a reader never sees half a file


def _install(folder: Path) -> None:
    snapshots, counts = itertools.count(), itertools.count()

    def snapshot(signum: int, frame: FrameType | None) -> None:
        if not tracemalloc.is_tracing():
            return
        gc.collect()
        target = folder / f"{next(snapshots)}.snap"
        types: dict[str, int] = {}
        for obj in gc.get_objects():
            name = f"{type(obj).__module__}.{type(obj).__qualname__}"
            types[name] = types.get(name, 0) + 1
        target.with_suffix(".types").write_text(json.dumps(types))
        tracemalloc.take_snapshot().dump(str(target.with_suffix(".tmp")))
        target.with_suffix(".tmp").rename(target)

    def count(signum: int, frame: FrameType | None) -> None:
        gc.collect()
        found = {"blocks": sys.getallocatedblocks(), "objects": len(gc.get_objects())}
        _write(folder / f"{next(counts)}.count", json.dumps(found))

    signal.signal(signal.SIGUSR1, snapshot)
    signal.signal(signal.SIGUSR2, count)


def main() -> int:
    if os.environ.get(TRACEMALLOC_ENV) != "0":
        tracemalloc.start(FRAMES)
    _install(Path(os.environ[SNAPSHOTS_ENV]))
    from adapter.app.cli import main as adapter_main

    return adapter_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
