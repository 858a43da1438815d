"""When the model picker follows a switch Claude Code made by itself, and the context window a
model starts with.

Claude Code can change the session's model without the client asking: `/model opus` typed in
the chat (its `PostModelSwitch` hook, source `command`), its own picker or auto choice, or a
refusal that falls back to another model for the rest of the session
(`system/model_refusal_fallback`). The picker then shows the model the session runs, as the
reference adapter's does (`config_option_update`; docs/reference-adapter.md#model-switches).
Switches it does not follow: the adapter's
own (`sdk`: the picker changed already), a resume (read from the transcript before the session
opened), a subagent's (its `agent_id`), and a fallback that reverts after one turn or happened
in a subagent or side question (`direction: revert`, `scope: local`).

A model's context window, until Claude reports one in a result (`modelUsage[*].contextWindow`):
what Claude Code measured when asked (`get_context_usage {detail: "summary"}`, its
`rawMaxTokens`; `measured_context_window`), asked beside the session when it opens and after
each model change, as the reference adapter refines its guess (`refreshContextWindowInBackground`:
models that are 1M natively, whose names say nothing of it); until that answer, 1,000,000 when
the model's id, resolved id, name or description names `1m` (`sonnet[1m]`, "Sonnet (1M
context)"), else unknown (the caller's default, 200,000).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = [
    "ONE_MILLION_WINDOW",
    "fallback_moves_session",
    "measured_context_window",
    "model_switch_to_follow",
    "seeded_context_window",
]

ONE_MILLION_WINDOW = 1_000_000
_ONE_MILLION = re.compile(r"\b1m\b", re.IGNORECASE)
# Switches the picker has followed already, or that predate the session's picker.
_NOT_FOLLOWED_SOURCES = frozenset({"sdk", "resume"})
# No model's window is this large; past it an answer is not one.
_MAX_WINDOW = 100_000_000
# A model id is short; past this a hook's `to_model` is not one.
_MAX_MODEL_LENGTH = 256


def model_switch_to_follow(hook_input: object) -> str | None:
    """The model the picker should now show, from a `PostModelSwitch` hook's input; None when
    the picker is right already or the switch is not the session's."""
    if not isinstance(hook_input, Mapping):
        return None
    if hook_input.get("hook_event_name") != "PostModelSwitch" or hook_input.get("agent_id"):
        return None
    if hook_input.get("source") in _NOT_FOLLOWED_SOURCES:
        return None
    model = hook_input.get("to_model")
    if not isinstance(model, str) or not model.strip() or len(model) > _MAX_MODEL_LENGTH:
        return None
    return model.strip()


def fallback_moves_session(direction: str | None, scope: str | None) -> bool:
    """Whether a model fallback changed the session's model for good: not one that reverts
    after its turn, nor one in a subagent or side question (`local`). No `scope` is an older
    Claude Code, where every retry swapped the session's model."""
    return direction != "revert" and scope != "local"


def seeded_context_window(texts: Iterable[str | None]) -> int | None:
    """The context window a model's own words promise (its id, resolved id, name,
    description): 1,000,000 for `1m`; None when they say nothing."""
    for text in texts:
        if text and _ONE_MILLION.search(text):
            return ONE_MILLION_WINDOW
    return None


def measured_context_window(response: object) -> int | None:
    """The context window in Claude Code's answer to `get_context_usage` (`rawMaxTokens`);
    None when it says none (missing, not a positive whole number, absurdly large)."""
    if not isinstance(response, Mapping):
        return None
    window = response.get("rawMaxTokens")
    if isinstance(window, bool) or not isinstance(window, int):
        return None
    return window if 0 < window <= _MAX_WINDOW else None
