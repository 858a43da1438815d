"""The tool call of a permission request, as each client gets it: a plain client the call's
whole card with what Claude Code's request adds (the blocked path as a location, a computer-use
tool's display name and its input as JSON, `_meta.claudeCode` with the tool, its parent and its
MCP server); JetBrains AIR only its share of a card it was shown (`toolCallId`, `title`,
`rawInput`, the blocked path's location, the MCP server). The rules are the core's
(`fsm.permission_card`, tests/core/test_permission_card.py).

Played in process (`agent_in_process`: the agent, the real SDK and the scripted Claude in this
process); a call AIR was not shown (which the scripted Claude never asks about) through the
session's view itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)
from claude_agent_sdk.types import (
    AssistantMessage,
    PermissionResultDeny,
    ToolPermissionContext,
    ToolUseBlock,
)

from adapter.claude.sdk_compat import PermissionHints, with_hints
from adapter.controls.permissions import PermissionBroker
from adapter.controls.pickers import SessionConfig
from adapter.scripted_claude.air_scenarios import SCOUT_CALL
from adapter.session.live_view import LiveView
from adapter.wire.client_link import ClientLink
from fsm import PermissionCard, air_client
from tests.support.choosing_client import KindClient
from tests.support.harness import Adapter
from tests.support.scripted import SCENARIOS
from tests.support.scripted.asking import BLOCKED_PATH, CAT_HOSTS, SCREENSHOT
from tests.support.shell_harness import agent_in_process

NATIVE = {
    "jetbrains": {
        "air": {"version": 1, "capabilities": ["sessionFailure", "nativeSubagentSessions"]}
    }
}


async def _asked(
    tmp_path: Path, scenario: str, *, air: bool, meta: dict[str, Any] | None = None
) -> tuple[Adapter, list[dict[str, Any]]]:
    client = KindClient(kind="allow_once")
    async with agent_in_process(
        tmp_path, scenario, client=client, capable=air, scenarios=SCENARIOS, client_meta=meta
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "look around")
        asked = [
            m["params"]["toolCall"]
            for m in adapter.incoming()
            if m.get("method") == "session/request_permission"
        ]
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    return adapter, asked


def _card_id(adapter: Adapter, name: str) -> str:
    return str(next(u["toolCallId"] for u in adapter.updates("tool_call") if u.get("name") == name))


@pytest.mark.asyncio
async def test_a_plain_client_gets_the_whole_card_with_what_claude_code_adds(
    tmp_path: Path,
) -> None:
    adapter, (bash, screenshot) = await _asked(tmp_path, "permission_facts", air=False)
    # The command's card, and the path that made Claude Code ask as one more location.
    assert bash == {
        "toolCallId": _card_id(adapter, "Bash"),
        "name": "Bash",
        "title": "cat /etc/hosts",
        "kind": "execute",
        "status": "pending",
        "rawInput": CAT_HOSTS,
        "content": [
            {"type": "content", "content": {"type": "text", "text": "Read the hosts file"}}
        ],
        "locations": [{"path": BLOCKED_PATH}],
    }
    # A computer-use tool: titled by Claude Code's display name (one line), its input as JSON,
    # and the tool and its MCP server named in `_meta.claudeCode`.
    shown_input = f"```json\n{json.dumps(SCREENSHOT, indent=2)}\n```"
    assert screenshot == {
        "toolCallId": _card_id(adapter, "mcp__computer-use__screenshot"),
        "name": "mcp__computer-use__screenshot",
        "title": "Take a screenshot",
        "kind": "other",
        "status": "pending",
        "rawInput": SCREENSHOT,
        "content": [{"type": "content", "content": {"type": "text", "text": shown_input}}],
        "_meta": {
            "claudeCode": {
                "toolName": "mcp__computer-use__screenshot",
                "mcpServer": {"name": "computer-use", "source": "sdk"},
            }
        },
    }
    assert "Bash was allowed." in adapter.agent_texts()
    assert "mcp__computer-use__screenshot was allowed." in adapter.agent_texts()


@pytest.mark.asyncio
async def test_air_gets_only_its_share_of_a_card_it_holds(tmp_path: Path) -> None:
    adapter, (bash, screenshot) = await _asked(tmp_path, "permission_facts", air=True)
    assert bash == {
        "toolCallId": _card_id(adapter, "Bash"),
        "title": "cat /etc/hosts",
        "rawInput": CAT_HOSTS,
        "locations": [{"path": BLOCKED_PATH}],
    }
    assert screenshot == {
        "toolCallId": _card_id(adapter, "mcp__computer-use__screenshot"),
        "title": "Take a screenshot",
        "rawInput": SCREENSHOT,
        # AIR has the tool's name from the card: only the server is new.
        "_meta": {"claudeCode": {"mcpServer": {"name": "computer-use", "source": "sdk"}}},
    }
    # The approval's heading follows the request's title.
    [heading] = [
        m["params"]["_meta"]["jetbrains"]["air"]["permission"]["title"]
        for m in adapter.incoming()
        if m.get("method") == "session/request_permission"
        and m["params"]["toolCall"]["toolCallId"] == screenshot["toolCallId"]
    ]
    assert heading == "Take a screenshot"
    assert "mcp__computer-use__screenshot was allowed." in adapter.agent_texts()


@pytest.mark.asyncio
async def test_a_subagents_request_names_its_parent_to_a_plain_client(tmp_path: Path) -> None:
    _adapter, [grep] = await _asked(tmp_path, "air_subagents", air=False)
    assert grep["_meta"] == {"claudeCode": {"toolName": "Bash", "parentToolUseId": SCOUT_CALL}}
    assert grep["kind"] == "execute" and grep["status"] == "pending"


@pytest.mark.asyncio
async def test_air_is_not_told_a_subagents_parent_again(tmp_path: Path) -> None:
    # Its child session shows the subagent's calls; the request is on that session.
    _adapter, [grep] = await _asked(tmp_path, "air_subagents", air=True, meta=NATIVE)
    assert set(grep) == {"toolCallId", "title", "rawInput"}
    assert grep["title"] == "grep -n parse src/app.py"


def _air_view() -> LiveView:
    air = air_client({"jetbrains": {"air": {"version": 1}}})
    return LiveView(ClientLink(), "s", "/w", terminal_output=False, titled=False, air=air)


def test_air_gets_the_whole_card_of_a_call_it_was_not_shown() -> None:
    # A sandbox's network request: no message of Claude's carries its call, so AIR was shown
    # no card (docs/decisions.md#permission-card-before-its-call).
    view = _air_view()
    host = {"host": "pypi.org", "port": 443}
    context = with_hints(ToolPermissionContext(tool_use_id="net-1"), PermissionHints())
    asked, plan = view.permission_card("net-1", "SandboxNetworkAccess", host, context)
    assert not plan.slim  # the request names the tool, as for every other client
    shown = asked.model_dump(by_alias=True, exclude_none=True)
    assert (shown["title"], shown["kind"], shown["status"]) == ("pypi.org", "fetch", "pending")
    assert shown["rawInput"] == host


class _HeldLink(ClientLink):
    """A link whose sends of the card `held` wait until `release` is set, and that records
    every update it was given, in order."""

    def __init__(self, held: str) -> None:
        super().__init__()
        self.held = held
        self.sending = anyio.Event()
        self.release = anyio.Event()
        self.sent: list[dict[str, Any]] = []

    async def send_raw_update(self, session_id: str, update: dict[str, Any]) -> bool:
        if update.get("toolCallId") == self.held:
            self.sending.set()
            await self.release.wait()
        self.sent.append(update)
        return True


def _bash(tool_id: str, command: str) -> ToolUseBlock:
    return ToolUseBlock(id=tool_id, name="Bash", input={"command": command})


def _asking(tool_id: str) -> Any:
    return with_hints(ToolPermissionContext(tool_use_id=tool_id), PermissionHints())


@pytest.mark.asyncio
async def test_air_gets_the_whole_card_of_a_call_whose_card_is_not_sent_yet() -> None:
    # One message, two calls: while the first card is being written, Claude Code asks about
    # the second, whose card is made but not sent. Its request must not be AIR's share of a
    # card AIR does not have yet (docs/decisions.md#permission-card-before-its-call).
    air = air_client({"jetbrains": {"air": {"version": 1}}})
    link = _HeldLink(held="toolu_a")
    view = LiveView(link, "s", "/w", terminal_output=False, titled=False, air=air)
    message = AssistantMessage(
        content=[_bash("toolu_a", "ls"), _bash("toolu_b", "pwd")], model="claude-x"
    )
    async with anyio.create_task_group() as tg:
        tg.start_soon(view.assistant, message)
        await link.sending.wait()  # the first card is on its way; the second waits its turn
        early, _ = view.permission_card("toolu_b", "Bash", {"command": "pwd"}, _asking("toolu_b"))
        link.release.set()
    shown = early.model_dump(by_alias=True, exclude_none=True)
    assert (shown["kind"], shown["status"]) == ("execute", "pending")
    assert [u["toolCallId"] for u in link.sent if u["sessionUpdate"] == "tool_call"] == [
        "toolu_a",
        "toolu_b",
    ]
    # Once its card went out, AIR gets its share.
    later, _ = view.permission_card("toolu_b", "Bash", {"command": "pwd"}, _asking("toolu_b"))
    assert set(later.model_dump(by_alias=True, exclude_none=True)) == {
        "toolCallId",
        "title",
        "rawInput",
    }


@pytest.mark.asyncio
async def test_air_gets_its_share_once_the_card_was_shown() -> None:
    view = _air_view()
    message = AssistantMessage(content=[_bash("toolu_1", "ls")], model="claude-x")
    await view.assistant(message)  # the card goes out
    hints = PermissionHints(mcp_server={"name": "tools", "source": "user"})
    context = with_hints(ToolPermissionContext(tool_use_id="toolu_1", blocked_path="/etc"), hints)
    asked, plan = view.permission_card("toolu_1", "Bash", {"command": "ls"}, context)
    assert plan.slim
    assert asked.model_dump(by_alias=True, exclude_none=True) == {
        "toolCallId": "toolu_1",
        "title": "ls",
        "rawInput": {"command": "ls"},
        "locations": [{"path": "/etc"}],
        "_meta": {"claudeCode": {"mcpServer": {"name": "tools", "source": "user"}}},
    }


class _AskedLink(ClientLink):
    """A link that records each question's tool call and `name`, and gets no answer."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[dict[str, Any], str | None]] = []

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        name: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> AllowedOutcome | DeniedOutcome | None:
        self.asked.append((tool_call.model_dump(by_alias=True, exclude_none=True), name))
        return None


async def _no_mode(mode: str) -> None:
    return None


@pytest.mark.asyncio
@pytest.mark.parametrize("slim", [True, False])
async def test_the_broker_follows_the_cores_verdict_on_airs_share(slim: bool) -> None:
    # The broker does not work the verdict out again from the card (a share has no kind): the
    # core's plan says whether the question names the tool and a plan exit adds its kind and
    # plan.
    air = air_client({"jetbrains": {"air": {"version": 1}}})
    link = _AskedLink()
    config = SessionConfig.initial({}, None)
    config.mode = "plan"
    broker = PermissionBroker(session_id="s", link=link, config=config, on_mode=_no_mode, air=air)
    share = ToolCallUpdate(tool_call_id="toolu_1", title="Plan", raw_input={"plan": "do it"})
    verdict = PermissionCard(fields=("toolCallId", "title", "rawInput"), slim=slim)
    broker.card = lambda tool_id, name, tool_input, context: (share, verdict)
    denied = await broker.decide("ExitPlanMode", {"plan": "do it"}, ToolPermissionContext())
    assert isinstance(denied, PermissionResultDeny)
    [(question, name)] = link.asked
    assert question["title"] == "Ready to code?"
    if slim:
        assert name is None and "kind" not in question and "content" not in question
    else:
        assert name == "ExitPlanMode" and question["kind"] == "switch_mode"
        assert question["content"][0]["content"]["text"] == "do it"


def test_a_subagents_request_names_its_parent_before_its_card_was_shown() -> None:
    # Claude Code asks about a subagent's call before the call's card: the request's agent id
    # (the subagent's task id, from `task_started`) names the Agent call it runs under.
    view = LiveView(ClientLink(), "s", "/w", terminal_output=False, titled=False)
    started = {"task_id": "agent-7", "tool_use_id": SCOUT_CALL, "subagent_type": "Explore"}
    assert view._view.task_started(started) == []
    context = with_hints(
        ToolPermissionContext(tool_use_id="toolu_sub", agent_id="agent-7"), PermissionHints()
    )
    asked, plan = view.permission_card("toolu_sub", "Bash", {"command": "ls"}, context)
    shown = asked.model_dump(by_alias=True, exclude_none=True)
    assert shown["_meta"] == {"claudeCode": {"toolName": "Bash", "parentToolUseId": SCOUT_CALL}}
    assert not plan.slim
    # An agent id no subagent started with names none.
    stranger = with_hints(
        ToolPermissionContext(tool_use_id="toolu_x", agent_id="agent-9"), PermissionHints()
    )
    asked, _ = view.permission_card("toolu_x", "Bash", {"command": "ls"}, stranger)
    assert "_meta" not in asked.model_dump(by_alias=True, exclude_none=True)
