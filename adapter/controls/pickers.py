"""A session's pickers: permission mode, model and effort, as ACP modes and config options.

Theory of operation: `SessionConfig` holds the current values and what may be chosen. The
modes are Claude Code's permission modes; `bypassPermissions` is offered only where Claude
Code accepts it (not as root outside a sandbox). The model list is the one Claude Code reports
in its initialize answer (`adopt`); the effort picker exists only while the chosen model
supports effort levels. `check_*` validate a client's choice and raise -32602 without changing
anything; `choose_*` record a choice that Claude accepted. Nothing here talks to Claude.

A resumed, loaded or forked session starts with what its transcript says it last ran with
(`adapter.claude.transcript_tail`), as Claude Code itself does on `--resume` (checked against the
real
CLI): the mode, unless this adapter cannot offer it here (bypassPermissions as root outside a
sandbox, a mode such as `auto` that it never offers), and the model, unless `ANTHROPIC_MODEL`
names one (the real CLI also prefers it to the transcript's). The transcript names the full
model id (`claude-haiku-5-5`); `adopt` marks the picker entry Claude Code resolves to it
(`resolvedModel`), and when Claude Code lists no such model any more the session falls back to
the default model. Each fallback is a log line, never a failed load.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from adapter.claude.surroundings import Surroundings
from adapter.claude.transcript_tail import Tail

if TYPE_CHECKING:
    from adapter.claude.client_options import ClientOptions
    from adapter.claude.launch import Launch

__all__ = [
    "DEFAULT_EFFORT",
    "MODE_NAMES",
    "ModelChoice",
    "SessionConfig",
    "bypass_allowed",
    "launch_for",
]

log = logging.getLogger(__name__)

# (id, name, description), in the order a picker shows them.
_MODES: tuple[tuple[str, str, str], ...] = (
    ("default", "Manual", "Ask before edits and commands"),
    ("acceptEdits", "Accept edits", "Apply file edits without asking"),
    ("plan", "Plan", "Explore and plan; change nothing"),
    ("bypassPermissions", "Bypass permissions", "Run every tool without asking"),
)
MODE_NAMES = {mode_id: name for mode_id, name, _ in _MODES}
DEFAULT_EFFORT = "default"


def bypass_allowed(environ: Mapping[str, str], euid: int | None = None) -> bool:
    """Claude Code refuses bypassPermissions as root unless `IS_SANDBOX` says it is sandboxed."""
    if euid is None:
        euid = os.geteuid() if hasattr(os, "geteuid") else 1
    sandboxed = environ.get("IS_SANDBOX", "").strip().lower() in {"1", "true", "yes"}
    return euid != 0 or sandboxed


@dataclass(frozen=True, slots=True)
class ModelChoice:
    value: str
    name: str
    description: str | None = None
    efforts: tuple[str, ...] = ()
    resolved: str | None = None  # the full model id Claude Code resolves this entry to


def _model_choice(entry: Any) -> ModelChoice | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("value"), str):
        return None
    value = entry["value"]
    name = entry.get("displayName")
    description = entry.get("description")
    levels = entry.get("supportedEffortLevels") if entry.get("supportsEffort") else None
    efforts = tuple(x for x in levels if isinstance(x, str)) if isinstance(levels, list) else ()
    resolved = entry.get("resolvedModel")
    return ModelChoice(
        value=value,
        name=name if isinstance(name, str) and name else value,
        description=description if isinstance(description, str) else None,
        efforts=efforts,
        resolved=resolved if isinstance(resolved, str) and resolved else None,
    )


@dataclass(slots=True, kw_only=True)
class SessionConfig:
    modes: tuple[str, ...]
    mode: str = "default"
    models: list[ModelChoice] = field(default_factory=list)
    model: str | None = None  # None: Claude Code's own default, until the list is known
    effort: str = DEFAULT_EFFORT
    # The transcript's model (a full id), until `adopt` has matched it to the picker.
    restored_model: str | None = None
    label: str = "session"  # how log lines name the session

    @classmethod
    def initial(
        cls,
        environ: Mapping[str, str],
        default_mode: str | None,
        *,
        resumed: Tail | None = None,
        label: str = "session",
    ) -> SessionConfig:
        modes = tuple(
            m for m, _, _ in _MODES if m != "bypassPermissions" or bypass_allowed(environ)
        )
        mode = default_mode if default_mode in modes else "default"
        if resumed is not None and resumed.mode is not None:
            if resumed.mode in modes:
                mode = resumed.mode
            else:
                log.warning(
                    "%s: its transcript's mode %r is not available here; starting in %r",
                    label,
                    resumed.mode,
                    mode,
                )
        model = environ.get("ANTHROPIC_MODEL") or None
        restored = resumed.model if resumed is not None and model is None else None
        return cls(
            modes=modes,
            mode=mode or "default",
            model=restored or model,
            restored_model=restored,
            label=label,
        )

    def adopt(self, server_info: Mapping[str, Any] | None) -> bool:
        """Take the model list Claude Code reported; keep the current model marked. True when
        the transcript's model is one Claude Code no longer offers: the session fell back to
        the default model, and the running Claude has to be told."""
        entries = (server_info or {}).get("models")
        choices = map(_model_choice, entries if isinstance(entries, list) else [])
        self.models = [c for c in choices if c is not None]
        if not self.models:
            return False
        switch = self.restored_model is not None and self._restore()
        if self.model is None:
            self.model = self.models[0].value
        elif self.model not in {c.value for c in self.models}:
            # A model named by the environment (or a transcript, where Claude Code does not
            # say what its entries resolve to) that the picker does not list.
            self.models.append(ModelChoice(value=self.model, name=self.model))
        if self.effort not in self.efforts():
            self.effort = DEFAULT_EFFORT
        return switch

    def _restore(self) -> bool:
        """Mark the picker entry of the transcript's model (the default entry first, as it
        names the same model); True when there is none and the default replaces it."""
        wanted = self.restored_model
        self.restored_model = None
        by_value = [c for c in self.models if c.value == wanted]
        by_resolved = [c for c in self.models if c.resolved == wanted]
        defaults = [c for c in by_resolved if c.value == "default"]
        found = by_value or defaults or by_resolved
        if found:
            self.model = found[0].value
            return False
        if not any(c.resolved for c in self.models):
            return False  # Claude Code does not say what its entries are: keep it as it is
        fallback = next((c.value for c in self.models if c.value == "default"), None)
        self.model = fallback or self.models[0].value
        log.warning(
            "%s: Claude Code no longer offers its transcript's model %r; using %r",
            self.label,
            wanted,
            self.model,
        )
        return True

    def efforts(self) -> tuple[str, ...]:
        """The effort values the current model takes (empty: no effort picker)."""
        for choice in self.models:
            if choice.value == self.model and choice.efforts:
                return (DEFAULT_EFFORT, *choice.efforts)
        return ()

    # --- validation -----------------------------------------------------------------------

    def check_mode(self, mode_id: str) -> str:
        if mode_id not in self.modes:
            raise RequestError.invalid_params(
                {"modeId": f"unknown mode; expected one of {', '.join(self.modes)}"}
            )
        return mode_id

    def model_value(self, model_id: str) -> str:
        """The picker value for `model_id`: itself, or the entry Claude Code resolves to it."""
        for choice in self.models:
            if model_id in (choice.value, choice.resolved):
                return choice.value
        return model_id  # `check_option` refuses it, naming the values it takes

    def check_option(self, config_id: str, value: object) -> str:
        """The validated value for `config_id` (raises -32602 for anything unknown)."""
        allowed: tuple[str, ...]
        if config_id == "mode":
            allowed = self.modes
        elif config_id == "model" and self.models:
            allowed = tuple(c.value for c in self.models)
        elif config_id == "effort" and self.efforts():
            allowed = self.efforts()
        else:
            raise RequestError.invalid_params({"configId": f"unknown config option {config_id!r}"})
        if not isinstance(value, str) or value not in allowed:
            raise RequestError.invalid_params(
                {"value": f"unknown value for {config_id}; expected one of {', '.join(allowed)}"}
            )
        return value

    # --- wire shapes ------------------------------------------------------------------------

    def mode_state(self) -> SessionModeState:
        return SessionModeState(
            current_mode_id=self.mode,
            available_modes=[
                SessionMode(id=m, name=name, description=text)
                for m, name, text in _MODES
                if m in self.modes
            ],
        )

    def options(self) -> list[SessionConfigOptionSelect]:
        """The config options in picker order: mode, model (once known), effort (if any)."""
        found = [
            _select(
                "mode",
                "Mode",
                "mode",
                self.mode,
                [(m, MODE_NAMES[m], None) for m in self.modes],
            )
        ]
        if self.models and self.model is not None:
            found.append(
                _select(
                    "model",
                    "Model",
                    "model",
                    self.model,
                    [(c.value, c.name, c.description) for c in self.models],
                )
            )
        efforts = self.efforts()
        if efforts:
            found.append(
                _select(
                    "effort",
                    "Effort",
                    "thought_level",
                    self.effort,
                    [(e, e.capitalize(), None) for e in efforts],
                )
            )
        return found


def _select(
    config_id: str,
    name: str,
    category: str,
    current: str,
    values: list[tuple[str, str, str | None]],
) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        type="select",
        id=config_id,
        name=name,
        category=category,  # type: ignore[arg-type]  # one of the schema's literals
        current_value=current,
        options=[SessionConfigSelectOption(value=v, name=n, description=d) for v, n, d in values],
    )


def launch_for(
    config: SessionConfig,
    servers: dict[str, Any],
    client_options: ClientOptions | None = None,
    disallowed_tools: tuple[str, ...] = (),
    surroundings: Surroundings | None = None,
) -> Launch:
    """The flags a new Claude process of a session gets from its current choices."""
    from adapter.claude.client_options import NONE
    from adapter.claude.launch import Launch  # the SDK's module: only when a process starts

    return Launch(
        client_options=client_options or NONE,
        permission_mode=config.mode,
        # "default" is the picker's name for Claude Code's own choice: no --model flag.
        model=None if config.model == "default" else config.model,
        effort=None if config.effort == DEFAULT_EFFORT else config.effort,
        mcp_servers=servers,
        disallowed_tools=disallowed_tools,
        surroundings=surroundings or Surroundings(),
    )
