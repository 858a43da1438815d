"""JetBrains AIR: who is an AIR client, which AIR capabilities it declared, and what those
change in a session (docs/decisions.md#advertising, docs/decisions.md#session-delete-from-air).

Theory of operation: two predicates, as the reference adapter has them
(docs/reference-adapter.md#air-client, which lists what every AIR client gets). A client is an
*AIR client* when its `clientCapabilities._meta.jetbrains.air` is a JSON object, whatever else it
holds; that alone turns on what the reference gives every AIR client (the agent's own
declaration, `session/delete` as archive). A *capability* is on when that object also has a
`version` that is an integer >= 1 and a `capabilities` list holding the exact name, and the
agent implements it: a name the agent does not implement is not negotiated, so the client
falls back to what it does without it (for `sessionIndex`: AIR's old list and delete, where
delete means "done"). Nothing here raises on malformed input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fsm.air.goals import goal_advertisement
from fsm.air.meta import (
    air_info_update,
    context_compaction_meta,
    custom_answer_meta,
    mcp_call_meta,
    mode_kind_meta,
    skill_command_meta,
    tool_use_meta,
)
from fsm.wire.negotiation import CAPABILITY as SESSION_FAILURE
from fsm.wire.negotiation import _is_version

__all__ = [
    "ADVERTISED",
    "APPROVED_PLAN_ID",
    "IMPLEMENTED",
    "INDEX_CAPABILITIES",
    "PLAIN_ERROR_TOOLS",
    "SESSION_INDEX",
    "AirClient",
    "advertisement",
    "air_client",
    "failed_text_fenced",
]

SESSION_INDEX = "sessionIndex"
LOAD_REPLAY_END = "loadReplayEnd"
RAW_INPUT_RENDERING = "rawInputRendering"
PLAN_FILE = "planFile"
DIFF_PATCH = "diffPatch"
BACKGROUND_SUBAGENTS = "backgroundSubagents"
ASYNC_TASKS = "asyncTasks"
CUSTOM_INSTRUCTIONS = "customInstructions"
NATIVE_SUBAGENT_SESSIONS = "nativeSubagentSessions"
RECOMMENDED_VALUE = "recommendedValue"
AGENT_FILE_CHANGE_REPORT = "agentFileChangeReport"

# What this agent implements of the AIR set and advertises, in the reference's order
# (`sessionFailure` first): the one list of them, which `advertisement` and `negotiated` read.
# `customInstructions` is the agent's alone: the client never declares it, and it is read from
# any client.
IMPLEMENTED: tuple[str, ...] = (
    SESSION_FAILURE,
    AGENT_FILE_CHANGE_REPORT,
    NATIVE_SUBAGENT_SESSIONS,
    ASYNC_TASKS,
    CUSTOM_INSTRUCTIONS,
    RECOMMENDED_VALUE,
    DIFF_PATCH,
    PLAN_FILE,
    BACKGROUND_SUBAGENTS,
    SESSION_INDEX,
)
# What the agent adds to its declaration for a client that negotiated the session index: the
# index itself, then what it brings (the client declares only the first; the others alone
# enable nothing).
INDEX_CAPABILITIES: tuple[str, ...] = (
    SESSION_INDEX,
    "sessionBatchGet",
    "sessionArchive",
    "sessionRename",
    "sessionListSubscribe",
    "sessionWorktrees",
)
# What every AIR client is told the agent implements; the index's names go only to a client
# that negotiated the index.
ADVERTISED: tuple[str, ...] = tuple(name for name in IMPLEMENTED if name not in INDEX_CAPABILITIES)
# What the client declares and the agent honours but never advertises.
HONOURED_UNADVERTISED = frozenset({LOAD_REPLAY_END, RAW_INPUT_RENDERING})
AIR_VERSION = 1
# The `planId` of a plan the user approved on leaving plan mode, as the reference names it
# (docs/reference-adapter.md#clear-context); an AIR client's carries the approval's call id.
APPROVED_PLAN_ID = "plan-mode"
# How Claude Code names an MCP server's prompt among its commands: never a skill.
MCP_PROMPT = " (MCP)"
# The tools whose failed call's text an AIR client reads plain, not in a code fence: the agent
# control tools, whose result AIR shows in its own frame (it parses SendMessage's and TaskStop's
# JSON), and the plan exit, whose rejection reason Claude already fenced (the reference's
# `AgentControlReporter`, `ExitPlanModeReporter`).
PLAIN_ERROR_TOOLS = frozenset({"SendMessage", "TaskStop", "ListAgents", "Monitor", "ExitPlanMode"})


def _air_object(client_meta: object) -> dict[str, Any] | None:
    if not isinstance(client_meta, dict):
        return None
    jetbrains = client_meta.get("jetbrains")
    if not isinstance(jetbrains, dict):
        return None
    air = jetbrains.get("air")
    return air if isinstance(air, dict) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class AirClient:
    """What the client's `initialize` said about JetBrains AIR; the default is a plain client."""

    air: bool = False  # `_meta.jetbrains.air` is an object
    declared: frozenset[str] = field(default_factory=frozenset)  # a well-formed declaration's
    # `clientCapabilities.subagents` is an object (the subagents RFD's draft field): an AIR
    # client that sends it gets native subagent sessions in AIR's form, declared or not.
    subagents_field: bool = False

    def negotiated(self, name: str) -> bool:
        """Declared by an AIR client and implemented here."""
        implemented = name in IMPLEMENTED or name in HONOURED_UNADVERTISED
        return self.air and name in self.declared and implemented

    def declaration(self) -> dict[str, Any] | None:
        """The agent's own AIR declaration for `initialize`'s `_meta.jetbrains.air`: to an AIR
        client only (docs/decisions.md#advertising), exactly what is implemented here."""
        if not self.air:
            return None
        names = list(ADVERTISED)
        if self.session_index:
            names += INDEX_CAPABILITIES
        # The goal needs no client capability: every AIR client is told how to set it.
        return {"version": AIR_VERSION, "capabilities": names, "goal": goal_advertisement()}

    def after_replay(self) -> list[dict[str, Any]]:
        """What follows a `session/load`'s whole replay, before its answer."""
        if not self.negotiated(LOAD_REPLAY_END):
            return []
        return [air_info_update(LOAD_REPLAY_END, True)]

    @property
    def diff_patch(self) -> bool:
        """Edits show git patches: a preview in the question, the final one in the result."""
        return self.negotiated(DIFF_PATCH)

    @property
    def plan_file(self) -> bool:
        """ExitPlanMode shows the plan's file (`rawInput.planFilePath`), not its text."""
        return self.negotiated(PLAN_FILE)

    @property
    def background_subagents(self) -> bool:
        """A turn is answered at its result while its background subagents still run; what
        they do afterwards (text, tool calls, questions) goes out after the answer."""
        return self.negotiated(BACKGROUND_SUBAGENTS)

    @property
    def async_tasks(self) -> bool:
        """Claude Code's background work other than subagents is the Async Tasks panel's
        (`async_task_*` updates, `fsm.air.async_tasks`)."""
        return self.negotiated(ASYNC_TASKS)

    @property
    def file_change_report(self) -> bool:
        """A prompt may ask which files its turn changed (`fsm.air.file_change_reports`); Claude
        Code keeps file checkpoints for every session of the client."""
        return self.negotiated(AGENT_FILE_CHANGE_REPORT)

    @property
    def native_subagents(self) -> bool:
        """Each subagent is a child session (`subagent_spawned`, `subagent_state_update`,
        `fsm.air.native_subagents`): AIR's form, for an AIR client that declared
        `nativeSubagentSessions` or sent `clientCapabilities.subagents`. A plain client
        with `subagents` would get the RFD's form, which this agent does not speak: it
        gets none."""
        return self.air and (self.negotiated(NATIVE_SUBAGENT_SESSIONS) or self.subagents_field)

    def session_capabilities(self) -> dict[str, Any]:
        """What `agentCapabilities.sessionCapabilities` adds for this client: AIR's draft
        `subagents: {}`, to an AIR client only, as the reference does."""
        return {"subagents": {}} if self.air else {}

    @property
    def recommended_value(self) -> bool:
        """The model and effort pickers have no "Default" row: they name the value Claude Code
        recommends (`_meta.jetbrains.air.recommendedValue`, `fsm.pickers.values`)."""
        return self.negotiated(RECOMMENDED_VALUE)

    @property
    def raw_input_rendering(self) -> bool:
        """The client renders a call's `rawInput` itself: no card content only repeats it (a
        prompt, a plan, questions); an edit's diff and a terminal stay."""
        return self.negotiated(RAW_INPUT_RENDERING)

    @property
    def permission_heading(self) -> bool:
        """Every AIR client gets the approval's heading (`_meta.jetbrains.air.permission`)."""
        return self.air

    @property
    def slim_permission_card(self) -> bool:
        """Every AIR client gets a permission request's tool call as the reference sends AIR
        one: `toolCallId`, `title` and `rawInput` of a card it holds already
        (`fsm.permission_card`)."""
        return self.air

    @property
    def prompt_suggestions(self) -> bool:
        """Every AIR client is shown the prompt Claude Code predicts after a turn
        (`fsm.air.prompt_suggestions`); Claude Code makes predictions only for such a client."""
        return self.air

    @property
    def skill_paths(self) -> bool:
        """Every AIR client is told where a skill's `SKILL.md` is: on its command and on the
        `Skill` tool call."""
        return self.air

    @property
    def filters_meta(self) -> bool:
        """Each `tool_call_update` leaves without the `_meta` keys an earlier report of its call
        sent with the same value (`fsm.air.changed_meta_filter`): every AIR client, which merges
        them, as the reference does; ACP defines no merge of `_meta` keys, so any other client
        gets every key on every update."""
        return self.air

    @property
    def partial_input(self) -> bool:
        """Whether a call Claude is still writing shows its input so far (`rawInput`) on its
        opening and on each refinement of its streaming input: not to an AIR client, which
        gets `rawInput` once the input is complete, as the reference does; any other client
        gets the input as it stands, the empty one at the opening too."""
        return not self.air

    def opening_meta(self, meta: dict[str, Any], tool_name: str) -> dict[str, Any]:
        """The `_meta` of a call's first report (its `tool_call`): every AIR client is told
        that it calls an MCP server's tool (`is_mcp_tool_call`, `fsm.air.meta.mcp_call_meta`),
        as the reference does; any other client gets `meta` as it is."""
        return mcp_call_meta(meta, tool_name) if self.air else meta

    def tool_meta(self, meta: dict[str, Any], tool_name: str, tool_input: object) -> dict[str, Any]:
        """A tool call's `_meta` as this client gets it: every AIR client is told a shell
        command's title and an MCP tool's server and tool (`fsm.air.meta.tool_use_meta`), as the
        reference does; any other client gets `meta` as it is, with no AIR key. Every report
        of a call is made with them; an update leaves without the unchanged ones
        (`filters_meta`, docs/decisions.md#air-only-keys)."""
        return tool_use_meta(meta, tool_name, tool_input) if self.air else meta

    def mode_meta(self, mode_id: str) -> dict[str, Any] | None:
        """A session mode's `_meta`, in `availableModes` and among the mode option's values:
        its kind (`fsm.air.meta.mode_kind_meta`) for every AIR client, as the reference does;
        None for any other client."""
        return mode_kind_meta(mode_id) if self.air else None

    @property
    def fixed_question_title(self) -> bool:
        """An AskUserQuestion card is titled "Asking for your input" however many questions it
        asks: every AIR client, which shows the questions as the call's input, as the
        reference does; any other client gets the question itself when there is only one."""
        return self.air

    def approved_plan_id(self, tool_id: str) -> str:
        """The `planId` of the markdown plan the user approved at the ExitPlanMode call
        `tool_id`: every AIR client keeps one plan per approval, `plan-mode:<tool_id>`, which
        joins the plan to its approval card in AIR's transcript, as the reference does; any
        other client (or a call without an id) replaces the session's one `plan-mode` plan."""
        return f"{APPROVED_PLAN_ID}:{tool_id}" if self.air and tool_id else APPROVED_PLAN_ID

    def custom_answer(self, question_id: str) -> dict[str, Any] | None:
        """The `_meta` of a question form's "Other" field, the free-text companion of select
        field `question_id` (`fsm.air.meta.custom_answer_meta`): for every AIR client, as the
        reference does; None for any other client."""
        return custom_answer_meta(question_id) if self.air else None

    def compaction_meta(
        self, meta: dict[str, Any] | None, facts: dict[str, Any]
    ) -> dict[str, Any] | None:
        """A compaction report's `_meta` (its card's, or a `compaction_update`'s): for every AIR
        client with the compaction's facts (`fsm.air.meta.context_compaction_meta`), as the
        reference does; any other client gets `meta` as it is (None: no `_meta`)."""
        return context_compaction_meta(meta, facts) if self.compaction_facts else meta

    @property
    def compaction_facts(self) -> bool:
        """A compaction's facts (trigger, token counts, duration, error) go in its reports'
        `_meta.jetbrains.air.contextCompaction`, never repeated in the card's `rawOutput`:
        every AIR client, as the reference does."""
        return self.air

    def compaction_raw_output(self, facts: dict[str, Any]) -> dict[str, Any] | None:
        """The "Compact conversation" card's `rawOutput` at its end: the compaction's facts
        for any client but an AIR one, which finds them in `_meta` (`compaction_meta`) and gets
        no `rawOutput`, as the reference's `compactionToolCall.finished` does (None: none;
        docs/reference-adapter.md#context-compaction-meta). Ours carries the facts even when
        the boundary brought none (`{}`), where the reference leaves an empty one out."""
        return None if self.compaction_facts else facts

    def repeats_compaction_end(self, facts: dict[str, Any]) -> bool:
        """Whether a compaction boundary that comes after the compaction's `completed` update
        went out (a `success` status before it) is sent as one more `completed`
        `compaction_update`, carrying the boundary's `facts`: for an AIR client, when the
        boundary brings facts, as the reference re-sends the end only when the boundary adds
        facts (`ContextCompactionLifecycle.finish`). Any other client would get nothing new
        (the reference sends it a bare repeat), so it gets none."""
        return self.compaction_facts and bool(facts)

    def probes_skill(self, command: str, *, builtin: bool, listed_path: str | None) -> bool:
        """Whether command `command`'s `SKILL.md` is looked for on disk: for an AIR client, a
        command Claude Code gave no file for that is neither built in nor an MCP prompt."""
        return self.air and listed_path is None and not builtin and not command.endswith(MCP_PROMPT)

    def command_meta(
        self, command: str, *, listed: bool, path: str | None
    ) -> dict[str, Any] | None:
        """A command's `_meta.jetbrains.air` (`kind`, `skillPath`): for an AIR client's skill
        commands only (`listed`: Claude Code lists it as a skill; `path`: its `SKILL.md`)."""
        if not self.air or command.endswith(MCP_PROMPT):
            return None
        return skill_command_meta(listed=listed, path=path)

    @property
    def session_index(self) -> bool:
        return self.negotiated(SESSION_INDEX)

    @property
    def delete_archives(self) -> bool:
        """`session/delete` marks the session done (AIR without the session index): the
        transcript is archived, never removed (docs/decisions.md#session-delete-from-air)."""
        return self.air and not self.session_index

    @property
    def list_hides_archived(self) -> bool:
        """The plain `session/list` leaves archived sessions out, as a delete that archived
        should look like one that removed (the same clients as `delete_archives`)."""
        return self.delete_archives


def air_client(client_meta: object, *, subagents: bool = False) -> AirClient:
    """`subagents`: the client's capabilities hold a `subagents` object."""
    air = _air_object(client_meta)
    if air is None:
        return AirClient()
    names = air.get("capabilities")
    if not _is_version(air.get("version")) or not isinstance(names, list):
        # Malformed: an AIR client with no capability on.
        return AirClient(air=True, subagents_field=subagents)
    declared = frozenset(n for n in names if isinstance(n, str))
    return AirClient(air=True, declared=declared, subagents_field=subagents)


def failed_text_fenced(tool_name: str, *, air: bool) -> bool:
    """Whether a failed call of `tool_name` shows its text in a Markdown code fence, as the
    reference shows it: for every client, but an AIR client (`air`: `AirClient.air`) reads the
    text of `PLAIN_ERROR_TOOLS` plain (docs/decisions.md#failed-call-text-fenced)."""
    return not (air and tool_name in PLAIN_ERROR_TOOLS)


def advertisement(client: AirClient) -> dict[str, Any] | None:
    """The initialize response's `_meta` (a fresh copy callers may merge into): the agent's AIR
    declaration to an AIR client only; nothing under `_meta.jetbrains` for any other client, as
    the reference does (docs/decisions.md#advertising)."""
    declared = client.declaration()
    return None if declared is None else {"jetbrains": {"air": declared}}
