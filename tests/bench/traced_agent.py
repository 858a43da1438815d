"""`python -m tests.bench.traced_agent`: our agent with `tracemalloc` on, for hunting leaks.

For benchmarks only, never shipped in the adapter: the agent runs as `python -m adapter` does,
and each `SIGUSR1` writes a `tracemalloc` snapshot to `$CLAUDE_ACP_BENCH_SNAPSHOTS/<n>.snap`
and the live objects the collector tracks, counted by type, to `<n>.types` (JSON)
(the signal is handled between bytecodes on the main thread, where the event loop runs), so a
driver can snapshot the agent between rounds and diff what the rounds left behind
(`python -m tests.bench.slopes --trace`).
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
FRAMES = 12  # deep enough to see which of our modules allocated, through the SDKs' frames


def _install(folder: Path) -> None:
    counter = itertools.count()

    def snapshot(signum: int, frame: FrameType | None) -> None:
        gc.collect()
        target = folder / f"{next(counter)}.snap"
        types: dict[str, int] = {}
        for obj in gc.get_objects():
            name = f"{type(obj).__module__}.{type(obj).__qualname__}"
            types[name] = types.get(name, 0) + 1
        target.with_suffix(".types").write_text(json.dumps(types))
        tracemalloc.take_snapshot().dump(str(target.with_suffix(".tmp")))
        target.with_suffix(".tmp").rename(target)  # a reader never sees half a snapshot

    signal.signal(signal.SIGUSR1, snapshot)


def main() -> int:
    tracemalloc.start(FRAMES)
    _install(Path(os.environ[SNAPSHOTS_ENV]))
    from adapter.app.cli import main as adapter_main

    return adapter_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
