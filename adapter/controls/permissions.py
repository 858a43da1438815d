"""Permission requests: Claude Code's `can_use_tool` questions as ACP `session/request_permission`.

Theory of operation: Claude Code applies its own rules and the current mode first and asks only
about calls it could not decide, so the adapter never allows anything by itself. Every question
offers "Yes" and "No"; "always" is offered only where it is true, and carried out the way
Claude Code carries it out, by `updated_permissions` in the answer:
- Claude Code's own suggestions for the call (a rule it will keep in the settings file it
  names, so it holds in the next session too);
- without suggestions: for file edits, accept edits for the rest of this session (a mode
  change); for a shell command, that exact command for this session; for reading tools, the
  tool for this session; for any other tool, an allow rule kept in the local settings.
ExitPlanMode is the request to leave plan mode: its options (`adapter.controls.plan_exit`) say
which mode comes next (approve manually, bypass or auto where offered, else accept edits) or
keep planning (deny and stop the turn), or, with a "clear context" choice, deny and stop it
so that the turn goes on in a fresh context carrying the plan (`fresh_context`). A mode
change is reported to the client through `on_mode` once Claude has it. A pending request is
withdrawn when its turn ends for any reason (`withdraw`: cancelled, answered, failed, Claude
gone, the session closed): the question is answered "deny and stop" to Claude at once and the
client gets `$/cancel_request` for it, whatever it does with it.

Answers fail closed: only a well-formed selection of an option this question offered allows
anything. A refusal or a cancelled outcome is a denial; so is an error, a malformed reply (the
stdin guard turns one carrying both a result and an error into an error) or an unknown option
id, each logged once.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from acp import helpers
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate
from claude_agent_sdk.types import (
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ToolPermissionContext,
)

from adapter.claude.plan_files import existing_plan_file
from adapter.controls.diff_preview import preview_content
from adapter.controls.permission_hints import hinted
from adapter.controls.pickers import SessionConfig
from adapter.controls.plan_exit import FRESH_CONTEXT, KEEP_PLANNING, plan_choices
from adapter.wire.client_link import ClientLink
from adapter.wire.deep_json import holds_truncation
from fsm import (
    AirClient,
    PermissionCard,
    keys_options_by_kind,
    permission_heading,
    plan_file_input,
    visible,
)

__all__ = ["EDIT_TOOLS", "PermissionBroker"]

log = logging.getLogger(__name__)

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS"})
_DENIED = "The user did not allow this tool call."
_CANCELLED = "The turn was cancelled."
_TAKE_BACK_SECONDS = 5.0
_TOO_DEEP = "The tool input is nested too deeply for the editor to show, so it was not allowed."


def _always(
    tool_name: str, tool_input: dict[str, Any], suggestions: list[PermissionUpdate]
) -> tuple[str, list[PermissionUpdate]] | None:
    """The truthful "always" label and its updates, or None when there is none to offer."""
    if suggestions:
        rules = [r for s in suggestions for r in (s.rules or [])]
        contents = [r.rule_content for r in rules if r.rule_content]
        if tool_name == "Bash" and contents:
            prefix = contents[0].removesuffix(":*")
            return f"Yes, and don't ask again for `{prefix}` commands", suggestions
        return f"Yes, and don't ask again for {tool_name}", suggestions
    if tool_name in EDIT_TOOLS:
        update = PermissionUpdate(type="setMode", mode="acceptEdits", destination="session")
        return "Yes, allow all edits during this session", [update]
    command = tool_input.get("command")
    if tool_name == "Bash" and isinstance(command, str) and command:
        # No suggestion from Claude Code: this exact command, for this session only.
        rule = PermissionRuleValue(tool_name=tool_name, rule_content=command)
        update = PermissionUpdate(
            type="addRules", rules=[rule], behavior="allow", destination="session"
        )
        return f"Yes, and don't ask again for `{command}` this session", [update]
    if tool_name in _READ_TOOLS:
        rule = PermissionRuleValue(tool_name=tool_name)
        update = PermissionUpdate(
            type="addRules", rules=[rule], behavior="allow", destination="session"
        )
        return "Yes, during this session", [update]
    if tool_name not in {"Bash", "ExitPlanMode"}:
        rule = PermissionRuleValue(tool_name=tool_name)
        update = PermissionUpdate(
            type="addRules", rules=[rule], behavior="allow", destination="localSettings"
        )
        return f"Yes, and don't ask again for {tool_name}", [update]
    return None


class PermissionBroker:
    def __init__(
        self,
        *,
        session_id: str,
        link: ClientLink,
        config: SessionConfig,
        on_mode: Callable[[str], Awaitable[None]],
        resolve_mode: Callable[[str], Awaitable[str]] | None = None,
        air: AirClient | None = None,
    ) -> None:
        self._session_id = session_id
        self._air = air or AirClient()
        self._link = link
        self._config = config
        self._on_mode = on_mode
        # The mode a chosen mode gets (an `auto` the model lacks: Accept edits).
        self._resolve_mode = resolve_mode
        self._pending: set[anyio.CancelScope] = set()
        # How the call looks in the question, from (tool call id, tool, input, the request's
        # context): its own tool card and the core's plan of it, whose `slim` says it is AIR's
        # share of a card the client holds (`LiveView.permission_card`, set by the session);
        # without one, its title and input.
        self.card: Callable[[str, str, Any, Any], tuple[ToolCallUpdate, PermissionCard]] | None = (
            None
        )
        # The session a subagent's question goes on, by its agent id (set by the session: a
        # JetBrains AIR child session once announced); else this session.
        self.owner: Callable[[object], str] = lambda agent_id: self._session_id
        # A plan exit that clears the context (set by the session): how full the context is
        # (a percentage, None when unknown), and who goes on in a fresh context with
        # (tool call id, plan, mode) once Claude is told no.
        self.percent_used: Callable[[], int | None] = lambda: None
        self.fresh_context: Callable[[str, str, str], Awaitable[None]] | None = None
        # Whether a turn is live to go on in that fresh context (set by the session): a plan
        # exit Claude asks between turns (a background subagent's follow-up after the turn
        # was answered) has none, so it offers no clear-context choice
        # (docs/reference-adapter.md#clear-context).
        self.turn_live: Callable[[], bool] = lambda: True

    @property
    def waiting(self) -> bool:
        """A permission question is open: the user has yet to answer it."""
        return bool(self._pending)

    def withdraw(self) -> None:
        """Stop waiting for every pending answer (the turn was cancelled)."""
        for scope in list(self._pending):
            scope.cancel()

    def _heading(
        self, tool_call: ToolCallUpdate, name: str, tool_input: dict[str, Any], context: Any
    ) -> dict[str, Any] | None:
        """The request's `_meta`: JetBrains AIR's approval heading, for an AIR client. A shell
        command is its own heading, verbatim (the card's title shows it on one line)."""
        if not self._air.permission_heading:
            return None
        command = tool_input.get("command")
        shell = name in ("Bash", "PowerShell") and isinstance(command, str) and command != ""
        hints = getattr(context, "hints", None)
        return permission_heading(
            tool_name=name,
            title=str(command) if shell else (tool_call.title or name),
            decision_reason=getattr(context, "decision_reason", None),
            default_to_no=bool(getattr(hints, "default_to_no", False)),
        )

    async def _ask(
        self,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        name: str,
        meta: dict[str, Any] | None = None,
        session_id: str | None = None,
        *,
        slim: bool = False,
    ) -> str | None:
        """The chosen option id; None for a refusal, "" when withdrawn. `name`: the tool as
        Claude calls it (the question's `toolCall.name`, as on its card); `meta`: the
        request's `_meta`; `session_id`: the session it goes on (a subagent's child); `slim`:
        the question is AIR's share of the card (`PermissionCard.slim`)."""
        # AIR's share of the card carries no `name`, as the reference sends it
        # (docs/reference-adapter.md#permission-request-tool-call).
        shown_name = None if slim else name
        with anyio.CancelScope() as scope:
            self._pending.add(scope)
            request_id = self._link.next_request_id()
            answered = False
            try:
                outcome = await self._link.request_permission(
                    session_id or self._session_id, tool_call, options, shown_name, meta
                )
                answered = True
            finally:
                self._pending.discard(scope)
                if not answered and request_id is not None:
                    await self._take_back(request_id)
            if not isinstance(outcome, AllowedOutcome):
                return None  # a refusal, a cancel, or no answer (the link logged why)
            if outcome.option_id in {option.option_id for option in options}:
                return outcome.option_id
            # Fail closed: only an option we offered can allow anything.
            log.warning(
                "session %s: a permission answer names no offered option; denying", self._session_id
            )
            return None
        return ""

    async def _take_back(self, request_id: int) -> None:
        """The question is gone (withdrawn, or its turn's task ended under it when Claude went
        away): tell the client, which may still show it. Shielded, since the task may be being
        cancelled; bounded, since the client may not be reading. A late answer then finds no
        waiter in `acp` and is dropped."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(_TAKE_BACK_SECONDS):
            await self._link.cancel_request(request_id)

    async def decide(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        tool_id = context.tool_use_id or str(uuid.uuid4())
        title = getattr(context, "title", None)
        slim = False
        if self.card is not None:
            tool_call, plan = self.card(tool_id, tool_name, tool_input, context)
            slim = plan.slim
        else:
            tool_call = ToolCallUpdate(
                tool_call_id=tool_id,
                title=visible(title or tool_name),
                raw_input=tool_input,
                status="pending",
            )
        if holds_truncation(tool_input):
            # What the SDK would hand back as the tool's input is our truncated copy, not what
            # Claude sent: never allowed, and not asked about (the card shows it truncated).
            log.warning("session %s: a tool input too deep to show; denying", self._session_id)
            return PermissionResultDeny(message=_TOO_DEEP)
        if tool_name == "ExitPlanMode":
            return await self._leave_plan(tool_call, tool_input, context, tool_name, slim=slim)
        if self._air.diff_patch:
            preview = preview_content(tool_name, tool_input)
            if preview is not None:
                shown = tool_call.model_dump(by_alias=True, exclude_none=True)
                tool_call = ToolCallUpdate.model_validate({**shown, "content": preview})
        always = _always(tool_name, tool_input, list(context.suggestions or []))
        options = [PermissionOption(option_id="allow", name="Yes", kind="allow_once")]
        if always is not None:
            options.append(
                # The label quotes Claude's command: no control character in an option name.
                PermissionOption(
                    option_id="allow_always", name=visible(always[0]), kind="allow_always"
                )
            )
        options.append(PermissionOption(option_id="reject", name="No", kind="reject_once"))
        meta = self._heading(tool_call, tool_name, tool_input, context)
        owner = self.owner(getattr(context, "agent_id", None))
        chosen = await self._ask(
            tool_call, hinted(options, context), tool_name, meta, owner, slim=slim
        )
        if chosen == "":
            return PermissionResultDeny(message=_CANCELLED, interrupt=True)
        if chosen == "allow":
            return PermissionResultAllow()
        if chosen == "allow_always" and always is not None:
            await self._announce(always[1])
            return PermissionResultAllow(updated_permissions=always[1])
        return PermissionResultDeny(message=_DENIED)

    async def _leave_plan(
        self,
        tool_call: ToolCallUpdate,
        tool_input: dict[str, Any],
        context: Any,
        name: str,
        *,
        slim: bool,
    ) -> PermissionResult:
        plan = tool_input.get("plan")
        # A `planFile` client reads the plan from its file (adapter.view.plan_file).
        plan_file = existing_plan_file(tool_input.get("planFilePath"))
        shown_file = plan_file if self._air.plan_file else None
        # AIR's share of the card (`slim`) holds no kind and no plan: the card it has shows them.
        card: dict[str, Any] = (
            {}
            if slim
            else {
                "kind": "switch_mode",
                "content": [helpers.tool_content(helpers.text_block(plan))]
                if isinstance(plan, str) and shown_file is None
                else None,
            }
        )
        tool_call = tool_call.model_copy(
            update={
                "title": "Ready to code?",
                **card,
                **(
                    {"raw_input": plan_file_input(tool_input, shown_file)}
                    if shown_file is not None
                    else {}
                ),
            }
        )
        # Its mode options stay whatever the hints say; only the order follows them.
        can_clear = isinstance(plan, str) and self.fresh_context is not None and self.turn_live()
        choices = plan_choices(
            self._config.modes,
            plan=plan if can_clear else None,
            percent_used=self.percent_used(),
            before_plan=self._config.before_plan,
            one_per_kind=keys_options_by_kind(self._link.client_name),
        )
        options = hinted([c.option() for c in choices], context, keep_always=True)
        heading = self._heading(tool_call, name, tool_input, context)
        chosen = await self._ask(tool_call, options, name, heading, slim=slim)
        choice = next((c for c in choices if c.option_id == chosen), None)
        mode = choice.mode if choice is not None else None
        if chosen == "":
            return PermissionResultDeny(message=_CANCELLED, interrupt=True)
        if mode is None:
            return PermissionResultDeny(message=KEEP_PLANNING, interrupt=True)
        if self._resolve_mode is not None:
            mode = await self._resolve_mode(mode)
        if choice is not None and choice.clears_context and self.fresh_context is not None:
            # Claude stops this context; the turn goes on in a fresh one (section 2.3).
            await self.fresh_context(tool_call.tool_call_id, str(plan).strip(), mode)
            return PermissionResultDeny(message=FRESH_CONTEXT, interrupt=True)
        update = PermissionUpdate(type="setMode", mode=mode, destination="session")  # type: ignore[arg-type]
        await self._announce([update])
        return PermissionResultAllow(updated_permissions=[update])

    async def _announce(self, updates: list[PermissionUpdate]) -> None:
        for update in updates:
            if update.type == "setMode" and update.mode and update.mode in self._config.modes:
                await self._on_mode(update.mode)
