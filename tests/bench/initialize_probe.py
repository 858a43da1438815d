"""`python -m tests.bench.initialize_probe {ours|floor}`: one process that does what an agent does
up to its answer to `initialize`, without stdio, so that a tool counting instructions can run it:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python -m tests.bench.initialize_probe ours

`ours`: the serving path's imports (`adapter.app.serving` and what it imports before serving),
the agent built in its task group, and `initialize` (opted in to sessionFailure) answered and
dumped as acp dumps it. `floor`: the floor agent's imports and answer (`floor_agent.py`). Both
first run `prepare_imports`, as the agents do. The instruction count does not stretch with the
machine's load, as wall-clock and even CPU times do; the difference between the two is what
ours adds to the floor before its first answer. It prints the modules loaded by then. Ours also
pauses the garbage collector and puts the dataclass code cache in place first, and makes the
agent with the stand-in task group, as `claude-acp` serving does; `tests.bench.spawn_probe`
counts the real processes on stdio.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any, cast

from adapter.lean_imports import cache_dataclass_code, pause_collection, prepare_imports

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

# `python -m adapter`'s entry point, the serving module and what it imports before serving.
SERVING_PATH = (
    "adapter.app.cli",
    "adapter.app.serving",
    "adapter.wire.guard",
    "adapter.wire.stdio",
    "adapter.wire.trace",
)
OPT_IN: dict[str, Any] = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}


async def _ours() -> None:
    from acp.schema import InitializeRequest

    from adapter.agent.acp_agent import ClaudeAcpAgent
    from adapter.app.serving import LateTaskGroup
    from adapter.claude.runtime_settings import from_environment

    for name in SERVING_PATH:
        importlib.import_module(name)
    request = InitializeRequest.model_validate(
        {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}}
    )
    # As serving does: the agent's task group is entered after the answer (`LateTaskGroup`).
    settings = from_environment(None, dict(os.environ))
    agent = ClaudeAcpAgent(task_group=cast("TaskGroup", LateTaskGroup()), settings=settings)
    answer = await agent.initialize(request.protocol_version, request.client_capabilities)
    answer.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _floor() -> None:
    from acp.schema import InitializeRequest

    from tests.bench.floor_agent import FloorAgent

    request = InitializeRequest.model_validate(
        {"protocolVersion": 1, "clientCapabilities": {"_meta": OPT_IN}}
    )
    answer = await FloorAgent().initialize(request.protocol_version, request.client_capabilities)
    answer.model_dump(mode="json", by_alias=True, exclude_none=True)


def main(argv: list[str]) -> int:
    if argv not in (["ours"], ["floor"]):
        print(__doc__, file=sys.stderr)
        return 2
    if argv == ["ours"]:  # as `claude-acp`'s main does when it serves
        pause_collection()
        cache_dataclass_code()
    prepare_imports()
    asyncio.run(_ours() if argv == ["ours"] else _floor())
    print(f"{argv[0]}: {len(sys.modules)} modules loaded by the answer to initialize")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
