"""`claude-acp demo [SCENARIO]`: watch what an ACP client receives, frame by frame.

Runs `python -m adapter --simulate SCENARIO` as a subprocess, drives it with the `acp` SDK's
real client over stdio, and prints every JSON-RPC frame in both directions as a readable
transcript. Nothing here talks to Claude's service.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from adapter.demo_turn import describe_turn_update

if TYPE_CHECKING:
    from acp.interfaces import Client

__all__ = ["describe_frame", "main"]

DEFAULT_PROMPTS = ("Summarize what this project does.", "Try again, please.")
OPT_IN = {"jetbrains": {"air": {"version": 1, "capabilities": ["sessionFailure"]}}}


def _short(text: str, limit: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _record_lines(meta: Any) -> list[str]:
    air = meta.get("jetbrains", {}).get("air", {}) if isinstance(meta, dict) else {}
    record = air.get("sessionFailure") if isinstance(air, dict) else None
    if not isinstance(record, dict):
        return []
    mark = "\u26a0" if record.get("severity") == "warning" else "\u2716"
    actions = ", ".join(record.get("actions") or []) or "none"
    lines = [
        f"    {mark} sessionFailure {record.get('severity')} / {record.get('category')}"
        f"  id={record.get('id')}  revision={record.get('revision')}",
        f"      title:   {record.get('title')}",
    ]
    if record.get("details"):
        lines.append(f"      details: {_short(str(record['details']))}")
    lines.append(f"      actions: {actions}")
    return lines


def describe_frame(direction: str, frame: dict[str, Any], methods: dict[Any, str]) -> list[str]:
    """Readable lines for one JSON-RPC frame; `methods` maps request ids to method names."""
    arrow = "client \u2192 agent" if direction == "outgoing" else "agent \u2192 client"
    method = frame.get("method")
    params = frame.get("params") or {}
    if method is not None and "id" in frame:
        methods[frame["id"]] = method
    if method == "session/update":
        update = params.get("update", {})
        kind = update.get("sessionUpdate")
        head = f"{arrow}  session/update {kind}"
        if kind in ("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"):
            text = update.get("content", {}).get("text", "")
            return [f'{head}: "{_short(text)}"']
        shown = describe_turn_update(head, update)
        if shown is not None:
            return shown
        return [head, *_record_lines(update.get("_meta"))]
    if method is not None:
        detail = ""
        if method == "session/prompt":
            texts = [b.get("text", "") for b in params.get("prompt", []) if isinstance(b, dict)]
            detail = f': "{_short(" ".join(texts))}"'
        elif method == "initialize":
            opted = (
                "opts in to sessionFailure"
                if params.get("clientCapabilities", {}).get("_meta")
                else "legacy client (no opt-in)"
            )
            detail = f": {opted}"
        elif method == "session/request_permission":
            detail = f": {params.get('toolCall', {}).get('title', '')}"
        return [f"{arrow}  {method}{detail}"]
    answered = methods.get(frame.get("id"), "response")
    if "error" in frame:
        error = frame["error"]
        data = f"  data={json.dumps(error.get('data'))}" if error.get("data") is not None else ""
        return [f"{arrow}  {answered} error {error.get('code')}: {error.get('message')}{data}"]
    result = frame.get("result") or {}
    if answered == "session/prompt":
        return [
            f"{arrow}  {answered} \u2192 stopReason {result.get('stopReason')}",
            *_record_lines(result.get("_meta")),
        ]
    if answered == "session/new":
        return [f"{arrow}  {answered} \u2192 sessionId {result.get('sessionId')}"]
    if answered == "initialize":
        advertised = "advertises sessionFailure" if result.get("_meta") else "no advertisement"
        return [
            f"{arrow}  {answered} \u2192 protocol {result.get('protocolVersion')}, {advertised}"
        ]
    return [f"{arrow}  {answered} \u2192 ok"]


class _DemoClient:
    """The client side: permission requests are allowed once, updates are only observed."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> Any:
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow")
        )


async def run_demo(
    scenario: str, prompts: list[str], *, capable: bool, out: IO[str], log: IO[str] | None
) -> int:
    import acp
    from acp.connection import StreamEvent
    from acp.schema import ClientCapabilities

    methods: dict[Any, str] = {}

    def observe(event: StreamEvent) -> None:
        direction = event.direction.value
        if log is not None:
            log.write(json.dumps({"direction": direction, "message": event.message}) + "\n")
        for line in describe_frame(direction, event.message, methods):
            print(line, file=out, flush=True)

    with tempfile.TemporaryDirectory(prefix="claude-acp-demo-") as scratch:
        workdir = Path(scratch) / "project"
        workdir.mkdir()
        env = {"CLAUDE_CONFIG_DIR": str(Path(scratch) / "claude-config")}
        async with acp.spawn_agent_process(
            # acp's Client protocol lists every client method; the demo needs only these two.
            cast("Client", _DemoClient()),
            sys.executable,
            "-m",
            "adapter",
            "--simulate",
            scenario,
            env=env,
            transport_kwargs={"stderr": asyncio.subprocess.DEVNULL},
            observers=[observe],
        ) as (conn, _process):
            caps = ClientCapabilities(field_meta=OPT_IN) if capable else ClientCapabilities()
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
            session = await conn.new_session(cwd=str(workdir), mcp_servers=[])
            for text in prompts:
                print("", file=out)
                # An error answer was already printed from the wire.
                with contextlib.suppress(acp.RequestError):
                    await conn.prompt(session_id=session.session_id, prompt=[acp.text_block(text)])
    return 0


def main(argv: list[str]) -> int:
    from adapter.scripted_claude import DEFAULT_SCENARIO, scenario_names

    parser = argparse.ArgumentParser(prog="claude-acp demo", description=__doc__)
    parser.add_argument("scenario", nargs="?", default=DEFAULT_SCENARIO)
    parser.add_argument("--legacy", action="store_true", help="a client that does not opt in")
    parser.add_argument("--prompt", action="append", dest="prompts", help="a prompt to send")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    parser.add_argument("--log", type=Path, help="also write the raw wire log (JSON lines)")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(scenario_names()))
        return 0
    if args.scenario not in scenario_names():
        print(f"unknown scenario {args.scenario!r}; --list shows them", file=sys.stderr)
        return 2
    prompts = args.prompts or list(DEFAULT_PROMPTS)
    mode = "legacy client" if args.legacy else "client opts in to sessionFailure"
    print(f"claude-acp demo: scenario {args.scenario}, {mode}\n")
    log = args.log.open("w", encoding="utf-8") if args.log else None
    try:
        return asyncio.run(
            run_demo(args.scenario, prompts, capable=not args.legacy, out=sys.stdout, log=log)
        )
    finally:
        if log is not None:
            log.close()
