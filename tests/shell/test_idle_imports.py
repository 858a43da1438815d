"""A first session's spawn path (a new session's, then what a resume or load adds, then the
`acp` models those requests are read with) is made while the client leaves the agent idle after
`initialize` (adapter/app/serving.py, `import_while_quiet`), a step at a time, and nothing more
once the client sends anything."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from adapter.app.serving import SPAWN_PATH, import_while_quiet
from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader
from tests.support.fresh_python import printed_json


class _Transport:
    def __init__(self, quiet: list[bool]) -> None:
        self.initialized = asyncio.Event()
        self._quiet = quiet

    def quiet(self) -> bool:
        return self._quiet.pop(0)


async def _run(transport: _Transport, imported: list[str]) -> None:
    await import_while_quiet(transport, ("one", "two", "three"), 0, imported.append)


@pytest.mark.asyncio
async def test_nothing_is_imported_before_initialize_is_answered() -> None:
    imported: list[str] = []
    waiting = asyncio.ensure_future(_run(_Transport([True, True, True]), imported))
    for _ in range(5):
        await asyncio.sleep(0)
    assert imported == [] and not waiting.done()
    waiting.cancel()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("quiet", "expected"),
    [([True, True, True], ["one", "two", "three"]), ([True, False, True], ["one"])],
    ids=["each-module-while-the-client-stays-quiet", "a-message-from-the-client-ends-it"],
)
async def test_modules_are_imported_while_the_client_stays_quiet(
    quiet: list[bool], expected: list[str]
) -> None:
    imported: list[str] = []
    transport = _Transport(list(quiet))
    transport.initialized.set()
    await _run(transport, imported)
    assert imported == expected


@pytest.mark.asyncio
async def test_a_module_that_does_not_import_ends_it_quietly() -> None:
    imported: list[str] = []

    def failing(name: str) -> None:
        imported.append(name)
        raise ImportError(name)

    transport = _Transport([True, True, True])
    transport.initialized.set()
    await import_while_quiet(transport, ("one", "two"), 0, failing)
    assert imported == ["one"]


def test_the_spawn_path_names_modules_that_exist() -> None:
    import importlib.util

    for entry in SPAWN_PATH:
        name, _, model = entry.partition(":")
        assert name in sys.modules or importlib.util.find_spec(name) is not None, entry
        assert not model or model in importlib.import_module(name).__dict__, entry


# What a resume or load imports before its spawn (`tests/shell/test_spawn_imports.py`'s
# `NEEDED` and `RESUME_NEEDS`, kept in step by hand): the session opener with the SDK's types
# and Claude's runtime, the session store with the SDK's project folder rule, the tail.
RESUME_NEEDS = (
    "adapter.agent.opening",
    "adapter.claude.claude_runtime",
    "claude_agent_sdk.types",
    "adapter.claude.session_store",
    "claude_agent_sdk._internal.sessions",
    "adapter.claude.transcript_tail",
)


def test_the_spawn_path_brings_in_what_a_new_session_resume_or_load_needs_before_its_spawn() -> (
    None
):
    # In a fresh interpreter, as serving's idle moment would: after it, a pausing client's
    # resume or load imports nothing of its own before Claude's spawn (a new session's path
    # first, then the transcript's tail and the SDK's project folder rule).
    child = (
        "import importlib, json, sys\n"
        "from adapter.app.serving import SPAWN_PATH\n"
        "for name in SPAWN_PATH: importlib.import_module(name.partition(':')[0])\n"
        f"print(json.dumps(sorted(set({list(RESUME_NEEDS)!r}) - set(sys.modules))))\n"
    )
    assert printed_json(child) == []


def test_the_idle_moment_builds_the_models_a_first_session_request_is_read_with() -> None:
    # `acp`'s models are built on first use (`lean_imports.prepare_acp_schema`): the first
    # `session/new`, `session/resume` or `session/load` would build its own on arrival, before
    # its spawn. Run in a fresh interpreter with the models deferred, as serving runs.
    child = (
        "import asyncio, json, sys\n"
        "from adapter.lean_imports import prepare_imports\n"
        "prepare_imports()\n"
        "from acp import schema\n"
        "from adapter.app.serving import import_while_quiet\n"
        "models = ('NewSessionRequest', 'ResumeSessionRequest', 'LoadSessionRequest')\n"
        "def built():\n"
        "    return [getattr(schema, m).__pydantic_complete__ for m in models]\n"
        "class Quiet:\n"
        "    initialized = asyncio.Event()\n"
        "    def quiet(self): return True\n"
        "before = built()\n"
        "Quiet.initialized.set()\n"
        "asyncio.run(import_while_quiet(Quiet(), quiet_for=0))\n"
        "print(json.dumps([before, built()]))\n"
    )
    assert printed_json(child) == [[False, False, False], [True, True, True]]


class _Writer:
    def write(self, data: bytes) -> None:
        return None

    async def drain(self) -> None:
        return None


async def _no_eof() -> None:
    return None


def _line(message: dict[str, object]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


@pytest.mark.asyncio
async def test_the_guard_is_quiet_only_between_requests_with_no_input_waiting() -> None:
    reader = ChunkReader()
    reader.feed(_line({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}}))
    writer: Any = _Writer()
    guard = GuardedTransport(reader, writer, limit=1 << 20, on_eof=_no_eof)
    assert not guard.quiet()  # input waiting
    first = await guard.receive()
    assert first is not None and first["method"] == "initialize"
    assert not guard.quiet() and not guard.initialized.is_set()  # not answered yet
    await guard.send({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}})
    assert guard.quiet() and guard.initialized.is_set()
    reader.feed(_line({"id": 2, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}))
    assert not guard.quiet()  # a request came in
    second = await guard.receive()
    assert second is not None and second["method"] == "session/new"
    assert not guard.quiet()  # and is open until answered
    await guard.send({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s"}})
    assert guard.quiet()
