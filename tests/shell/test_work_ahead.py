"""Work done ahead of need (adapter/agent/work_ahead.py, docs/performance.md): steps done in
order while a session's Claude starts and has said nothing yet, or while the client leaves the
agent alone; a first session's spawn path (serving's `SPAWN_PATH`) and what a session does once
its Claude is spawned (`opening.AFTER_SPAWN`) are such steps."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import sys
from typing import Any

import pytest

from adapter.agent import opening
from adapter.agent.work_ahead import MORE, WorkAhead
from adapter.app.serving import SPAWN_PATH
from adapter.wire.guard import GuardedTransport
from adapter.wire.stdio import ChunkReader
from tests.support.fresh_python import printed_json


def _steps(done: list[str], *names: str) -> list[tuple[str, Any]]:
    return [(name, lambda name=name: done.append(name)) for name in names]


def _answers(*values: bool) -> Any:
    """A `silent` or `quiet` that answers `values` in turn, then False."""
    left = list(values)
    return lambda: left.pop(0) if left else False


@pytest.mark.asyncio
async def test_steps_are_done_in_order_while_claude_has_said_nothing() -> None:
    done: list[str] = []
    ahead = WorkAhead()
    ahead.add(_steps(done, "one", "two", "three"))
    await ahead.while_claude_starts(_answers(True, True, False, True))
    assert done == ["one", "two"]
    assert ahead.pending() == ("three",)  # left for a quiet moment
    assert ahead.done("two") and not ahead.done("three")


@pytest.mark.asyncio
async def test_a_step_with_more_to_do_stays_first_until_it_has_none() -> None:
    done: list[str] = []
    parts = [MORE, MORE, None]

    def part() -> object:
        done.append("part")
        return parts.pop(0)

    ahead = WorkAhead()
    ahead.add([("parts", part), *_steps(done, "next")])
    await ahead.while_claude_starts(_answers(True, True))
    assert done == ["part", "part"] and ahead.pending() == ("parts", "next")
    assert not ahead.done("parts")
    await ahead.while_claude_starts(_answers(True, True))
    assert done == ["part", "part", "part", "next"] and ahead.done("parts")


@pytest.mark.asyncio
async def test_a_step_queued_or_done_is_not_queued_again() -> None:
    done: list[str] = []
    ahead = WorkAhead()
    ahead.add(_steps(done, "one", "two"))
    await ahead.while_claude_starts(_answers(True))
    ahead.add(_steps(done, "one", "two", "three"))  # a later session's opening adds them again
    assert ahead.pending() == ("two", "three")
    await ahead.while_claude_starts(_answers(True, True, True))
    assert done == ["one", "two", "three"] and ahead.pending() == ()


@pytest.mark.asyncio
async def test_a_step_that_fails_is_logged_and_the_next_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    done: list[str] = []

    def failing() -> None:
        raise ImportError("no such module")

    ahead = WorkAhead()
    ahead.add([("broken", failing), *_steps(done, "next")])
    with caplog.at_level(logging.DEBUG, logger="adapter.agent.work_ahead"):
        await ahead.while_claude_starts(_answers(True, True))
    assert done == ["next"] and ahead.done("broken")
    assert "could not do broken ahead" in caplog.text


@pytest.mark.asyncio
async def test_each_quiet_moment_does_one_step_and_a_busy_one_none() -> None:
    done: list[str] = []
    ahead = WorkAhead()
    ahead.add(_steps(done, "one", "two", "three"))
    looks: list[bool] = [True, False, False, True]
    finished = asyncio.Event()

    def quiet() -> bool:
        if not looks:
            finished.set()
            return False
        return looks.pop(0)

    running = asyncio.ensure_future(ahead.when_quiet(quiet, quiet_for=0))
    await asyncio.wait_for(finished.wait(), 30)
    running.cancel()
    assert done == ["one", "two"] and ahead.pending() == ("three",)


@pytest.mark.asyncio
async def test_quiet_moments_wait_for_steps_to_be_added() -> None:
    looks: list[int] = []
    ahead = WorkAhead()

    def quiet() -> bool:
        looks.append(1)
        return True

    running = asyncio.ensure_future(ahead.when_quiet(quiet, quiet_for=0))
    for _ in range(5):
        await asyncio.sleep(0)
    assert looks == [] and not running.done()  # waiting, not looking again and again
    late = asyncio.Event()
    ahead.add([("late", late.set)])
    await asyncio.wait_for(late.wait(), 60)
    running.cancel()
    assert ahead.done("late") and ahead.pending() == ()


@pytest.mark.asyncio
async def test_nothing_is_done_before_initialize_is_answered() -> None:
    # Serving's quiet moments are the guard's: not before `initialize` is answered.
    reader = ChunkReader()
    writer: Any = _Writer()
    guard = GuardedTransport(reader, writer, limit=1 << 20, on_eof=_no_eof)
    done: list[str] = []
    ahead = WorkAhead()
    ahead.add(_steps(done, "one"))
    running = asyncio.ensure_future(ahead.when_quiet(guard.quiet, quiet_for=0))
    for _ in range(20):
        await asyncio.sleep(0)
    running.cancel()
    assert done == [] and ahead.pending() == ("one",)


def test_a_session_does_ahead_only_steps_that_name_what_exists() -> None:
    import importlib

    for name, _ in opening.AFTER_SPAWN:
        module, _, thing = name.partition(":")
        loaded = importlib.import_module(module)
        assert thing in {"fork rules", "secret patterns"} or hasattr(loaded, thing), name
    # A fork needs its steps before its spawn; a prompt needs none of them (a prompt that goes
    # well never masks a record): the fork's come first.
    names = [name for name, _ in opening.AFTER_SPAWN]
    assert names[:3] == [
        "acp.schema:ForkSessionRequest",
        "claude_agent_sdk:fork_session",
        "fsm:fork rules",
    ]


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
        "from adapter.app.serving import spawn_path_steps\n"
        "for _, step in spawn_path_steps(): step()\n"
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
        "from adapter.agent.work_ahead import MORE, WorkAhead\n"
        "from adapter.app.serving import spawn_path_steps\n"
        "models = ('NewSessionRequest', 'ResumeSessionRequest', 'LoadSessionRequest')\n"
        "def built():\n"
        "    return [getattr(schema, m).__pydantic_complete__ for m in models]\n"
        "before = built()\n"
        "ahead = WorkAhead()\n"
        "ahead.add(spawn_path_steps())\n"
        "asyncio.run(ahead.while_claude_starts(lambda: True))\n"
        "print(json.dumps([before, built(), list(ahead.pending())]))\n"
    )
    assert printed_json(child) == [[False, False, False], [True, True, True], []]


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


@pytest.mark.asyncio
async def test_steps_added_first_go_before_those_queued() -> None:
    # A session's own steps go before what serving queued for a first session's spawn.
    done: list[str] = []
    ahead = WorkAhead()
    ahead.add(_steps(done, "spawn path", "shared"))
    ahead.add(_steps(done, "fork model", "shared"), first=True)
    assert ahead.pending() == ("fork model", "shared", "spawn path")
    await ahead.while_claude_starts(_answers(True, True, True))
    assert done == ["fork model", "shared", "spawn path"]


@pytest.mark.asyncio
async def test_two_openings_waiting_at_once_share_the_steps() -> None:
    # Two sessions opening together: each looks before it takes a step, so the one that finds
    # the queue emptied by the other just stops.
    done: list[str] = []
    ahead = WorkAhead()
    ahead.add(_steps(done, "one", "two", "three"))
    await asyncio.gather(  # neither raises
        ahead.while_claude_starts(lambda: True), ahead.while_claude_starts(lambda: True)
    )
    assert done == ["one", "two", "three"] and ahead.pending() == ()


@pytest.mark.asyncio
async def test_work_for_quiet_moments_waits_for_one_and_is_done_once_for_each_ask() -> None:
    # The sign-in read starts a process: never while a session's Claude starts, and asked for
    # by several prompts before a quiet moment, done once.
    done: list[str] = []
    read = asyncio.Event()

    def reading(label: str) -> Any:
        def work() -> None:
            done.append(label)
            read.set()

        return work

    ahead = WorkAhead()
    ahead.when_client_quiet("read", reading("first ask"))
    ahead.when_client_quiet("read", reading("second ask"))
    await ahead.while_claude_starts(lambda: True)
    assert done == []
    looks: list[bool] = [False, False, True]
    running = asyncio.ensure_future(
        ahead.when_quiet(lambda: looks.pop(0) if looks else True, quiet_for=0)
    )
    await asyncio.wait_for(read.wait(), 60)
    assert done == ["second ask"] and looks == []
    read.clear()
    ahead.when_client_quiet("read", reading("next prompt's"))
    await asyncio.wait_for(read.wait(), 60)
    running.cancel()
    assert done == ["second ask", "next prompt's"]


def test_the_secret_patterns_step_compiles_a_few_at_each_moment_until_all_are() -> None:
    # In a fresh interpreter: the patterns are compiled by nothing else there.
    child = (
        "import asyncio, json\n"
        "from adapter.agent import opening\n"
        "from adapter.agent.work_ahead import MORE, WorkAhead\n"
        "import fsm.records as records\n"
        "ahead = WorkAhead()\n"
        "ahead.add([s for s in opening.AFTER_SPAWN if s[0] == 'fsm:secret patterns'])\n"
        "seen = []\n"
        "def silent():\n"
        "    seen.append(len(records._compiled))\n"
        "    return True\n"
        "asyncio.run(ahead.while_claude_starts(silent))\n"
        "print(json.dumps([seen + [len(records._compiled)], len(records._SECRET_SOURCES),\n"
        "                  list(ahead.pending()), ahead.done('fsm:secret patterns')]))\n"
    )
    seen, total, pending, done = printed_json(child)
    assert seen[-1] == total and pending == [] and done  # all of them, then the step is done
    parts = [b - a for a, b in itertools.pairwise(seen)]
    assert len(parts) >= 2 and max(parts) <= opening.PATTERNS_PER_STEP  # a few at a time
