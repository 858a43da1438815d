"""JetBrains AIR's native subagent sessions told their configuration, through the agent and the
real SDK in process (scenario `air_subagent_config`): Claude Code's hooks that fire inside a
subagent (its mode, effort, agent type, a model it switched to) and its responses' model reach
its child session as one `config_option_update` of one-value selects, each time the set
changes; every hook is answered `{continue: true}`, a malformed one too; a client without
native subagent sessions has no such hook registered. The core's rules are
tests/core/test_subagent_config.py; the SDK's own subprocess path is
tests/e2e/test_air_subagent_config.py."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse
from claude_agent_sdk import AssistantMessage, TextBlock

from adapter.claude.hooks import ClaudeHooks
from adapter.scripted_claude.air_scenarios import REVIEW_AGENT, REVIEW_CALL
from adapter.session.live_view import LiveView
from fsm import air_client
from fsm.air.native_subagents import MAX_PENDING_PARENTS, MAX_PENDING_UPDATES_PER_PARENT
from tests.support.harness import NATIVE, OPT_IN, Adapter
from tests.support.model_picks import claude_entries, log_env
from tests.support.shell_harness import FakeLink, agent_in_process

SUBAGENT_EVENTS = {
    "SubagentStart",
    "SubagentStop",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
}
REVIEWER = "---\nname: reviewer\ndescription: Reviews a change before it lands\n---\nReview.\n"


def _reviewer(adapter: Adapter) -> None:
    agents = adapter.workdir / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(REVIEWER, encoding="utf-8")


def _updates(adapter: Adapter) -> list[tuple[str, dict[str, Any]]]:
    return [
        (m["params"]["sessionId"], m["params"]["update"])
        for m in adapter.incoming()
        if m.get("method") == "session/update"
    ]


def _native_view() -> tuple[FakeLink, LiveView]:
    """A live view of session `s` for a client with native subagent sessions, and its link."""
    link = FakeLink()
    return link, LiveView(
        link, "s", "/", terminal_output=False, titled=False, air=air_client(NATIVE)
    )


def _registered(tmp_path: Path) -> set[str]:
    """The hook events the SDK registered with Claude Code (its initialize request)."""
    requests = [e["request"] for e in claude_entries(tmp_path, "control")]
    initialize = next(r for r in requests if r.get("subtype") == "initialize")
    return set(initialize.get("hooks") or {})


def _shown(options: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(o["id"], o["currentValue"]) for o in options]


@pytest.mark.asyncio
async def test_a_subagents_hooks_and_responses_configure_its_child_session(
    tmp_path: Path,
) -> None:
    async with agent_in_process(
        tmp_path, "air_subagent_config", client_meta=NATIVE, env=log_env(tmp_path)
    ) as adapter:
        _reviewer(adapter)
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Have the change reviewed.")
        updates = _updates(adapter)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert SUBAGENT_EVENTS | {"PostModelSwitch"} <= _registered(tmp_path)
    on_child = [(i, u) for i, (sid, u) in enumerate(updates) if sid == REVIEW_AGENT]
    spawned = next(
        i for i, (sid, u) in enumerate(updates) if u["sessionUpdate"] == "subagent_spawned"
    )
    configs = [(i, u) for i, u in on_child if u["sessionUpdate"] == "config_option_update"]
    # What SubagentStart said before the child was announced comes right after the announcement.
    assert configs[0][0] == spawned + 1 == on_child[0][0]
    assert [_shown(u["configOptions"]) for _, u in configs] == [
        [("mode", "default"), ("agent", "reviewer")],
        # Its first response's model joins; the effort its tool hook names; the switch.
        [("mode", "default"), ("model", "default"), ("agent", "reviewer")],
        [("mode", "default"), ("model", "default"), ("effort", "high"), ("agent", "reviewer")],
        [("mode", "default"), ("model", "opus"), ("effort", "high"), ("agent", "reviewer")],
    ]
    first, with_model, _, switched = (u for _, u in configs)
    assert first == {
        "sessionUpdate": "config_option_update",
        "configOptions": [
            {
                "id": "mode",
                "name": "Mode",
                "description": "Session permission mode",
                "category": "mode",
                "type": "select",
                "currentValue": "default",
                "options": [
                    {
                        "value": "default",
                        "name": "Manual",
                        "description": "Ask before edits and commands",
                        "_meta": {"jetbrains": {"air": {"version": 1, "kind": "standard"}}},
                    }
                ],
            },
            {
                "id": "agent",
                "name": "Agent",
                "description": "Subagent type",
                "type": "select",
                "currentValue": "reviewer",
                "options": [
                    {
                        "value": "reviewer",
                        "name": "reviewer",
                        "description": "Reviews a change before it lands",
                    }
                ],
            },
        ],
    }
    # A response's model is named as the root's model picker names it, and says its launch.
    assert with_model["_meta"] == {"claudeCode": {"parentToolUseId": REVIEW_CALL}}
    model = next(o for o in switched["configOptions"] if o["id"] == "model")
    assert model["options"] == [{"value": "opus", "name": "Opus 4.1"}]
    effort = next(o for o in switched["configOptions"] if o["id"] == "effort")
    assert effort["options"] == [{"value": "high", "name": "High"}]
    # Nothing after its end, though a hook said another mode then.
    end = next(
        i for i, (_, u) in enumerate(updates) if u["sessionUpdate"] == "subagent_state_update"
    )
    assert all(i < end for i, _ in configs)
    assert not [u for i, u in on_child if i > end]
    # Nothing of the child's configuration on the root.
    root_options = [
        o
        for sid, u in updates
        if sid == session and u["sessionUpdate"] == "config_option_update"
        for o in u["configOptions"]
    ]
    assert all(o.get("description") != "Subagent type" for o in root_options)
    # Every subagent hook was answered, and let Claude Code go on (the malformed one too).
    answers = claude_entries(tmp_path, "hook_answer")
    subagent_answers = [a for a in answers if a["answer"]["response"] == {"continue": True}]
    assert {a["event"] for a in subagent_answers} == SUBAGENT_EVENTS | {"PostModelSwitch"}
    assert len(subagent_answers) == 7


@pytest.mark.asyncio
@pytest.mark.parametrize("client_meta", [OPT_IN, None], ids=["air_without_it", "plain"])
async def test_a_client_without_native_subagents_registers_no_subagent_hook(
    tmp_path: Path, client_meta: dict[str, Any] | None
) -> None:
    async with agent_in_process(
        tmp_path,
        "air_subagent_config",
        client_meta=client_meta,
        capable=client_meta is not None,
        env=log_env(tmp_path),
    ) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, "Have the change reviewed.")
        updates = _updates(adapter)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert not SUBAGENT_EVENTS & _registered(tmp_path)
    assert all(sid == session for sid, _ in updates)
    assert not [u for _, u in updates if u["sessionUpdate"] == "subagent_spawned"]
    # Only the session's own model following heard the switch.
    assert [a["event"] for a in claude_entries(tmp_path, "hook_answer")] == ["PostModelSwitch"]


class _Failing:
    """A session whose telling fails (its link broke, a bug): the hook still lets Claude on."""

    def __init__(self) -> None:
        self.heard: list[object] = []

    def compacted(self, summary: str) -> None:
        raise AssertionError("not a compaction")

    async def task_changed(self, data: Any) -> None:
        raise AssertionError("not a task")

    async def subagent_hook(self, data: object) -> None:
        self.heard.append(data)
        raise RuntimeError("the client link is gone")


@pytest.mark.asyncio
async def test_a_subagent_hook_answers_continue_whatever_happens() -> None:
    hooks = ClaudeHooks(epoch="e")
    registered = hooks.options(subagents=True)
    assert set(registered) >= SUBAGENT_EVENTS | {"PostModelSwitch"}
    # The subagent hook comes before the session's own model following, as in the reference.
    assert len(registered["PostModelSwitch"][0].hooks) == 2  # type: ignore[index]
    callback = registered["SubagentStart"][0].hooks[0]
    assert registered["PostModelSwitch"][0].hooks[0] == callback  # type: ignore[index]
    context: Any = {"signal": None}
    # No session yet: answered, nothing told.
    assert await callback({"agent_id": "a"}, None, context) == {"continue_": True}  # type: ignore[arg-type]
    failing = _Failing()
    hooks.answer_with(failing)
    for data in ({"agent_id": "a", "permission_mode": "plan"}, None, "odd", {"agent_id": 7}):
        assert await callback(data, None, context) == {"continue_": True}  # type: ignore[arg-type]
    assert failing.heard == [
        {"agent_id": "a", "permission_mode": "plan"},
        None,
        "odd",
        {"agent_id": 7},
    ]
    # Without native subagent sessions none of them is registered.
    assert not SUBAGENT_EVENTS & set(ClaudeHooks().options())
    assert len(ClaudeHooks().options()["PostModelSwitch"][0].hooks) == 1  # type: ignore[index]


@pytest.mark.asyncio
async def test_the_live_view_logs_what_the_pending_bound_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link, view = _native_view()
    caplog.set_level(logging.INFO, logger="adapter.session.live_view")
    for n in range(MAX_PENDING_PARENTS):
        await view.subagent_hook({"agent_id": f"agent-{n}", "permission_mode": "plan"})
    assert not [r for r in caplog.records if "dropped" in r.getMessage()]
    await view.subagent_hook({"agent_id": "agent-late", "permission_mode": "plan"})
    await view.subagent_hook({"agent_id": "agent-later", "permission_mode": "plan"})
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert (
        dropped
        == [
            "session s: dropped 1 subagent update(s) waiting for their subagent; the pending "
            "buffer limit was reached"
        ]
        * 2
    )
    assert link.sent == []  # nothing of an unannounced agent is sent


@pytest.mark.asyncio
async def test_a_main_thread_hook_never_lists_the_root_pickers() -> None:
    link, view = _native_view()
    listed: list[str] = []

    def listing(what: str, entries: list[Any]) -> Any:
        def fetch() -> list[Any]:
            listed.append(what)
            return entries

        return fetch

    view.mode_choices = listing("modes", [("plan", "Plan", "Plans first")])
    view.model_choices = listing("models", [])
    view.agent_choices = listing("agents", [("reviewer", "Reviews a change")])
    # Most tool calls run in the main thread: their hooks cost no picker listing.
    await view.subagent_hook({"hook_event_name": "PreToolUse", "permission_mode": "plan"})
    await view.subagent_hook({"hook_event_name": "PostToolUse", "agent_id": 7})
    assert listed == []
    # A subagent's hook still names its values as the root's pickers do.
    view.subagents.route(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "toolu_1",
            "title": "Agent",
            "status": "pending",
            "rawInput": {"description": "Review", "prompt": "Review the change"},
            "_meta": {"claudeCode": {"toolName": "Agent"}},
        }
    )
    view.subagents.task_started(
        {"task_id": "agent-1", "tool_use_id": "toolu_1", "subagent_type": "reviewer"}
    )
    await view.subagent_hook(
        {"agent_id": "agent-1", "permission_mode": "plan", "agent_type": "reviewer"}
    )
    assert sorted(listed) == ["agents", "modes"]
    (update,) = [u for u in link.sent if u.get("sessionUpdate") == "config_option_update"]
    mode, agent = update["configOptions"]
    assert mode["options"][0]["name"] == "Plan"
    assert agent["options"][0]["description"] == "Reviews a change"


@pytest.mark.asyncio
async def test_the_live_view_logs_what_an_unannounced_subagents_stream_overflowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link, view = _native_view()
    caplog.set_level(logging.INFO, logger="adapter.session.live_view")

    def said(n: int) -> AssistantMessage:
        return AssistantMessage(
            content=[TextBlock(f"step {n}")],
            model="claude-sonnet-4-5",
            parent_tool_use_id="toolu_unannounced",
            message_id=f"msg_{n}",
        )

    for n in range(MAX_PENDING_UPDATES_PER_PARENT + 2):
        await view.assistant(said(n))
    # Every drop is told, each batch once, as it happens.
    told = [
        r.args[1]
        for r in caplog.records
        if "dropped" in r.getMessage() and isinstance(r.args, tuple)
    ]
    assert view.subagents.dropped > 0
    assert sum(told) == view.subagents.dropped  # type: ignore[arg-type]
    assert link.sent == []  # nothing of an unannounced agent is sent
