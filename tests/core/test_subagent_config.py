"""What a JetBrains AIR child session is told of its configuration (`fsm.air.subagent_config`,
`NativeSubagents.subagent_hook` and `configure`), as the reference's `subagentConfigurationHook`
tells it: which options a hook's input makes, and when the child gets them (held until it is
announced, its whole set when it changed, never after its end, a bound on what waits)."""

from __future__ import annotations

from typing import Any

from fsm import air_client
from fsm.air.native_subagents import MAX_PENDING_PARENTS, NativeSubagents
from fsm.air.subagent_config import hook_configuration
from fsm.pickers.values import effort_level_name
from tests.support.child_options import model_option

ROOT = "root-session"
LAUNCH = "toolu_launch"
AGENT = "a1b2c3d4e5f6"
MODES = [("default", "Manual", "Ask before edits and commands"), ("plan", "Plan", None)]
MODELS = [("sonnet", "Sonnet 4.5", "claude-sonnet-4-5"), ("opus", "Opus", None)]
AGENTS = [("reviewer", "Reviews a change"), ("bare", None)]
AIR = air_client({"jetbrains": {"air": {}}})  # only AIR has child sessions


_KINDS = {"default": "standard", "plan": "plan"}


def _mode(value: str, name: str, description: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"value": value, "name": name}
    if description is not None:
        entry["description"] = description
    if value in _KINDS:  # a mode the root offers carries its kind, as the root's picker does
        entry["_meta"] = {"jetbrains": {"air": {"version": 1, "kind": _KINDS[value]}}}
    return {
        "id": "mode",
        "name": "Mode",
        "description": "Session permission mode",
        "category": "mode",
        "type": "select",
        "currentValue": value,
        "options": [entry],
    }


def _effort(level: str, name: str) -> dict[str, Any]:
    return {
        "id": "effort",
        "name": "Effort",
        "description": "Current reasoning effort",
        "category": "thought_level",
        "type": "select",
        "currentValue": level,
        "options": [{"value": level, "name": name}],
    }


def _agent(kind: str, description: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"value": kind, "name": kind}
    if description is not None:
        entry["description"] = description
    return {
        "id": "agent",
        "name": "Agent",
        "description": "Subagent type",
        "type": "select",
        "currentValue": kind,
        "options": [entry],
    }


def _hook(event: str = "PreToolUse", agent: str | None = AGENT, **more: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"session_id": "s", "cwd": "/w", "hook_event_name": event, **more}
    if agent is not None:
        data["agent_id"] = agent
    return data


def _update(*options: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {
        "sessionUpdate": "config_option_update",
        "configOptions": list(options),
    }
    if meta is not None:
        update["_meta"] = meta
    return update


def _launch_card(call: str = LAUNCH) -> dict[str, Any]:
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": call,
        "title": "Agent",
        "status": "pending",
        "rawInput": {"description": "Review", "prompt": "Review the change"},
        "_meta": {"claudeCode": {"toolName": "Agent"}},
    }


def _started(task: str = AGENT, call: str = LAUNCH) -> dict[str, Any]:
    return {"task_id": task, "tool_use_id": call, "subagent_type": "reviewer", "description": "R"}


def _on() -> NativeSubagents:
    return NativeSubagents(ROOT, enabled=True, mode_meta=AIR.mode_meta)


def _observe(subs: NativeSubagents, hook: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return subs.subagent_hook(hook, modes=MODES, models=MODELS, agents=AGENTS)


def _announced(subs: NativeSubagents) -> list[tuple[str, dict[str, Any]]]:
    subs.route(_launch_card())
    return subs.task_started(_started())


# ---- what a hook's input says ----------------------------------------------------------------


def test_a_hook_inside_a_subagent_names_its_mode_model_effort_and_agent_type() -> None:
    hook = _hook(
        "PostModelSwitch",
        agent_type="reviewer",
        permission_mode="default",
        effort={"level": "x_high"},
        to_model="claude-sonnet-4-5",
    )
    found = hook_configuration(
        hook, modes=MODES, models=MODELS, agents=AGENTS, mode_meta=AIR.mode_meta
    )
    assert found == (
        AGENT,
        [
            _mode("default", "Manual", "Ask before edits and commands"),
            model_option("sonnet", "Sonnet 4.5"),  # the root picker's entry resolving to it
            _effort("x_high", "X High"),
            _agent("reviewer", "Reviews a change"),
        ],
    )


def test_values_the_root_pickers_lack_are_named_by_their_ids() -> None:
    hook = _hook(
        "PostModelSwitch",
        agent_type="Explore",
        permission_mode="dontAsk",
        to_model="claude-haiku-4-5",
    )
    assert hook_configuration(
        hook, modes=MODES, models=MODELS, agents=AGENTS, mode_meta=AIR.mode_meta
    ) == (
        AGENT,
        [
            _mode("dontAsk", "dontAsk"),
            model_option("claude-haiku-4-5", "claude-haiku-4-5"),
            _agent("Explore"),
        ],
    )
    # An offered mode without a description, an agent without one.
    hook = _hook(permission_mode="plan", agent_type="bare")
    assert hook_configuration(hook, modes=MODES, agents=AGENTS, mode_meta=AIR.mode_meta) == (
        AGENT,
        [_mode("plan", "Plan"), _agent("bare")],
    )


def test_a_mode_carries_the_meta_the_clients_picker_gives_it() -> None:
    # The client's rule (`AirClient.mode_meta`) is the only one: whatever it gives, the
    # child's mode carries; a mode the root does not offer carries none.
    seen: list[str] = []

    def mode_meta(mode: str) -> dict[str, Any] | None:
        seen.append(mode)
        return {"picked": mode}

    subs = NativeSubagents(ROOT, enabled=True, mode_meta=mode_meta)
    subs.route(_launch_card())
    subs.task_started(_started())
    ((_, update),) = subs.subagent_hook(_hook(permission_mode="plan"), modes=MODES)
    assert update["configOptions"][0]["options"] == [
        {"value": "plan", "name": "Plan", "_meta": {"picked": "plan"}}
    ]
    assert hook_configuration(_hook(permission_mode="dontAsk"), modes=MODES, mode_meta=mode_meta)
    assert seen == ["plan"]
    # Given no rule, no mode carries a `_meta`.
    (mode,) = hook_configuration(_hook(permission_mode="plan"), modes=MODES)[1]  # type: ignore[index]
    assert mode["options"] == [{"value": "plan", "name": "Plan"}]


def test_only_a_model_switch_names_a_model() -> None:
    assert hook_configuration(_hook("PreToolUse", to_model="opus")) == (AGENT, [])
    assert hook_configuration(_hook("PostModelSwitch", to_model="<synthetic>")) == (AGENT, [])
    assert hook_configuration(_hook("PostModelSwitch", to_model="opus"), models=MODELS) == (
        AGENT,
        [model_option("opus", "Opus")],
    )


def test_the_main_thread_and_inputs_of_another_shape_say_nothing() -> None:
    assert hook_configuration(_hook(agent=None, permission_mode="plan")) is None
    assert hook_configuration(None) is None
    assert hook_configuration(["agent_id", AGENT]) is None
    for agent in ("", "   ", 7, "x" * 257, "a\x1bb"):
        assert hook_configuration({"agent_id": agent, "permission_mode": "plan"}) is None
    odd = _hook(
        permission_mode=["plan"],
        agent_type="",
        effort="high",
        to_model=7,
    )
    assert hook_configuration(odd) == (AGENT, [])
    assert hook_configuration(_hook(effort={"level": 3}, agent_type="x" * 257)) == (AGENT, [])
    assert hook_configuration(_hook(permission_mode="pl\nan", effort={"level": ""})) == (AGENT, [])


def test_effort_levels_are_named_as_the_reference_names_them() -> None:
    assert effort_level_name("high") == "High"
    assert effort_level_name("x_high") == "X High"
    assert effort_level_name("extra-high") == "Extra High"
    assert effort_level_name("max") == "Max"
    assert effort_level_name("a__b") == "A  B"


# ---- when the child is told ------------------------------------------------------------------


def test_options_before_the_announcement_follow_it_at_once() -> None:
    subs = _on()
    subs.route(_launch_card())
    # The child is known (its launch call) but not announced yet: its hook waits.
    assert _observe(subs, _hook("SubagentStart", agent_type="reviewer")) == []
    out = subs.task_started(_started())
    assert [(sid, u["sessionUpdate"]) for sid, u in out] == [
        (ROOT, "subagent_spawned"),
        (AGENT, "config_option_update"),
    ]
    assert out[1][1] == _update(_agent("reviewer", "Reviews a change"))


def test_a_hook_before_the_task_waits_under_the_agent_id() -> None:
    subs = _on()
    assert (
        _observe(subs, _hook("SubagentStart", agent_type="reviewer", permission_mode="plan")) == []
    )
    assert _observe(subs, _hook(effort={"level": "high"})) == []
    out = _announced(subs)
    assert out[0][1]["sessionUpdate"] == "subagent_spawned"
    assert out[1:] == [
        (
            AGENT,
            _update(
                _mode("plan", "Plan"),
                _effort("high", "High"),
                _agent("reviewer", "Reviews a change"),
            ),
        )
    ]


def test_an_announced_child_gets_its_whole_set_when_it_changes_and_only_then() -> None:
    subs = _on()
    _announced(subs)
    first = _observe(subs, _hook(agent_type="reviewer"))
    assert first == [(AGENT, _update(_agent("reviewer", "Reviews a change")))]
    assert _observe(subs, _hook(agent_type="reviewer")) == []  # unchanged
    # A later option takes its place by category: mode, model, effort, then the rest.
    both = _observe(
        subs, _hook(agent_type="reviewer", permission_mode="default", effort={"level": "low"})
    )
    assert both == [
        (
            AGENT,
            _update(
                _mode("default", "Manual", "Ask before edits and commands"),
                _effort("low", "Low"),
                _agent("reviewer", "Reviews a change"),
            ),
        )
    ]
    # One changed value: the whole set again.
    out = _observe(subs, _hook(effort={"level": "high"}))
    assert [o["currentValue"] for o in out[0][1]["configOptions"]] == [
        "default",
        "high",
        "reviewer",
    ]
    # A hook with no option and a hook of the main thread say nothing.
    assert _observe(subs, _hook()) == []
    assert _observe(subs, _hook(agent=None, permission_mode="plan")) == []


def test_a_childs_response_model_joins_its_set_and_is_not_repeated() -> None:
    subs = _on()
    _announced(subs)
    _observe(subs, _hook(permission_mode="plan", agent_type="reviewer"))
    meta = {"claudeCode": {"parentToolUseId": LAUNCH}}
    out = subs.child_model(LAUNCH, "claude-sonnet-4-5", MODELS)
    assert out == [
        (
            AGENT,
            _update(
                _mode("plan", "Plan"),
                model_option("sonnet", "Sonnet 4.5"),
                _agent("reviewer", "Reviews a change"),
                meta=meta,
            ),
        )
    ]
    assert subs.child_model(LAUNCH, "claude-sonnet-4-5", MODELS) == []
    # A model switch inside the subagent (PostModelSwitch) is the model it shows now.
    switched = _observe(subs, _hook("PostModelSwitch", to_model="opus"))
    assert [o["currentValue"] for o in switched[0][1]["configOptions"]] == [
        "plan",
        "opus",
        "reviewer",
    ]
    assert "_meta" not in switched[0][1]
    assert subs.child_model(LAUNCH, "opus", MODELS) == []  # what the child shows already


def test_an_ended_child_takes_no_configuration_and_its_next_generation_starts_afresh() -> None:
    subs = _on()
    _announced(subs)
    _observe(subs, _hook(permission_mode="plan"))
    subs.task_notification({"task_id": AGENT, "tool_use_id": LAUNCH, "status": "completed"})
    assert _observe(subs, _hook(permission_mode="default")) == []
    assert subs.configure(AGENT, [_agent("reviewer")]) == []
    assert subs.child_model(LAUNCH, "opus", MODELS) == []
    # Resumed: a new generation, told only what is said of it from now on.
    resumed = subs.task_updated({"task_id": AGENT, "patch": {"status": "running"}})
    generation = f"{AGENT}:generation:2"
    assert resumed[0][1]["subagentSessionId"] == generation
    assert len(resumed) == 1  # no configuration of the old generation
    assert _observe(subs, _hook(effort={"level": "low"})) == [
        (generation, _update(_effort("low", "Low")))
    ]


def test_a_child_that_ends_unannounced_gets_what_waited_before_its_end() -> None:
    subs = _on()
    subs.route(_launch_card())
    subs.task_started({**_started(), "tool_use_id": "toolu_other"})  # its launch not seen: waits
    _observe(subs, _hook(permission_mode="plan"))
    out = subs.task_notification({"task_id": AGENT, "status": "failed"})
    assert [u["sessionUpdate"] for _, u in out] == [
        "subagent_spawned",
        "config_option_update",
        "subagent_state_update",
    ]
    assert out[1] == (AGENT, _update(_mode("plan", "Plan")))


def test_what_waits_for_unknown_agents_is_bounded() -> None:
    subs = _on()
    for n in range(MAX_PENDING_PARENTS):
        assert _observe(subs, _hook(agent=f"agent-{n}", permission_mode="plan")) == []
    assert subs.dropped == 0
    # One more agent nobody knows: dropped; one already waiting still takes more.
    assert _observe(subs, _hook(agent="agent-late", permission_mode="plan")) == []
    assert subs.dropped == 1
    assert _observe(subs, _hook(agent="agent-0", effort={"level": "low"})) == []
    assert subs.dropped == 1
    # A known child is never held back by the bound.
    out = _announced(subs)
    assert out[1:] == []
    assert _observe(subs, _hook(permission_mode="plan")) == [
        (AGENT, _update(_mode("plan", "Plan")))
    ]
    # The late one's options were not kept: its announcement comes alone.
    subs.route(_launch_card("toolu_late"))
    assert len(subs.task_started(_started("agent-late", "toolu_late"))) == 1
    # agent-0 kept both of its reports.
    subs.route(_launch_card("toolu_0"))
    out = subs.task_started(_started("agent-0", "toolu_0"))
    assert out[1] == ("agent-0", _update(_mode("plan", "Plan"), _effort("low", "Low")))


def test_an_agent_that_starts_frees_its_place_among_those_waiting() -> None:
    subs = _on()
    for n in range(MAX_PENDING_PARENTS):
        _observe(subs, _hook(agent=f"agent-{n}", permission_mode="plan"))
    # agent-0 starts (announced or not, it is known): one more unknown agent may wait.
    subs.task_started(_started("agent-0", "toolu_0"))
    assert _observe(subs, _hook(agent="agent-new", permission_mode="plan")) == []
    assert subs.dropped == 0
    assert _observe(subs, _hook(agent="agent-late", permission_mode="plan")) == []
    assert subs.dropped == 1
    # Its configuration stays its own, and an ended child's never counts as waiting.
    subs.route(_launch_card("toolu_0"))
    subs.task_notification({"task_id": "agent-0", "tool_use_id": "toolu_0", "status": "completed"})
    assert _observe(subs, _hook(agent="agent-later", permission_mode="plan")) == []
    assert subs.dropped == 2
    # The end of the stream forgets every one of them: the bound starts afresh.
    subs.finish_all("failed")
    for n in range(MAX_PENDING_PARENTS):
        _observe(subs, _hook(agent=f"again-{n}", permission_mode="plan"))
    assert subs.dropped == 2


def test_the_end_of_the_stream_forgets_what_waited() -> None:
    subs = _on()
    _observe(subs, _hook(permission_mode="plan"))
    subs.finish_all("failed")
    assert len(_announced(subs)) == 1


def test_off_or_for_the_root_nothing_is_told() -> None:
    off = NativeSubagents(ROOT)
    assert off.subagent_hook(_hook(permission_mode="plan")) == []
    assert off.configure(AGENT, [_mode("plan", "Plan")]) == []
    subs = _on()
    assert subs.configure(ROOT, [_mode("plan", "Plan")]) == []
    assert subs.configure(AGENT, []) == []
    assert subs.configure(AGENT, [{"name": "no id"}, {"id": 3}]) == []
