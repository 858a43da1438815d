"""A session's everyday controls: mode, model and effort pickers, slash commands, permissions.

Theory of operation: one `SessionControls` per `Session`. It decides what a new Claude process
starts with (`launch`), learns Claude Code's commands and models from its initialize answer
(`adopt`), applies the client's choices to the running Claude through its control requests
(`set_mode`, `set_option`: validated first, so a bad choice changes nothing), and follows the
changes Claude made by itself, as the session's reading of each frame says them (`follow`,
`adapter.claude.translate.OwnChanges`): a new permission mode (EnterPlanMode, a `system/init`
or `status` naming another mode), a changed command list (`commands_changed`; `system/init`'s
bare `slash_commands` names are not used: they carry no descriptions and need not match the
initialize list), fast mode, a fallback's model. Every mode change is told to the client as
`current_mode_update` plus `config_option_update`; so is a model Claude Code switched to by
itself (`follow_model`: `/model` typed in the chat, a fallback for the rest of the session), as
the reference adapter does (docs/reference-adapter.md#model-switches).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    AgentMessageChunk,
    AvailableCommand,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    TextContentBlock,
)
from anyio.abc import TaskGroup

from adapter.claude.client_options import ClientOptions
from adapter.claude.launch import Launch
from adapter.claude.skill_files import Scans, listed_skill_files, resolve_skill_path
from adapter.claude.surroundings import Surroundings
from adapter.claude.translate import NO_CHANGES, OwnChanges
from adapter.controls import local_commands
from adapter.controls.auto_fast import AutoFast
from adapter.controls.auto_fast_rules import FAST
from adapter.controls.commands import available_commands, update_for
from adapter.controls.launch_flags import launch_for
from adapter.controls.local_commands import MCP_COMMAND
from adapter.controls.mcp_elicitation import McpElicitor
from adapter.controls.mcp_sign_in import McpSignIn
from adapter.controls.model_choices import ModelChoice
from adapter.controls.permissions import PermissionBroker
from adapter.controls.pickers import DEFAULT_EFFORT, SessionConfig
from adapter.controls.question_form import disallowed_tools
from adapter.controls.questions import QuestionAsker
from adapter.controls.remote_control_switch import RemoteControlSwitch
from adapter.controls.ultracode_switch import ULTRACODE, check_ultracode
from adapter.wire.client_link import ClientLink
from fsm import (
    RAW_MESSAGE_METHOD,
    REMOTE_CONTROL_COMMAND,
    AirClient,
    Event,
    McpServersReconnected,
    agent_flag,
    claude_code_offers,
    measured_context_window,
    mode_to_follow,
    seeded_context_window,
    sign_in_servers,
)

if TYPE_CHECKING:
    from adapter.claude.claude_runtime import ClaudeRuntime

__all__ = ["SessionControls"]

log = logging.getLogger(__name__)


class SessionControls:
    def __init__(
        self,
        *,
        session_id: str,
        link: ClientLink,
        config: SessionConfig,
        mcp_servers: dict[str, Any] | None = None,
        ask_by_form: bool = False,
        client_options: ClientOptions | None = None,
        surroundings: Surroundings | None = None,
        ask_by_url: bool = False,
        plan_updates: bool = False,
        air: AirClient | None = None,
        cwd: str = "",
    ) -> None:
        self.session_id = session_id
        self._cwd = cwd
        self.air = air or AirClient()  # JetBrains AIR: what the client negotiated
        # The client's extra folders and system prompt: every Claude process starts with them.
        self.surroundings = surroundings or Surroundings()
        self.config = config
        config.recommend = self.air.recommended_value
        config.mode_meta = self.air.mode_meta
        self.mcp_servers = mcp_servers or {}
        self.client_options = client_options
        self.commands: list[AvailableCommand] = []
        # What follows the command list once the setup response is out (`after_setup_answer`).
        self._after_setup: list[Callable[[], Awaitable[None]]] = []
        self._setup_answered = False  # the setup response is out and that work was taken
        # Claude Code was asked (once a session) what it says of Ultracode (`_ask_ultracode`).
        self._ultracode_asked = False
        # Model switches sent to Claude or followed, and those sent and not yet answered: what
        # changed while `get_settings` was asked.
        self._model_moves = 0
        self._models_sending = 0
        # Efforts and Ultracode switches sent to Claude: after one, `get_settings`' answer to an
        # earlier ask may say a value Claude Code no longer has.
        self._flag_sends = 0
        self._listed: list[Any] = []  # Claude Code's own command entries, as it listed them
        # The account Claude Code's initialize answer named (the connection's `authStatus`),
        # told at every Claude start, a restart after `authenticate` or `logout` included, as
        # the reference publishes it at every query it creates (bound by the agent).
        # With it goes the connection's sign-in epoch as that Claude began starting
        # (`auth_epoch`, bound by the agent, read at `starting`): an account read before a
        # sign-out that came meanwhile is not told (docs/reference-adapter.md#auth-status).
        self.account: dict[str, Any] | None = None
        self.on_account: Callable[[dict[str, Any] | None, int], None] = lambda account, at: None
        self.auth_epoch: Callable[[], int] = lambda: 0
        self._starting_at = 0
        # The commands its `system/init` marks as bound to its terminal: never offered.
        self._terminal_only: frozenset[str] = frozenset()
        # JetBrains AIR's skill paths: the skill files Claude Code lists (name -> SKILL.md, None:
        # a skill without a file), read at its first `system/init` and at each
        # `commands_changed`; and the paths looked up on disk for the others, until the
        # commands change.
        self._skill_files: dict[str, str | None] = {}
        self._skill_files_read = False
        self._skill_paths: dict[str, str | None] = {}
        self._spawn: Callable[[Callable[[], Awaitable[None]]], object] = lambda work: None
        self._link = link
        self._runtime: Callable[[], ClaudeRuntime | None] = lambda: None
        self.permissions = PermissionBroker(
            session_id=session_id,
            link=link,
            config=config,
            on_mode=self.mode_changed,
            resolve_mode=self.resolve_mode,
            air=air,
        )
        # Auto mode and fast mode (adapter.controls.auto_fast).
        # What the client is told of it is the core's: `report` (bound by the session) feeds it.
        self._report: Callable[[Event], Awaitable[None]] | None = None
        self.auto_fast = AutoFast(
            session_id=session_id, link=link, config=config, report=self._to_core
        )
        self.questions = QuestionAsker(
            session_id=session_id,
            link=link,
            ask_by_form=ask_by_form,
            other_meta=self.air.custom_answer,
        )
        # MCP servers' own forms (adapter.controls.mcp_elicitation).
        self.elicitations = McpElicitor(
            session_id=session_id, link=link, ask_by_form=ask_by_form, ask_by_url=ask_by_url
        )
        # `/remote-control`, where Claude Code does not offer it itself.
        self.remote_control = RemoteControlSwitch(session_id=session_id, link=link)
        # The client's MCP servers that need a sign-in (adapter.controls.mcp_sign_in).
        self.sign_in = McpSignIn(
            session_id=session_id,
            link=link,
            servers=sign_in_servers(by_url=ask_by_url, client_servers=self.mcp_servers),
            report=self._to_core,
        )
        # The client takes `plan_update`s: a plan exit that clears the context sends the plan.
        self.plan_updates = plan_updates
        # Told the context window the session's model promises (None: it says none) whenever
        # the model is known or changes: the session's usage meter.
        self.model_chosen: Callable[[int | None], None] = lambda window: None
        # Told the context window Claude Code measured for the current model
        # (`get_context_usage`, asked beside Claude's stream), until a result says it
        # (fsm.pickers.model_following).
        self.window_measured: Callable[[int], None] = lambda window: None

    async def forward_raw(self, frame: Any) -> None:
        """A message of Claude Code's, as it wrote it, to a client that asked for it with
        `_meta.claudeCode.emitRawSDKMessages` (`fsm.claude.raw_messages` says which)."""
        raw = self.client_options.raw_messages if self.client_options is not None else None
        if raw is not None and raw.wanted and raw.sends(frame):
            params = {"sessionId": self.session_id, "message": frame}
            await self._link.notify(RAW_MESSAGE_METHOD, params, self.session_id)

    def asking_user(self) -> bool:
        """A permission question or a form of this session waits for the user's answer."""
        return (
            self.permissions.waiting
            or self.questions.forms.waiting
            or self.elicitations.forms.waiting
        )

    def withdraw_all(self) -> None:
        """Take back every question the session has open for the user (the core's
        `WithdrawQuestions`): permission requests, a plan exit's among them, AskUserQuestion
        forms and MCP servers' forms. Each is withdrawn from the client with `$/cancel_request`."""
        self.permissions.withdraw()
        self.questions.withdraw()
        self.elicitations.withdraw()

    def bind(
        self,
        runtime: Callable[[], ClaudeRuntime | None],
        report: Callable[[Event], Awaitable[None]],
    ) -> None:
        """Where to find the session's current Claude process, and how to hand its core a fact
        (the session's `feed`)."""
        self._runtime = runtime
        self._report = report

    async def _to_core(self, event: Event) -> None:
        if self._report is None:  # built outside a session: nobody to tell
            log.error("session %s: no core to hand %s to", self.session_id, event.trigger)
            return
        await self._report(event)

    def run_beside_with(self, spawn: Callable[[Callable[[], Awaitable[None]]], object]) -> None:
        """How to run work beside Claude's stream (ended with its process): reading the skill
        files must not hold Claude's frames up."""
        self._spawn = spawn

    def launch(self) -> Launch:
        return launch_for(
            self.config,
            self.mcp_servers,
            self.client_options,
            disallowed_tools(self.questions.ask_by_form),
            self.surroundings,
            file_checkpoints=self.air.file_change_report,
            prompt_suggestions=self.air.prompt_suggestions,
            subagent_hooks=self.air.native_subagents,
        )

    def starting(self) -> None:
        """A Claude process of this session begins starting: the sign-in epoch its account
        goes with."""
        self._starting_at = self.auth_epoch()

    async def adopt(self, runtime: ClaudeRuntime) -> None:
        """Take the commands and models Claude Code reported at start-up."""
        try:
            info = await runtime.server_info()
        except Exception:
            log.warning("session %s: Claude's start-up facts are unavailable", self.session_id)
            return
        account = info.get("account")
        self.account = account if isinstance(account, dict) else None
        self.on_account(self.account, self._starting_at)
        commands = info.get("commands")
        self._listed = commands if isinstance(commands, list) else []
        self.commands = self._offered()
        switch = self.config.adopt(info)
        self.model_chosen(self._context_window())
        self._measure_window(runtime)
        if switch and self.config.model is not None:
            # The transcript's model is gone: the running Claude falls back with the picker.
            try:
                await self._send_model(runtime, self.config.model)
            except Exception:
                log.warning("session %s: Claude refused the default model", self.session_id)
        await self._restore_ultracode(runtime)  # before the effort, which carries it
        await self._apply_effort(runtime)
        await self.auto_fast.adopt(runtime, info)
        if not self._ultracode_asked and self.config.ultracode is not None:
            # Asked once the answer is out, never before it: the answer shows what the model
            # list and the settings say (docs/decisions.md#ultracode-after-the-answer). A
            # restart after the answer (the first Claude's start-up facts failed) asks now.
            self._ultracode_asked = True
            self.after_setup_answer(functools.partial(self._ask_ultracode, runtime))

    async def _restore_ultracode(self, runtime: ClaudeRuntime) -> None:
        """A later Claude process of the session gets the session's Ultracode back where its
        settings start it otherwise (fsm.pickers.ultracode)."""
        start = self.config.ultracode_start
        if start is None or start.send is None:
            return
        try:
            await self._send_flags(runtime, {"ultracode": start.send})
        except Exception:
            log.warning("session %s: Claude refused Ultracode", self.session_id)
            self.config.ultracode = start.refused

    async def _ask_ultracode(self, runtime: ClaudeRuntime) -> None:
        """Ask Claude Code's `get_settings` whether Ultracode can run and is asked for; where
        its answer changes what the picker shows, the client is told. An answer that fails
        changes nothing; what one says is the core's (fsm.pickers.ultracode)."""
        from fsm import UltracodeAsk, ultracode_report, ultracode_reported

        takes, moves, flags = self.config.ultracode_takes(), self._model_moves, self._flag_sends
        sending = self._models_sending > 0
        try:
            response = await runtime.get_settings()
        except Exception as exc:
            log.debug(
                "session %s: no get_settings answer (%s)", self.session_id, type(exc).__name__
            )
            return
        report = ultracode_report(response)
        log.debug(
            "session %s: get_settings says Ultracode is available: %s, requested: %s (for %s)",
            self.session_id,
            report.available,
            report.requested,
            report.model,
        )
        switch = self.config.ultracode
        if switch is None:
            return
        ask = UltracodeAsk(
            takes_asked=takes,
            takes_answered=self.config.model_takes_ultracode(report.model),
            model_changed=sending or self._model_moves != moves,
            flags_sent=self._flag_sends != flags,
            replaced=self._live() not in (None, runtime),
        )
        self.config.ultracode, changed = ultracode_reported(
            switch, report, ask, self.config.ultracode_takes()
        )
        if changed:
            await self._link.send_update(self.session_id, self._options_update())

    async def _send_flags(self, runtime: ClaudeRuntime, settings: dict[str, Any]) -> None:
        """An effort or an Ultracode switch to Claude, counted (`_ask_ultracode`)."""
        self._flag_sends += 1
        await runtime.apply_flag_settings(settings)

    async def _apply_effort(self, runtime: ClaudeRuntime | None) -> None:
        """Tell Claude the effort the picker shows, where the client's pickers name one
        (AIR's `recommendedValue`): Claude's own default need not be the recommendation.
        Each carries Ultracode while it is on (fsm.pickers.ultracode)."""
        from fsm import effort_flag_settings

        for effort in self.config.efforts_to_apply():
            if runtime is None:
                return
            try:
                await self._send_flags(
                    runtime, effort_flag_settings(effort, self.config.ultracode_on())
                )
            except Exception:
                log.warning("session %s: Claude refused the effort", self.session_id)

    def announce_later(self, tg: TaskGroup) -> None:
        """Send the command list once the setup response that opened the session is out.

        Called in the setup request's handler, which cannot send after its own answer (acp
        writes it on return): the ticket is for that answer, and the task waits for the wire
        to have written it. An error answer, or one never written, opens no session for the
        client, so nothing is told."""
        ticket = self._link.response_ticket()

        async def announce() -> None:
            if not await ticket.written():
                log.info("session %s: its setup was not answered; no command list", self.session_id)
                return
            await self._link.send_update(self.session_id, update_for(self.commands))
            after, self._after_setup = self._after_setup, []
            self._setup_answered = True
            for work in after:
                self._spawn(work)
            runtime = self._live()
            if self.sign_in.servers and runtime is not None:
                # Which of the client's servers wait for a sign-in
                # (docs/reference-adapter.md#mcp-sign-in).
                poll = functools.partial(self.sign_in.poll, runtime.client, runtime.epoch)
                await runtime.until_stopped(poll)

        tg.start_soon(announce)

    def after_setup_answer(self, work: Callable[[], Awaitable[None]]) -> None:
        """`work` is done once the setup response is out, after the command list (a load's
        replayed subagents' models named as the model list names them); not at all when that
        response is an error or never written. It runs beside the session (`run_beside_with`):
        at once where that response is already out."""
        if self._setup_answered:
            self._spawn(work)
        else:
            self._after_setup.append(work)

    def start_sign_in(self, tg: TaskGroup, name: str) -> None:
        """Sign in to the client's MCP server `name` (the core's `SignInMcpServer`), in the
        background and with the current Claude process."""
        runtime = self._live()
        if runtime is None:
            log.warning("session %s: no Claude to sign in to an MCP server with", self.session_id)
            return
        tg.start_soon(
            runtime.until_stopped, functools.partial(self.sign_in.run, runtime.client, name)
        )

    async def answer_locally(self, blocks: list[Any]) -> bool:
        """Answer a `/usage` or `/mcp` prompt from Claude Code's control calls, as one agent
        message; False when the prompt is not one or Claude could not answer (it then goes to
        Claude as any prompt)."""
        command = local_commands.parse(blocks)
        runtime = self._live()
        if command is None or runtime is None:
            return False
        tried: list[str] = []
        markdown = await local_commands.run(runtime.client, command, tried)
        if markdown is None:
            return False
        chunk = AgentMessageChunk(
            session_update="agent_message_chunk",
            content=TextContentBlock(type="text", text=markdown),
        )
        await self._link.send_update(self.session_id, chunk)
        if tried:
            # As the reference does after a reconnect: the core may sign in to one again
            # (docs/reference-adapter.md#mcp-sign-in).
            await self._to_core(McpServersReconnected(names=tuple(tried)))
        return True

    def poll_mcp_servers(self, tg: TaskGroup) -> None:
        """Ask Claude Code how its MCP servers are (the core's `PollMcpServers`), beside the
        session: which of the client's need a sign-in."""
        runtime = self._live()
        if runtime is not None:
            poll = functools.partial(self.sign_in.poll, runtime.client, runtime.epoch)
            tg.start_soon(runtime.until_stopped, poll)

    # --- the client's choices -------------------------------------------------------------

    def _live(self) -> ClaudeRuntime | None:
        return self._runtime()

    async def set_mode(self, mode_id: str) -> None:
        mode = await self.resolve_mode(self.config.check_mode(mode_id))
        runtime = self._live()
        if runtime is not None:
            try:
                await runtime.set_permission_mode(mode)
            except Exception as exc:
                raise RequestError.internal_error({"reason": "Claude refused the mode"}) from exc
        await self.mode_changed(mode)

    async def resolve_mode(self, mode: str) -> str:
        """The mode a choice of `mode` gets: Accept edits for an `auto` the model lacks."""
        return await self.auto_fast.resolve(mode)

    async def set_option(self, config_id: str, value: object) -> None:
        if config_id == FAST and self.config.fast_offered():
            await self.auto_fast.set_fast(self._live(), value)
            return
        if config_id == ULTRACODE and self.config.ultracode_shown() is not None:
            await self._set_ultracode(value)
            return
        chosen = self.config.check_option(config_id, value)
        if config_id == "mode":
            await self.set_mode(chosen)
            return
        runtime = self._live()
        try:
            if runtime is not None and config_id == "model":
                await self._send_model(runtime, chosen)
            elif runtime is not None and config_id == "agent":
                await runtime.set_agent(agent_flag(chosen))
            elif runtime is not None:
                from fsm import effort_flag_settings

                effort = None if chosen == DEFAULT_EFFORT else chosen
                ultracode = self.config.ultracode_on()
                await self._send_flags(runtime, effort_flag_settings(effort, ultracode))
        except Exception as exc:
            raise RequestError.internal_error(
                {"reason": f"Claude refused the {config_id}"}
            ) from exc
        if config_id == "model":
            await self._model_is(chosen)
        elif config_id == "agent":
            # From the next turn; a fresh Claude process starts with it (`launch`).
            self.config.agent, self.config.agent_picked = chosen, True
        else:
            self.config.effort = chosen
            self.config.effort_pinned = chosen != DEFAULT_EFFORT
        await self._link.send_update(self.session_id, self._options_update())

    async def _set_ultracode(self, value: object) -> None:
        """The client's Ultracode switch: checked, then Claude's (an explicit boolean, which
        leaves the effort alone); refused, nothing changes. The response carries the options."""
        from fsm import ultracode_chosen

        on = check_ultracode(value, self.config.boolean_options)
        runtime = self._live()
        if runtime is not None:
            try:
                await self._send_flags(runtime, {"ultracode": on})
            except Exception as exc:
                raise RequestError.internal_error({"reason": "Claude refused ultracode"}) from exc
        if self.config.ultracode is not None:
            self.config.ultracode = ultracode_chosen(self.config.ultracode, on)

    async def _send_model(self, runtime: ClaudeRuntime, model: str) -> None:
        """Switch Claude's model, counted as a model change (`_ask_ultracode`)."""
        self._model_moves += 1
        self._models_sending += 1
        try:
            await runtime.set_model(model)
        finally:
            self._models_sending -= 1

    async def _model_is(self, value: str) -> None:
        """The session runs the picker entry `value` now: its effort, mode and context window
        follow."""
        self._model_moves += 1
        self.config.model = value
        self.model_chosen(self._context_window())
        self._measure_window(self._live())
        self.config.seed_effort()
        await self._apply_effort(self._live())
        if self.config.mode == "auto" and not self.config.auto_available():
            # The new model lacks auto: Claude goes on in Accept edits, as the picker does.
            await self.set_mode("auto")

    def _measure_window(self, runtime: ClaudeRuntime | None) -> None:
        """Ask Claude Code, beside the session, for the context window of the model it runs
        now: a model that is 1M natively says nothing of it in its name
        (fsm.pickers.model_following)."""
        if runtime is None or not self.config.models:
            return
        model = self.config.model
        self._spawn(functools.partial(self._measured, runtime, model))

    async def _measured(self, runtime: ClaudeRuntime, model: str | None) -> None:
        try:
            response = await runtime.context_usage()
        except Exception:
            log.info("session %s: Claude Code did not measure its context", self.session_id)
            return
        window = measured_context_window(response)
        current = self._live()
        if window is None or self.config.model != model or current not in (None, runtime):
            return  # nothing said, or another model or Claude since: its own answer counts
        self.window_measured(window)

    def _context_window(self) -> int | None:
        """The context window the current model's own words promise (None: they say none)."""
        choice = next((c for c in self.config.models if c.value == self.config.model), None)
        if choice is None:
            return seeded_context_window((self.config.model,))
        texts = (choice.value, choice.resolved, choice.name, choice.description)
        return seeded_context_window(texts)

    async def follow_model(self, model: str) -> None:
        """Claude Code switched the session's model itself (`/model opus` typed in the chat, a
        fallback for the rest of the session): the picker shows it. Nothing goes to Claude,
        which made the switch. A model the picker does not list is added to it, as the model
        a session was opened with is (`SessionConfig.adopt`)."""
        try:
            value = self.config.model_value(model)
            if value == self.config.model:
                return
            if value not in {c.value for c in self.config.models}:
                self.config.models.append(ModelChoice(value=value, name=value))
            await self._model_is(value)
            await self._link.send_update(self.session_id, self._options_update())
        except Exception:
            # Declared boundary: run beside the session's stream, a failure here must not end it.
            log.warning("session %s: could not follow Claude's model switch", self.session_id)

    # --- Claude's own changes ---------------------------------------------------------------

    async def mode_changed(self, mode: str) -> None:
        if mode == "plan" and self.config.mode != "plan":
            # Leaving plan mode offers this mode's kind first (adapter.controls.plan_exit).
            self.config.before_plan = self.config.mode
        self.config.mode = mode
        await self._link.send_update(
            self.session_id,
            CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode),
        )
        await self._link.send_update(self.session_id, self._options_update())

    def _options_update(self) -> ConfigOptionUpdate:
        return ConfigOptionUpdate(
            session_update="config_option_update",
            config_options=self.config.options(),
        )

    async def follow(self, changes: OwnChanges) -> None:
        """Follow what Claude Code changed by itself, as its frame was read
        (`adapter.claude.translate.own_changes`): a mode, its commands, a model it fell back to,
        fast mode, an MCP server's URL request done."""
        if changes is NO_CHANGES:
            return
        try:
            await self._follow(changes)
        except Exception:
            # Declared boundary: a change the controls could not follow must not end Claude's
            # stream.
            log.warning("session %s: could not follow a change Claude made", self.session_id)

    async def _follow(self, changes: OwnChanges) -> None:
        terminal_only = changes.terminal_only
        if terminal_only is not None and terminal_only != self._terminal_only:
            self._terminal_only = terminal_only
            await self._offer()
        if changes.reports_unanswered:
            self.questions.report_unanswered = True  # for the process: never unlatched
        if changes.init and not self._skill_files_read:
            self._skill_files_read = True
            self._read_skill_files()
        if changes.commands_changed:
            self._skill_paths = {}
            if changes.commands is not None:
                self._listed = list(changes.commands)
                await self._offer()
            self._read_skill_files()
        if changes.elicitation_completed is not None:
            await self.elicitations.completed(changes.elicitation_completed)
        if changes.model is not None:
            await self.follow_model(changes.model)
        mode = mode_to_follow(changes.mode, current=self.config.mode, offered=self.config.modes)
        if mode is not None:
            await self.mode_changed(mode)
        if changes.fast is not None:
            await self.auto_fast.follow(changes.fast)

    def stands_in_for_remote_control(self) -> bool:
        """`/remote-control` is answered here: Claude Code does not offer it itself."""
        name = str(REMOTE_CONTROL_COMMAND["name"])
        return not claude_code_offers(self._listed, self._terminal_only, name)

    def _offered(self) -> list[AvailableCommand]:
        # `/mcp` is answered here (local_commands), whatever Claude Code lists or marks; so is
        # `/remote-control` where Claude Code does not offer it (fsm.claude.remote_control).
        scans: Scans = {}  # each skill folder listed once per list
        entries: list[Any] = [MCP_COMMAND, *self._listed]
        terminal_only = self._terminal_only - {"mcp"}
        if self.stands_in_for_remote_control():
            name = REMOTE_CONTROL_COMMAND["name"]
            own = [
                e for e in self._listed if not (isinstance(e, Mapping) and e.get("name") == name)
            ]
            entries = [MCP_COMMAND, *own, REMOTE_CONTROL_COMMAND]
            terminal_only = terminal_only - {name}

        def meta_for(name: str, entry: Mapping[str, Any]) -> dict[str, Any] | None:
            listed_path = self._skill_files.get(name)
            path = listed_path
            builtin = entry.get("builtin") is True
            if self.air.probes_skill(name, builtin=builtin, listed_path=listed_path):
                if name not in self._skill_paths:
                    self._skill_paths[name] = resolve_skill_path(name, self._cwd, scans=scans)
                path = self._skill_paths[name]
            return self.air.command_meta(name, listed=name in self._skill_files, path=path)

        return available_commands(entries, terminal_only, meta_for=meta_for)

    async def _offer(self) -> None:
        """Tell the client the commands on offer, when they changed."""
        commands = self._offered()
        if [c.model_dump() for c in commands] != [c.model_dump() for c in self.commands]:
            self.commands = commands
            await self._link.send_update(self.session_id, update_for(commands))

    def _read_skill_files(self) -> None:
        """Ask Claude Code for its skill files beside its stream (for an AIR client, which
        is shown them); the commands go out again when they changed."""
        runtime = self._live()
        if not self.air.skill_paths or runtime is None:
            return

        async def read() -> None:
            try:
                usage = await runtime.client.get_context_usage()
            except Exception:
                log.info("session %s: Claude did not say where its skills are", self.session_id)
                return
            files = listed_skill_files(usage)
            if files != self._skill_files:
                self._skill_files, self._skill_paths = files, {}
                await self._offer()

        self._spawn(read)
