"""Which approved plan becomes the session's markdown plan (ACP `plan_update`), as the
reference adapter decides it (docs/reference-adapter.md#approved-plan).

An ExitPlanMode call that ended without an error is a plan the user approved, whichever
choice approved it (manual edits, auto-accepted edits, bypass, auto mode) or none at all
(a mode that asks nobody). Its plan is the structured result's `plan`, which holds the
user's edits, else the plan Claude Code put in the call's input (a load has only that),
trimmed. No plan: a subagent's call (its result says `isAgent`, or the call ran under an
Agent call), a plan waiting for its team lead (`awaitingLeaderApproval`), an empty plan, a
client that did not declare `plan`. An approval that clears the context ends the call with
an error, and the fresh context publishes that plan instead (`adapter.session.fresh_context`),
under the same rule for the client and the plan (`published_plan`).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["approved_plan", "published_plan"]


def approved_plan(
    tool_input: object,
    tool_use_result: object,
    *,
    is_error: bool,
    subagent: bool,
    plan_updates: bool,
) -> str | None:
    """The plan an ExitPlanMode result approved, to send as the session's plan, or None."""
    if is_error or subagent:
        return None
    result = tool_use_result if isinstance(tool_use_result, Mapping) else {}
    if result.get("isAgent") is True or result.get("awaitingLeaderApproval") is True:
        return None
    plan = result.get("plan")
    if not isinstance(plan, str):
        plan = tool_input.get("plan") if isinstance(tool_input, Mapping) else None
    return published_plan(plan, plan_updates=plan_updates)


def published_plan(plan: object, *, plan_updates: bool) -> str | None:
    """An approved `plan` as the session's plan, trimmed, for a client that declared `plan`
    (`plan_updates`); None for another client, or for a plan that is empty or not text. Both
    approvals use it: an ExitPlanMode result's (`approved_plan`) and a clear context's."""
    if not plan_updates or not isinstance(plan, str) or not plan.strip():
        return None
    return plan.strip()
