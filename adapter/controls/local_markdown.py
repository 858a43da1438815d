"""The markdown of the local commands `/usage` and `/mcp`, as the reference adapter renders it, from
Claude Code's own answers (`get_usage`, `mcp_status`; docs/reference-adapter.md#local-commands).
Pure functions; a value of the wrong shape is left out, never guessed.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["mcp_status_markdown", "usage_markdown"]

_BAR_CELLS = 20
_GROUPS = (
    ("failed", "Failed"),
    ("needs-auth", "Needs authentication"),
    ("pending", "Connecting"),
    ("connected", "Connected"),
)
_RECONNECT_HINT = (
    "Run `/mcp reconnect <server>` to reconnect one server, or `/mcp reconnect` to reconnect "
    "every server that is not connected and not disabled."
)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# --- /mcp -------------------------------------------------------------------------------------


def _servers(status: Any) -> list[Mapping[str, Any]]:
    servers = _dict(status).get("mcpServers")
    found = [s for s in servers if isinstance(s, Mapping)] if isinstance(servers, list) else []
    return [s for s in found if isinstance(s.get("name"), str)]


def _clean_error(error: str) -> str:
    """At most two sentences and 160 characters of an MCP server's error."""
    text = " ".join(error.split())
    sentences = re.split(r"(?<=[.!?])\s+", text)
    text = " ".join(sentences[:2])
    return text if len(text) <= 160 else text[:159].rstrip() + "…"


def _label(server: Mapping[str, Any], duplicate: bool) -> str:
    scope = server.get("scope")
    name = f"`{server['name']}`"
    return f"{name} ({scope})" if duplicate and isinstance(scope, str) else name


def mcp_status_markdown(status: Any) -> str:
    """Claude Code's MCP servers by status, as `/mcp` shows them."""
    servers = _servers(status)
    if not servers:
        return "No MCP servers are configured."
    names = [s["name"] for s in servers]
    labels = [_label(s, names.count(s["name"]) > 1) for s in servers]
    by_status: dict[str, list[int]] = {}
    for index, server in enumerate(servers):
        by_status.setdefault(str(server.get("status", "unknown")), []).append(index)
    known = [key for key, _ in _GROUPS] + ["disabled"]
    order = [*(key for key, _ in _GROUPS), *(k for k in by_status if k not in known)]
    titles = dict(_GROUPS)
    counts = [
        f"{len(by_status[key])} {titles.get(key, key).lower()}"
        for key in [*order, "disabled"]
        if key in by_status
    ]
    blocks = [f"**MCP servers:** {len(servers)} ({', '.join(counts)})"]
    for key in order:
        if key not in by_status:
            continue
        lines = [f"**{titles.get(key, key.capitalize())}**"]
        for index in by_status[key]:
            lines.append(f"- {labels[index]}{_detail(servers[index], key)}")
        blocks.append("\n".join(lines))
    if "disabled" in by_status:
        blocks.append("**Disabled:** " + ", ".join(labels[i] for i in by_status["disabled"]))
    blocks.append(_RECONNECT_HINT)
    return "\n\n".join(blocks)


def _detail(server: Mapping[str, Any], key: str) -> str:
    error = server.get("error")
    if key == "failed" and isinstance(error, str) and error.strip():
        return f": {_clean_error(error)}"
    tools = server.get("tools")
    if key == "connected" and isinstance(tools, list):
        return f": {len(tools)} tool{'' if len(tools) == 1 else 's'}"
    return ""


# --- /usage -----------------------------------------------------------------------------------


def _bar(percent: float) -> str:
    filled = max(0, min(_BAR_CELLS, round(percent / 100 * _BAR_CELLS)))
    return "`" + "█" * filled + "░" * (_BAR_CELLS - filled) + "`"


def _reset_time(value: Any) -> str | None:
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            when = dt.datetime.fromtimestamp(value, dt.UTC)
        elif isinstance(value, str):
            when = dt.datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(dt.UTC)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    hour = when.strftime("%I").lstrip("0")
    return f"{when.strftime('%b')} {when.day}, {hour}:{when.strftime('%M %p')} UTC"


def _limit_row(title: str, window: Any) -> str | None:
    utilization = _number(_dict(window).get("utilization"))
    if utilization is None:
        return None
    line = f"**{title}** — **{round(utilization)}%**"
    resets = _reset_time(_dict(window).get("resets_at"))
    if resets:
        line += f" · Resets {resets}"
    return f"{line}\n\n{_bar(utilization)}"


def _limits(limits: Mapping[str, Any]) -> list[str]:
    rows = [_limit_row("5-hour limit", limits.get("five_hour"))]
    rows.append(_limit_row("Weekly · all models", limits.get("seven_day")))
    scoped = limits.get("model_scoped")
    scoped = [w for w in scoped if isinstance(w, Mapping)] if isinstance(scoped, list) else []
    if scoped:
        rows += [_limit_row(f"Weekly · {w.get('display_name', 'model')}", w) for w in scoped]
    else:
        rows.append(_limit_row("Weekly · Opus", limits.get("seven_day_opus")))
        rows.append(_limit_row("Weekly · Sonnet", limits.get("seven_day_sonnet")))
    return [r for r in rows if r]


def _compact(tokens: float) -> str:
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if tokens >= size:
            return f"{tokens / size:.1f}".rstrip("0").rstrip(".") + suffix
    return str(int(tokens))


def _duration(ms: float | None) -> str:
    if ms is None:
        return "-"
    seconds = int(ms // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else ""]
    parts.append(f"{seconds}s" if seconds or not (hours or minutes) else "")
    return " ".join(p for p in parts if p)


def _session(session: Mapping[str, Any]) -> str:
    cost = _number(session.get("total_cost_usd"))
    api = _duration(_number(session.get("total_api_duration_ms")))
    active = _duration(_number(session.get("total_duration_ms")))
    lines = [
        "### This session",
        "",
        "| Cost | API time | Active |",
        "|:--|:--|:--|",
        f"| {'-' if cost is None else f'${cost:.2f}'} | {api} | {active} |",
    ]
    totals = dict.fromkeys(
        ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens"), 0.0
    )
    for usage in _dict(session.get("model_usage")).values():
        for key in totals:
            totals[key] += _number(_dict(usage).get(key)) or 0.0
    names = ("Input", "Output", "Cache read", "Cache write")
    lines += ["", "| Breakdown | Tokens |", "|:--|--:|"]
    lines += [f"| {n} | {_compact(v)} |" for n, v in zip(names, totals.values(), strict=True)]
    return "\n".join(lines)


def usage_markdown(usage: Any) -> str:
    """Claude Code's `get_usage` answer, as `/usage` shows it."""
    usage = _dict(usage)
    blocks = ["## Usage"]
    plan = usage.get("subscription_type")
    if isinstance(plan, str) and plan:
        blocks.append(f"> Claude {plan.capitalize()} subscription usage")
    limits = _limits(_dict(usage.get("rate_limits")))
    if limits:
        blocks.append("### Limits\n\n" + "\n\n".join(limits))
    if limits:
        blocks.append("---")
    blocks.append(_session(_dict(usage.get("session"))))
    return "\n\n".join(blocks)
