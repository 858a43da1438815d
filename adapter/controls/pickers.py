"""A session's pickers: permission mode, model and effort, as ACP modes and config options.

Theory of operation: `SessionConfig` holds the current values and what may be chosen. The
modes are Claude Code's permission modes; `bypassPermissions` is offered only where Claude
Code accepts it (not as root outside a sandbox). The model list is the one Claude Code reports
in its initialize answer (`adopt`); the effort picker exists only while the chosen model
supports effort levels. `check_*` validate a client's choice and raise -32602 without changing
anything; `choose_*` record a choice that Claude accepted. Nothing here talks to Claude.

A resumed, loaded or forked session starts with what its transcript says it last ran with
(`adapter.claude.transcript_tail`), as Claude Code itself does on `--resume` (checked against the
real CLI): the mode, unless this adapter cannot offer it here (bypassPermissions as root outside
a sandbox, `auto` where settings disable it; an `auto` the model lacks becomes Accept edits,
`adapter.controls.auto_fast_rules`), and the model, unless `ANTHROPIC_MODEL`
names one (the real CLI also prefers it to the transcript's). The transcript names the full
model id (`claude-haiku-5-5`); `adopt` marks the picker entry Claude Code resolves to it
(`resolvedModel`), and when Claude Code lists no such model any more the session falls back to
the default model. Each fallback is a log line, never a failed load.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from adapter.claude.settings_reader import SettingsReader
from adapter.controls.auto_fast_rules import AUTO, fast_option
from fsm import DEFAULT_AGENT, AgentChoice, ModelPolicy, agent_choices, initial_agent

# Claude Code's model list (its entries, and the core's rules for them and for what the
# pickers show) is imported where it is first used, once Claude has reported its models: a
# session's spawn needs only its start mode and model from here (docs/performance.md).
if TYPE_CHECKING:
    from adapter.claude.transcript_tail import Tail
    from adapter.controls.model_choices import ModelChoice
    from fsm import PickerShown, UltracodeStart, UltracodeSwitch

__all__ = [
    "DEFAULT_EFFORT",
    "MODE_NAMES",
    "SessionConfig",
    "bypass_allowed",
]

log = logging.getLogger(__name__)

# (id, name, description), in the order a picker shows them.
_MODES: tuple[tuple[str, str, str], ...] = (
    ("default", "Manual", "Ask before edits and commands"),
    ("acceptEdits", "Accept edits", "Apply file edits without asking"),
    ("plan", "Plan", "Explore and plan; change nothing"),
    AUTO,  # only where Claude Code's model list offers it (adapter.controls.auto_fast_rules)
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
    fast: bool = False  # fast mode (adapter.controls.auto_fast_rules)
    boolean_options: bool = False  # the client takes boolean config options
    fast_off_because: str | None = None  # why Claude Code turned fast mode off, explained
    before_plan: str | None = None  # the mode the session was in when it entered plan mode
    # `auto` only because nothing named a mode: a model without it means Manual, said to no one
    # (adapter.controls.auto_fast), rather than Accept edits and a warning.
    auto_by_default: bool = False
    # The agent picker (fsm.pickers.agents): the agents on offer (none: no picker), the one
    # chosen, the one the client asked for at the start, and whether the user picked one (a
    # fresh Claude process then starts with the pick).
    agents: tuple[AgentChoice, ...] = ()
    agent: str = DEFAULT_AGENT
    requested_agent: str | None = None
    agent_picked: bool = False
    # The client negotiated JetBrains AIR's `recommendedValue`: no "Default" rows, the pickers
    # name Claude Code's recommendation, and Claude runs the effort shown (`fsm.pickers.values`).
    recommend: bool = False
    # The settings' `availableModels`, `modelOverrides` and managed `deniedModels`
    # (fsm.pickers.model_policy), and `ANTHROPIC_CUSTOM_MODEL_OPTION`, which they leave alone.
    model_policy: ModelPolicy = field(default_factory=ModelPolicy)
    custom_model: str | None = None
    # The effort nobody chose comes from the settings, read again at each model change
    # (fsm.pickers.effort_seeds, docs/decisions.md#settings-read-again): the settings tiers, lowest
    # first, as they read now; the client's `_meta.claudeCode.options.effort`, which the
    # session opens with; and whether the user chose an effort in the picker (kept across
    # models that take it).
    settings_tiers: Callable[[], Sequence[Mapping[str, Any]]] = lambda: ()
    # The session's reader of those files (its problems said once), when the opening made one.
    settings_reader: SettingsReader | None = None
    requested_effort: str | None = None
    effort_pinned: bool = False
    # A mode's `_meta` for this client (JetBrains AIR's kind: `AirClient.mode_meta`).
    mode_meta: Callable[[str], dict[str, Any] | None] = lambda _mode: None
    # The Ultracode switch (fsm.pickers.ultracode): None until the session's first Claude has
    # reported its models; and what the latest Claude process is to be sent of it.
    ultracode: UltracodeSwitch | None = None
    ultracode_start: UltracodeStart | None = None

    @classmethod
    def initial(
        cls,
        environ: Mapping[str, str],
        default_mode: str | None,
        *,
        resumed: Tail | None = None,
        label: str = "session",
        auto_allowed: bool = False,
        bypass_offered: bool = True,
    ) -> SessionConfig:
        """`default_mode`: the settings' mode, already trust-filtered
        (`adapter.claude.permission_settings`); `bypass_offered`: neither settings nor the
        client took bypass away (docs/decisions.md#whose-settings-may-loosen-permissions)."""
        # `auto` until Claude Code's model list says whether it has it (`adopt`).
        offered = {
            "bypassPermissions": bypass_offered and bypass_allowed(environ),
            "auto": auto_allowed,
        }
        modes = tuple(m for m, _, _ in _MODES if offered.get(m, True))
        # The reference's order (docs/reference-adapter.md#auto-mode): the transcript's mode,
        # the settings' `defaultMode`, then `auto` where it is offered, else Manual. A named mode
        # this session cannot offer is Manual, never the more permissive `auto` default.
        named = default_mode if default_mode in modes else None
        if default_mode is not None and named is None:
            log.warning("%s: settings name mode %r, not offered here; Manual", label, default_mode)
            named = "default"
        by_default = named is None and "auto" in modes
        mode = named or ("auto" if by_default else "default")
        if resumed is not None and resumed.mode is not None:
            if resumed.mode in modes:
                mode, by_default = resumed.mode, False
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
            mode=mode,
            model=restored or model,
            restored_model=restored,
            label=label,
            auto_by_default=by_default,
            custom_model=environ.get("ANTHROPIC_CUSTOM_MODEL_OPTION") or None,
        )

    def adopt(self, server_info: Mapping[str, Any] | None) -> bool:
        """Take the model list Claude Code reported; keep the current model marked. True when
        the transcript's model is one Claude Code no longer offers: the session fell back to
        the default model, and the running Claude has to be told."""
        from adapter.controls.model_choices import ModelChoice, model_choice

        self.agents = agent_choices((server_info or {}).get("agents"))
        wanted = self.agent if self.agent_picked else self.requested_agent
        self.agent = initial_agent(wanted, self.agents)
        entries = (server_info or {}).get("models")
        choices = map(model_choice, entries if isinstance(entries, list) else [])
        self.models = self._policed([c for c in choices if c is not None])
        if not any(c.auto for c in self.models):
            self.modes = tuple(m for m in self.modes if m != "auto")
        # The settings as they read now, once for the effort and the Ultracode switch.
        tiers = self.settings_tiers()
        self._start_ultracode(tiers)
        if not self.models:
            return False
        switch = self.restored_model is not None and self._restore()
        if self.model is None:
            self.model = self.models[0].value
        elif self.model not in {c.value for c in self.models}:
            # A model named by the environment (or a transcript, where Claude Code does not
            # say what its entries resolve to) that the picker does not list.
            self.models.append(ModelChoice(value=self.model, name=self.model))
        self.seed_effort(opening=True, tiers=tiers)
        return switch

    def _start_ultracode(self, tiers: Sequence[Mapping[str, Any]]) -> None:
        """A Claude process started: the switch from the settings (its first), or what it must
        be sent of the session's (a later one); docs/decisions.md#ultracode-after-the-answer."""
        from fsm import settings_ultracode, ultracode_started

        self.ultracode_start = ultracode_started(self.ultracode, settings_ultracode(tiers))
        self.ultracode = self.ultracode_start.switch

    def ultracode_on(self) -> bool:
        """Whether the session's Ultracode is on (an effort sent carries it)."""
        return self.ultracode is not None and self.ultracode.on

    def ultracode_takes(self) -> bool:
        """Whether the current model takes ultracode (it takes the `xhigh` effort)."""
        from fsm import model_takes_ultracode

        current = self._current()
        return current is not None and model_takes_ultracode(current.efforts)

    def model_takes_ultracode(self, model_id: str | None) -> bool | None:
        """Whether the model Claude Code names `model_id` (an entry's value or the full id it
        resolves to) takes ultracode (None: the model list does not know it)."""
        from fsm import model_takes_ultracode

        found = (
            c for c in self.models if model_id is not None and model_id in (c.value, c.resolved)
        )
        choice = next(found, None)
        return None if choice is None else model_takes_ultracode(choice.efforts)

    def ultracode_shown(self) -> bool | None:
        """The Ultracode option's value (None: not offered)."""
        from fsm import ultracode_shown

        if self.ultracode is None:
            return None
        return ultracode_shown(self.ultracode, self.ultracode_takes())

    def _policed(self, listed: list[ModelChoice]) -> list[ModelChoice]:
        """Claude Code's model list as the settings' policy shapes it, each entry with the
        name the picker shows (fsm.pickers.model_entries)."""
        from adapter.controls.model_choices import ModelChoice
        from fsm import ModelFacts, allowed_models, model_display_names

        facts = [ModelFacts(c.value, c.name, c.description, c.resolved) for c in listed]
        allowed = allowed_models(facts, self.model_policy, self.custom_model)
        if allowed is not None:
            listed = [
                replace(listed[row.source], value=row.value)
                if row.source is not None
                else ModelChoice(value=row.value, name=row.name)
                for row in allowed
            ]
            facts = [ModelFacts(c.value, c.name, c.description, c.resolved) for c in listed]
        names = model_display_names(facts)
        return [replace(c, name=n) for c, n in zip(listed, names, strict=True)]

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

    def seed_effort(
        self, *, opening: bool = False, tiers: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        """The effort for the current model: the user's choice where it takes it, else (on
        `opening`) the client's, else what the settings say now for this model (`tiers`: as
        just read), as the picker can show it."""
        from fsm import settings_effort

        if not (self.effort_pinned and self.effort in self.efforts()):
            self.effort_pinned = False
            current = self._current()
            wanted = self.requested_effort if opening else None
            if wanted is None:
                wanted = settings_effort(
                    self.settings_tiers() if tiers is None else tiers,
                    self.model,
                    current.resolved if current is not None else None,
                )
            self.effort = wanted or DEFAULT_EFFORT
        self.effort = self.effort_shown()

    def _effort_picker(self) -> PickerShown | None:
        from fsm import efforts_shown

        current = self._current()
        levels = current.efforts if current is not None else ()
        return efforts_shown(self.recommend, levels, self.effort)

    def _model_picker(self) -> PickerShown | None:
        from fsm import models_shown

        if not self.models or self.model is None:
            return None
        entries = [(c.value, c.resolved) for c in self.models]
        return models_shown(self.recommend, entries, self.model)

    def efforts(self) -> tuple[str, ...]:
        """The effort values the current model takes (empty: no effort picker)."""
        picker = self._effort_picker()
        return () if picker is None else picker.values

    def effort_shown(self) -> str:
        """The effort the picker shows for the current model: the session's own where the
        model takes it, else `default` (or, for AIR's `recommendedValue`, the recommended
        level)."""
        picker = self._effort_picker()
        return DEFAULT_EFFORT if picker is None else picker.current

    def efforts_to_apply(self) -> list[str | None]:
        """What Claude must be told of the effort after the model is known or changed (None:
        Claude Code's own), so that it runs what the picker shows."""
        from fsm import efforts_to_apply

        return efforts_to_apply(self.recommend, self._effort_picker())

    def _current(self) -> ModelChoice | None:
        return next((c for c in self.models if c.value == self.model), None)

    def auto_available(self) -> bool:
        """Whether choosing `auto` gets `auto` (else Accept edits,
        adapter.controls.auto_fast_rules)."""
        current = self._current()
        return "auto" in self.modes and (current is None or current.auto)

    def fast_offered(self) -> bool:
        current = self._current()
        return current is not None and current.fast

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
        elif config_id == "model" and (models := self._model_picker()) is not None:
            allowed = models.values
        elif config_id == "effort" and self.efforts():
            allowed = self.efforts()
        elif config_id == "agent" and self.agents:
            allowed = (DEFAULT_AGENT, *(c.name for c in self.agents))
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
                SessionMode(id=m, name=name, description=text, field_meta=self.mode_meta(m))
                for m, name, text in self.offered_modes()
            ],
        )

    def offered_modes(self) -> list[tuple[str, str, str]]:
        """The modes on offer, in picker order: id, name, description."""
        return [mode for mode in _MODES if mode[0] in self.modes]

    def options(self) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        """The config options in picker order: mode, model (once known), effort (if any), fast
        (if the model has it), ultracode (where the core offers it), agent (if Claude Code
        lists agents of the user's)."""
        found: list[SessionConfigOptionSelect | SessionConfigOptionBoolean] = [
            _select(
                "mode",
                "Mode",
                "mode",
                self.mode,
                [(m, MODE_NAMES[m], None) for m in self.modes],
                value_meta=self.mode_meta,
            )
        ]
        models = self._model_picker()
        if models is not None:
            named = {c.value: c for c in self.models}
            found.append(
                _select(
                    "model",
                    "Model",
                    "model",
                    models.current,
                    [(v, named[v].name, named[v].description) for v in models.values],
                    models.meta,
                )
            )
        efforts = self._effort_picker()
        if efforts is not None:
            from fsm import effort_level_name  # as a child session's effort is named

            found.append(
                _select(
                    "effort",
                    "Effort",
                    "thought_level",
                    efforts.current,
                    [(e, effort_level_name(e), None) for e in efforts.values],
                    efforts.meta,
                )
            )
        if self.fast_offered():
            found.append(fast_option(self.fast, self.boolean_options, self.fast_off_because))
        ultracode = self.ultracode_shown()
        if ultracode is not None:
            from adapter.controls.ultracode_switch import ultracode_option

            found.append(ultracode_option(ultracode, self.boolean_options))
        if self.agents:
            found.append(
                SessionConfigOptionSelect(
                    type="select",
                    id="agent",
                    name="Agent",
                    description="Main-thread agent persona",
                    current_value=self.agent,
                    options=[
                        SessionConfigSelectOption(
                            value=DEFAULT_AGENT,
                            name="Default",
                            description="Standard Claude Code agent",
                        ),
                        *(
                            SessionConfigSelectOption(
                                value=c.name, name=c.name, description=c.description
                            )
                            for c in self.agents
                        ),
                    ],
                )
            )
        return found


def _select(
    config_id: str,
    name: str,
    category: str,
    current: str,
    values: list[tuple[str, str, str | None]],
    meta: dict[str, Any] | None = None,
    value_meta: Callable[[str], dict[str, Any] | None] = lambda _value: None,
) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        field_meta=meta,
        type="select",
        id=config_id,
        name=name,
        category=category,  # type: ignore[arg-type]  # one of the schema's literals
        current_value=current,
        options=[
            SessionConfigSelectOption(value=v, name=n, description=d, field_meta=value_meta(v))
            for v, n, d in values
        ],
    )
