"""The `acp` models of the requests a session is sent after its setup answer (a prompt, the
other setup requests) are built once that answer is out, not while it waits for Claude's
start-up (`opening.build_later_models`, docs/performance.md): by the work done once the first
session's answer is out (`SessionControls.after_setup_answer`: after the command list, which
`test_answer_order` holds to its answer), once a process; or, when another session is being
opened by then, by that opening while its own Claude starts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from adapter.agent import opening
from tests.support.harness import TIMEOUT, until
from tests.support.shell_harness import agent_in_process


@pytest.mark.asyncio
async def test_later_models_are_built_after_the_first_setup_answer_is_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opening._later, "built", False)
    monkeypatch.setattr(opening._later, "answered", False)
    calls: list[bool] = []
    build = opening.build_later_models

    async with agent_in_process(tmp_path, "success") as adapter:

        async def noting(busy: Callable[[], bool]) -> None:
            calls.append(opening.later_models_built())
            await build(busy)

        monkeypatch.setattr(opening, "build_later_models", noting)
        await asyncio.wait_for(
            adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=[]), TIMEOUT
        )
        await until(opening.later_models_built, "the later models")
        # Built once a process: the next session schedules nothing.
        await asyncio.wait_for(
            adapter.conn.new_session(cwd=str(adapter.workdir), mcp_servers=[]), TIMEOUT
        )
        await until(lambda: len(adapter.updates("available_commands_update")) == 2, "commands")
    assert calls == [False]  # once, by the first session


@pytest.mark.asyncio
async def test_a_session_opened_meanwhile_builds_them_while_its_claude_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A fork sent as soon as the first answer is read: the work after that answer leaves the
    # models to the fork's opening, which builds them after its spawn, not before it.
    from acp.schema import ForkSessionResponse

    monkeypatch.setattr(opening._later, "built", False)
    monkeypatch.setattr(opening._later, "answered", False)
    await opening.build_later_models(lambda: True)
    assert not opening.later_models_built()
    opening.while_claude_starts(ForkSessionResponse)
    assert opening.later_models_built()


@pytest.mark.asyncio
async def test_a_prompt_under_way_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # A prompt sent as soon as the first answer is read: nothing more is built meanwhile.
    from adapter.agent.session_opener import request_under_way, requests_under_way

    monkeypatch.setattr(opening._later, "built", False)
    monkeypatch.setattr(opening._later, "answered", False)
    with request_under_way():
        await opening.build_later_models(requests_under_way)
    assert not opening.later_models_built()
    await opening.build_later_models(requests_under_way)
    assert opening.later_models_built()
