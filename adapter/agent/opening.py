"""How a session is opened, kept out of `acp_agent.py` so the agent stays thin.

Theory of operation: every request that opens a session (new, load, resume, fork) decides what
its Claude starts with the same way (`opening_for`: the mode from the transcript or Claude
Code's settings, the transcript's model, the client's MCP servers), spawns Claude at once and
sends its start-up handshake (`spawn`), and only then builds the session (`controls_for`,
`adapter.session.session`, `while_claude_starts`): importing and building those takes a while the
first time in a process, and Claude's own start-up runs meanwhile instead of after it. Every one
answers with the same pickers (`pickers`), then sends the command list once the response is
out. `resume` continues a session without replaying its history; `fork` copies it under a new
id first; `close` ends its Claude process and is idempotent. Sessions that were created but
never prompted have no transcript yet and open as a fresh Claude process under the same id
(`session_store`).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import RequestError

from adapter.agent import mcp_servers
from adapter.agent.work_ahead import Step
from adapter.claude.client_options import NONE as NO_CLIENT_OPTIONS
from adapter.claude.client_options import ClientOptions
from adapter.claude.permission_settings import permission_settings
from adapter.claude.settings_reader import SettingsReader
from adapter.claude.surroundings import Surroundings
from adapter.controls.launch_flags import launch_for
from adapter.controls.pickers import SessionConfig
from adapter.controls.question_form import disallowed_tools
from adapter.wire.client_link import ClientLink
from fsm import MODEL_CONFIG_ENV, AirClient, model_config_settings, model_policy_from

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from adapter.claude.claude_runtime import ClaudeRuntime
    from adapter.claude.runtime_settings import RuntimeSettings
    from adapter.controls.session_controls import SessionControls
    from adapter.session.session import Session

__all__ = [
    "AFTER_SPAWN",
    "Opening",
    "build_answer_models",
    "check_cwd",
    "controls_for",
    "opening_for",
    "pickers",
    "spawn",
    "while_claude_starts",
]

log = logging.getLogger(__name__)


def check_cwd(cwd: str) -> None:
    """-32602 unless `cwd` is an existing absolute directory (a path too long or with a NUL
    for the system is not one either, never an internal error); the message says which."""
    try:
        absolute = Path(cwd).is_absolute()
        usable = absolute and Path(cwd).is_dir()
    except (OSError, ValueError):
        absolute = usable = False
    if not absolute:
        raise RequestError.invalid_params({"cwd": "must be an absolute path"})
    if not usable:
        raise RequestError.invalid_params({"cwd": f"no such folder: {_shown(cwd)}"})


def _shown(text: str, limit: int = 200) -> str:
    """The client's own text, bounded, for an error message."""
    return text if len(text) <= limit else f"{text[:limit]}\u2026"


def _environ(settings: RuntimeSettings) -> dict[str, str]:
    return {**os.environ, **settings.env}


def _with_model_config(
    options: ClientOptions, environ: Mapping[str, str], cwd: str
) -> ClientOptions:
    """The client's options with the host's `CLAUDE_MODEL_CONFIG` added to the settings Claude
    Code starts with, as the reference adapter adds it (a settings file the client names is
    read for it); -32603 naming the variable when it is not a JSON object, as the reference
    refuses the session (docs/reference-adapter.md#model-policy)."""
    raw = environ.get(MODEL_CONFIG_ENV)
    if not raw:
        return options
    given = options.settings
    try:
        if isinstance(given, str):
            given = json.loads((Path(cwd) / given).read_text(encoding="utf-8"))
            if not isinstance(given, dict):
                raise ValueError("the client's settings file is not a JSON object")
        merged = model_config_settings(raw, given)
    except (OSError, ValueError, RecursionError) as exc:
        log.warning("%s or the client's settings cannot be used: %s", MODEL_CONFIG_ENV, exc)
        raise RequestError.internal_error(
            {"reason": f"{MODEL_CONFIG_ENV} must be a JSON object (and settings readable)"}
        ) from exc
    return options if merged is None else replace(options, settings=merged)


@dataclass(frozen=True, slots=True, kw_only=True)
class Opening:
    """What a session's first Claude process starts with, decided before it is spawned."""

    session_id: str
    cwd: str
    resume: bool  # whether Claude resumes the session's transcript
    # The Claude session it resumes: the transcript's, which after a plan exit that cleared
    # the context is not the ACP id (`adapter.claude.session_links`).
    claude_session_id: str = ""
    config: SessionConfig
    mcp_servers: dict[str, Any]
    # Whether the client declared `elicitation.form`: Claude's questions are asked as forms.
    ask_by_form: bool = False
    client_options: ClientOptions = NO_CLIENT_OPTIONS  # `_meta.claudeCode.options`, checked
    # The client's extra folders and system prompt (`adapter.claude.surroundings`).
    surroundings: Surroundings = field(default_factory=Surroundings)
    ask_by_url: bool = False  # ... `elicitation.url`: MCP servers' URL requests are forwarded
    plan_updates: bool = False  # ... `plan`: an approved plan that clears the context is sent
    air: AirClient = field(default_factory=AirClient)  # JetBrains AIR, what it negotiated


def opening_for(
    *,
    session_id: str,
    cwd: str,
    servers: list[Any] | None,
    settings: RuntimeSettings,
    transcript: Path | None = None,
    ask_by_form: bool = False,
    client_options: ClientOptions = NO_CLIENT_OPTIONS,
    surroundings: Surroundings | None = None,
    boolean_options: bool = False,
    ask_by_url: bool = False,
    plan_updates: bool = False,
    air: AirClient | None = None,
) -> Opening:
    """The opening of a session; with a `transcript`, one that resumes it with the mode and
    model the transcript says it last ran with (`SessionConfig.initial` says when not)."""
    tail = None
    if transcript is not None:
        # Imported by the first opening that resumes (its transcripts and their vocabulary):
        # a new session's spawn does not need them (docs/performance.md).
        from adapter.claude.transcript_tail import read_tail

        tail = read_tail(transcript)
    client_options = _with_model_config(client_options, _environ(settings), cwd)
    # What the settings tiers let this session start in and switch to: a repository's own
    # settings cannot loosen permissions, and bypass goes when any tier or the client says so.
    # Every read of them goes through the session's reader, which says each problem once
    # (docs/decisions.md#settings-warned-once).
    reader = SettingsReader(cwd, settings.env)
    tiers = reader.read()
    policy = permission_settings(tiers)
    config = SessionConfig.initial(
        _environ(settings),
        policy.default_mode,
        resumed=tail,
        label=f"session {session_id}",
        auto_allowed=not policy.auto_disabled,
        bypass_offered=not policy.bypass_disabled and client_options.allow_bypass is not False,
    )
    config.boolean_options = boolean_options  # the client takes boolean config options
    config.requested_agent = client_options.agent  # the agent picker's value, if it lists it
    # The model picker's allowlist and denials (docs/decisions.md#model-picker-policy).
    config.model_policy = model_policy_from([(f.tier, f.data) for f in tiers])
    # The effort nobody chose: the client's, else the settings' for the model, read again at
    # each model change (docs/decisions.md#settings-read-again).
    config.requested_effort = client_options.effort
    given = client_options.settings

    def settings_now() -> list[Mapping[str, Any]]:
        found: list[Mapping[str, Any]] = [f.data for f in reader.read()]
        return [*found, given] if isinstance(given, dict) else found

    config.settings_tiers = settings_now
    config.settings_reader = reader
    return Opening(
        session_id=session_id,
        cwd=cwd,
        resume=transcript is not None,
        claude_session_id=transcript.stem if transcript is not None else session_id,
        config=config,
        mcp_servers=mcp_servers.for_claude(servers),
        ask_by_form=ask_by_form,
        client_options=client_options,
        surroundings=surroundings or Surroundings(),
        ask_by_url=ask_by_url,
        plan_updates=plan_updates,
        air=air or AirClient(),
    )


async def spawn(start: Opening, settings: RuntimeSettings, task_group: TaskGroup) -> ClaudeRuntime:
    """Start the session's Claude process and its start-up handshake (in `task_group`; the
    session awaits the end of it); -32603 when Claude cannot be started."""
    from adapter.claude.claude_runtime import ClaudeRuntime, RuntimeStartError

    runtime = ClaudeRuntime(
        settings=settings,
        cwd=start.cwd,
        session_id=start.claude_session_id or start.session_id,
        resume=start.resume,
        launch=launch_for(
            start.config,
            start.mcp_servers,
            start.client_options,
            disallowed_tools(start.ask_by_form),
            start.surroundings,
            file_checkpoints=start.air.file_change_report,
            prompt_suggestions=start.air.prompt_suggestions,
            subagent_hooks=start.air.native_subagents,
        ),
    )
    try:
        await runtime.spawn(task_group)
    except BaseException as exc:
        await runtime.close()  # shielded: nobody else would stop a process begun here
        if isinstance(exc, RuntimeStartError):
            raise exc.request_error() from exc
        raise
    return runtime


def while_claude_starts(response: type[Any]) -> None:
    """What a session's opening does while its Claude starts up that its answer, or a prompt
    sent as soon as the answer is read, needs (docs/performance.md): the session store (a new
    session's marker, written before its answer) and the reader of Claude's messages; and the
    `acp` models of its answer, of the notifications that follow it and of a prompt
    (`build_answer_models`); the core's rules its pickers apply once Claude has listed its
    models (`SessionConfig.adopt`, the Ultracode switch's among them: about 2 ms cold). What it
    does not need is done ahead (`AFTER_SPAWN`)."""
    from adapter.claude import message_stream, session_store  # noqa: F401
    from adapter.controls import ultracode_switch  # noqa: F401
    from fsm import (  # noqa: F401
        allowed_models,
        model_switch_to_follow,
        models_shown,
        settings_effort,
        ultracode_started,
    )

    build_answer_models(response)


def build_answer_models(response: type[Any]) -> None:
    """Build the `acp` schema models that answer a setup request, the notifications that follow
    it and a prompt's (`lean_imports` builds each on first use; notifications go out without
    `acp`'s envelope model, `ClientLink.send_update`): after the spawn, while Claude starts, so
    that neither the answer nor a prompt sent as soon as it is read waits for them (built after
    the answer, the prompt's held that first prompt up by more than they take: measured). The
    answer's parts the pickers and the command list make one by one (a mode, a select's
    option, a command and its input) are built on their own first use, so they are named here
    too: left to the answer, they took about 2 ms between Claude's handshake and the answer of
    a fresh process's resume."""
    from acp import schema

    for model in (
        response,
        schema.SessionModeState,
        schema.SessionMode,
        schema.SessionConfigOptionSelect,
        schema.SessionConfigSelectOption,
        schema.AvailableCommandsUpdate,
        schema.AvailableCommand,
        schema.AvailableCommandInput,
        schema.UnstructuredCommandInput,
        schema.PromptRequest,
        schema.PromptResponse,
    ):
        model.model_rebuild()  # nothing to do once built


def _build(name: str) -> Callable[[], object]:
    def build() -> object:
        from acp import schema

        return getattr(schema, name).model_rebuild()

    return build


def _import_fork_module() -> None:
    from claude_agent_sdk import fork_session  # noqa: F401  (imported, not used here)


def _import_fork_rules() -> None:
    from fsm import fork_point  # noqa: F401


# The secret patterns compiled at each moment (the step comes back while some are left): a few,
# so that one begun just before Claude writes holds its session's answer up by half a
# millisecond at most, not the 2.5 ms of all of them.
PATTERNS_PER_STEP = 3


def _compile_secret_patterns() -> object:
    from adapter.agent.work_ahead import MORE
    from fsm import compile_secret_patterns

    return MORE if compile_secret_patterns(PATTERNS_PER_STEP) else None


# What a session does ahead once its Claude is spawned (`WorkAhead`, docs/performance.md),
# none of it needed for its answer. First what a fork of the session needs before its spawn (a
# client forks what it has open; a prompt, the likelier next request, needs none of this): its
# request's `acp` model (about 1 ms), the SDK's module that copies a transcript (1 ms), the
# core's fork points. Then the failure records' secret patterns, which compile on their first
# use (about 2.6 ms), which a prompt that goes well never makes (measured: a resume, a prompt
# and a fork of a fresh process without this step never compiled them); then the other setup
# requests' models.
AFTER_SPAWN: tuple[Step, ...] = (
    ("acp.schema:ForkSessionRequest", _build("ForkSessionRequest")),
    ("claude_agent_sdk:fork_session", _import_fork_module),
    ("fsm:fork rules", _import_fork_rules),
    ("fsm:secret patterns", _compile_secret_patterns),
    ("acp.schema:NewSessionRequest", _build("NewSessionRequest")),
    ("acp.schema:LoadSessionRequest", _build("LoadSessionRequest")),
    ("acp.schema:ResumeSessionRequest", _build("ResumeSessionRequest")),
)


def controls_for(start: Opening, link: ClientLink) -> SessionControls:
    from adapter.controls.session_controls import SessionControls

    return SessionControls(
        session_id=start.session_id,
        link=link,
        config=start.config,
        mcp_servers=start.mcp_servers,
        ask_by_form=start.ask_by_form,
        client_options=start.client_options,
        surroundings=start.surroundings,
        ask_by_url=start.ask_by_url,
        plan_updates=start.plan_updates,
        air=start.air,
        cwd=start.cwd,
    )


def pickers(session: Session) -> dict[str, Any]:
    """The `modes` and `configOptions` of a setup response."""
    config = session.controls.config
    return {"modes": config.mode_state(), "config_options": config.options()}
