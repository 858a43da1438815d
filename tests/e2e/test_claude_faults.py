"""Claude's process misbehaving: every prompt still gets exactly one answer, promptly. Here the
faults only a real process can play (it dies, exits, lingers with its output closed, breaks its
stream, or never starts) and the client vanishing; the frames a living Claude sends broken are
played in process: tests/shell/test_claude_faults.py."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import acp
import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude import SCENARIO_ENV, TEXTS, write_launcher
from tests.support.fault_rows import (
    FAULTS,
    LOST,
    Fault,
    check_fault,
    check_lost,
    check_success,
    each_request_answered_once,
    keeps_serving,
    record_on,
)
from tests.support.harness import TIMEOUT, Adapter, AdapterPool, spawn_adapter
from tests.support.shell_harness import SCENARIO_FILE, ends_its_process, folder_playing


@pytest.mark.asyncio
async def test_output_closed_but_process_alive_is_stopped_and_reported(tmp_path: Path) -> None:
    async with spawn_adapter(tmp_path, "close_stdout_and_linger") as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "hello")
        # A replacement process resumes the session and answers the next prompt.
        again = await adapter.prompt(session, "again")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    assert carrier == "prompt_response"
    assert record["category"] == "connection" and record["actions"] == ["new_session"]
    assert record["title"] == "The connection to Claude was lost."
    assert isinstance(again, PromptResponse) and again.stop_reason == "end_turn"
    assert "did not exit; stopping it" in adapter.stderr()


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(int(proc.name))
    return found


@pytest.mark.asyncio
async def test_client_vanishing_mid_turn_ends_claude_and_the_adapter(tmp_path: Path) -> None:
    # Leaving the harness, the client's own connection finds its pipe closed: expected here.
    with contextlib.suppress(ConnectionResetError):
        async with spawn_adapter(tmp_path, "hang") as adapter:
            session, code = await _vanish_mid_turn(adapter)
    assert code == 0
    # No orphan: Claude's process for that session is gone too.
    async with asyncio.timeout(TIMEOUT):
        while _processes_mentioning(session):
            await asyncio.sleep(0.05)


async def _vanish_mid_turn(adapter: Adapter) -> tuple[str, int]:
    session = await adapter.new_session()
    prompt = asyncio.create_task(adapter.prompt(session, "take your time"))
    async with asyncio.timeout(TIMEOUT):
        while not _processes_mentioning(session):
            await asyncio.sleep(0.05)
    # The client goes away: its end of the adapter's stdin closes.
    assert adapter.process.stdin is not None
    adapter.process.stdin.close()
    async with asyncio.timeout(TIMEOUT):
        code = await adapter.process.wait()
    prompt.cancel()
    return session, code


# --- every point of a turn where the process dies: one answer, and the adapter keeps serving ----
#
# Each test drives one adapter (capable or legacy) whose sessions pick their scripted Claude by
# folder: `folder_playing` writes the scenario's name into the session's cwd, where
# `_cwd_launcher` reads it. So one adapter holds the faulty session and a healthy one beside it,
# and a test can change what a session's *next* Claude process does between prompts.

PROCESS_FAULTS = [fault for fault in FAULTS if ends_its_process(fault.scenario)]


def _cwd_launcher(directory: Path) -> Path:
    """A `claude` that plays the scenario named in `./.scripted-scenario` when there is one."""
    real = write_launcher(directory / "real")
    lines = [
        "#!/bin/sh",
        "# Scripted Claude (a test double) playing the scenario its cwd names.",
        f'if [ -f {SCENARIO_FILE} ]; then {SCENARIO_ENV}="$(cat {SCENARIO_FILE})"; fi',
        f"export {SCENARIO_ENV}",
        f'exec {shlex.quote(str(real))} "$@"',
    ]
    path = directory / "claude"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@asynccontextmanager
async def _adapter(
    adapters: AdapterPool, tmp_path: Path, *, capable: bool
) -> AsyncIterator[Adapter]:
    # One adapter per mode for the module's tests, each test with sessions of its own.
    launcher = adapters.launcher("cwd", _cwd_launcher)
    env = {"CLAUDE_CODE_EXECUTABLE": str(launcher)}
    async with adapters.session_adapter(tmp_path, "success", capable=capable, env=env) as adapter:
        yield adapter


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
@pytest.mark.parametrize("fault", PROCESS_FAULTS, ids=[f.scenario for f in PROCESS_FAULTS])
async def test_fault_gets_one_answer_and_the_adapter_keeps_serving(
    adapters: AdapterPool, tmp_path: Path, fault: Fault, capable: bool
) -> None:
    async with _adapter(adapters, tmp_path, capable=capable) as adapter:
        session = await adapter.new_session(folder_playing(adapter, "faulty", fault.scenario))
        await check_fault(adapter, session, fault, capable=capable)
    if not capable:
        # docs/decisions.md#legacy-clients: never a record for a legacy client
        assert adapter.records() == []


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_death_after_an_error_keeps_claudes_words(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    # Claude said why the turn failed (the synthetic rate-limit message), then its process died
    # before the result. The turn is transport_lost (docs/decisions.md#never-silent), but Claude's
    # words must reach the client somewhere: as agent text (docs/decisions.md#legacy-clients and
    # #capable-clients: prose is withheld only when it became a title), or as the record's title
    # (spec: titles are Claude's own text).
    async with _adapter(adapters, tmp_path, capable=capable) as adapter:
        session = await adapter.new_session(folder_playing(adapter, "faulty", "die_after_error"))
        first = await adapter.prompt(session, "first prompt")
    shown = [*adapter.agent_texts(), *(record["title"] for _, record in adapter.records())]
    if isinstance(first, acp.RequestError):
        shown.append(str(first))
    assert any(TEXTS["rate_limit"] in text for text in shown), shown


async def _wait_for(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.05)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_death_right_after_the_result(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    async with _adapter(adapters, tmp_path, capable=capable) as adapter:
        session = await adapter.new_session(folder_playing(adapter, "faulty", "die_after_result"))
        first = await adapter.prompt(session, "first prompt")
        # The prompt already had its answer when the process died.
        check_success(first)
        # The death of an idle runtime is a background incident: a session-scoped record for a
        # capable client (a session_info_update), only a log line for a legacy one. Wait for it,
        # so the next prompt is not racing the adapter's discovery of the death.
        if capable:
            await _wait_for(lambda: bool(adapter.records()))
        else:
            await _wait_for(lambda: "ended with an error" in adapter.stderr())
        await keeps_serving(adapter, session)
    records = adapter.records()
    if not capable:
        assert records == []
        return
    [(carrier, record)] = records
    assert carrier == "session_info_update"
    assert {k: v for k, v in record.items() if k != "id"} == {
        "revision": 1,
        "category": "connection",
        "severity": "error",
        "title": LOST,
        "actions": ["new_session"],
    }
    assert record["id"].startswith(f"{session}:session-error:")


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_death_before_the_handshake_fails_session_new_clearly(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    async with _adapter(adapters, tmp_path, capable=capable) as adapter:
        with pytest.raises(acp.RequestError) as failed:
            await adapter.new_session(folder_playing(adapter, "faulty", "exit_before_handshake"))
        # The adapter keeps serving: another session is created and answers.
        other = await adapter.new_session(folder_playing(adapter, "healthy", "success"))
        check_success(await adapter.prompt(other, "other session"))
        each_request_answered_once(adapter)
    error = failed.value
    assert error.code == -32603
    text = f"{error} {error.data}"
    assert str(error).startswith("Claude Code did not start: it exited before answering")
    for leak in ("Traceback", str(tmp_path), "scripted_claude", "exit code", "/"):
        assert leak not in text, (leak, text)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_replacement_that_cannot_start_still_answers_the_prompt(
    adapters: AdapterPool, tmp_path: Path, capable: bool
) -> None:
    # The first process dies mid-turn; the replacement the next prompt needs dies before its
    # handshake. That prompt still gets one answer, in the client's own mode: a capable client
    # a connection record on the PromptResponse (spec: "connection: ... unavailable runtime";
    # docs/decisions.md#never-silent: a process that dies is transport_lost), a legacy one a
    # JSON-RPC -32603.
    async with _adapter(adapters, tmp_path, capable=capable) as adapter:
        folder = folder_playing(adapter, "faulty", "crash_mid_turn")
        session = await adapter.new_session(folder)
        check_lost(await adapter.prompt(session, "first prompt"), capable=capable)
        (folder / SCENARIO_FILE).write_text("exit_before_handshake", encoding="utf-8")
        second = await adapter.prompt(session, "second prompt")
        (folder / SCENARIO_FILE).write_text("success", encoding="utf-8")
        third = await adapter.prompt(session, "third prompt")
        each_request_answered_once(adapter)
    check_success(third)
    if capable:
        assert isinstance(second, PromptResponse), second
        record = record_on(second)
        assert record is not None, second
        assert record["category"] == "connection" and record["severity"] == "error"
        assert record["actions"] == ["new_session"]
    else:
        assert isinstance(second, acp.RequestError), second
        assert second.code == -32603


@pytest.mark.asyncio(loop_scope="module")
async def test_output_closed_but_process_alive_rejects_a_legacy_prompt(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    async with _adapter(adapters, tmp_path, capable=False) as adapter:
        session = await adapter.new_session(
            folder_playing(adapter, "faulty", "close_stdout_and_linger")
        )
        check_lost(await adapter.prompt(session, "first prompt"), capable=False)
        await keeps_serving(adapter, session)
    assert adapter.records() == []
