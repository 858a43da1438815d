"""What Claude's stream and transcripts carry that only a real process writes cannot act on the
client: bytes that are not UTF-8, live and on replay, and tool input nested deeper than a parser
follows. The adapter as a subprocess, the scripted Claude playing scripts written here. Control
characters and escape sequences in titles, option names, plan entries and record titles are
played in process: tests/shell/test_hostile_text.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter, AdapterPool, script_launcher

pytestmark = pytest.mark.e2e

_SCRIPTS = """
import os, sys
from adapter.scripted_claude import runtime
from adapter.scripted_claude.scenarios import SCENARIOS
from adapter.scripted_claude.steps import *

mine = [Scenario(name="bad_utf8", description="", turns=((
    # Lone surrogates are written as the raw bytes they escape: invalid UTF-8 on Claude's stdout
    # (a stray 0xFF, a cut-off 3-byte sequence) and in its transcript.
    Text(text="BEFORE \\udcff\\udce2\\udc82 AFTER", deltas=3), Result()),))]
def deep_turn(levels):
    deep = "[" * levels + "1" + "]" * levels
    tool_use = ('{"type":"assistant","parent_tool_use_id":null,"session_id":"x","message":'
        '{"id":"m_deep","type":"message","role":"assistant","model":"claude-sonnet-4-5",'
        '"content":[{"type":"tool_use","id":"toolu_deep","name":"mcp__probe__store",'
        '"input":{"label":"kept","data":' + deep + '}}],"stop_reason":"tool_use",'
        '"usage":{"input_tokens":1,"output_tokens":1}}}')
    # The same input in a permission question: never allowed as the truncated copy.
    question = ('{"type":"control_request","request_id":"req_deep","request":'
        '{"subtype":"can_use_tool","tool_name":"mcp__probe__store","input":{"data":'
        + deep + '},"tool_use_id":"toolu_deep"}}')
    return (Garbage(line=tool_use), Garbage(line=question),
            Text(text="The answer survives."), Result())
for levels in (5000, 100000):
    mine.append(Scenario(name=f"deep_{levels}", description="", turns=(deep_turn(levels),)))
runtime.SCENARIOS = {**SCENARIOS, **{s.name: s for s in mine}}
code = runtime.main(sys.argv[1:], os.environ)
sys.stderr.flush()
os._exit(code)
"""


def _launcher(directory: Path) -> Path:
    return script_launcher(directory, "hostile", _SCRIPTS)


async def _run(adapters: AdapterPool, tmp_path: Path, scenario: str, prompt: str) -> Adapter:
    env = {"CLAUDE_CODE_EXECUTABLE": str(adapters.launcher("hostile", _launcher))}
    async with adapters.session_adapter(tmp_path, scenario, env=env) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, prompt)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    return adapter


@pytest.mark.asyncio(loop_scope="module")
async def test_invalid_utf8_from_claude_is_replaced_live_and_on_replay(
    adapters: AdapterPool, tmp_path: Path
) -> None:
    env = {"CLAUDE_CODE_EXECUTABLE": str(adapters.launcher("hostile", _launcher))}
    async with adapters.session_adapter(tmp_path, "bad_utf8", env=env) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "say it")
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
        live = "".join(adapter.agent_texts())
        del adapter.frames[:]
        await asyncio.wait_for(
            adapter.conn.load_session(cwd=str(adapter.workdir), session_id=session, mcp_servers=[]),
            TIMEOUT,
        )
        replayed = "".join(adapter.agent_texts())
    for text in (live, replayed):
        # The valid text around the bad bytes survives, and the bad bytes show as U+FFFD.
        assert text.startswith("BEFORE \ufffd") and text.endswith("\ufffd AFTER"), text


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("levels", [5000, 100000])
async def test_deeply_nested_tool_input_degrades_the_card_and_keeps_the_answer(
    adapters: AdapterPool, tmp_path: Path, levels: int
) -> None:
    from adapter.wire.deep_json import TRUNCATED

    adapter = await _run(adapters, tmp_path, f"deep_{levels}", "store it")
    assert "The answer survives." in adapter.agent_texts()
    assert adapter.records() == []  # no failure: the turn went on
    [card] = [u for u in adapter.updates("tool_call") if u["toolCallId"] == "toolu_deep"]
    assert card["rawInput"]["label"] == "kept"
    depth, value = 0, card["rawInput"]["data"]
    while isinstance(value, list):
        depth, value = depth + 1, value[0]
    assert isinstance(value, str) and value.startswith(TRUNCATED + "[[[")
    assert depth < 64
    # The truncated copy is never offered for approval (nor handed back to Claude as allowed).
    assert [m for m in adapter.incoming() if m.get("method") == "session/request_permission"] == []
    assert "a tool input too deep to show; denying" in adapter.stderr()
