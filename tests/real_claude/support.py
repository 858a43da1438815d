"""What the real-Claude-Code tier shares: finding the bundled CLI, the environment that keeps it
on loopback, the adapter spawned against it, and readers for what one turn produced."""

from __future__ import annotations

import asyncio
import json
import platform
import re
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import acp
import claude_agent_sdk
from acp.schema import PromptResponse

from adapter.view.stream_assembly import BROKEN_MARK
from tests.real_claude.api_double import Answer, MessagesApiDouble, Stall, ToolUse
from tests.real_claude.banner import MARK
from tests.support.asked_client import PLAN, AskedClient
from tests.support.harness import TIMEOUT, Adapter, RecordingClient, record_in, spawn_adapter

__all__ = [
    "API_KEY",
    "BUNDLED",
    "CLI_VERSION",
    "MISSING_REASON",
    "Turn",
    "assert_broken_then",
    "cli_env",
    "load",
    "prompt_uuids",
    "real_adapter",
    "run_turn",
    "session_frames",
    "transcript_entries",
    "wait_until",
]

# A dummy key of the real shape; the double accepts anything.
API_KEY = "sk-ant-api03-real-claude-tier-dummy-key-0000000000000000"


def _bundled() -> tuple[Path | None, str | None]:
    """The CLI bundled in claude-agent-sdk and its version, or None and why not."""
    name = "claude.exe" if platform.system() == "Windows" else "claude"
    path = Path(claude_agent_sdk.__file__).parent / "_bundled" / name
    if not path.is_file():
        return None, f"claude-agent-sdk ships no bundled Claude Code CLI for this platform ({path})"
    try:
        done = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=60, check=True
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"the bundled Claude Code CLI does not run here ({path}: {exc})"
    return path, done.stdout.split()[0] if done.stdout.split() else "?"


BUNDLED, _DETAIL = _bundled()
# Why the tier cannot run here, or None when it can.
MISSING_REASON: str | None = None if BUNDLED else f"{MARK}: {_DETAIL}"
# The bundled CLI's version ("2.1.332"), when it runs.
CLI_VERSION: str | None = _DETAIL if BUNDLED else None


def cli_env(double: MessagesApiDouble, root: Path, **extra: str) -> dict[str, str]:
    """The adapter's environment, which its Claude processes inherit: the double as the API, a
    dummy key, a fresh HOME, few retries, no non-essential traffic, and the double's tripwire as
    proxy so that a connection to anything but loopback is recorded and refused."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    proxy = double.tripwire_url
    env = {
        "HOME": str(home),
        "TZ": "UTC",
        "ANTHROPIC_BASE_URL": double.base_url,
        "ANTHROPIC_API_KEY": API_KEY,
        "CLAUDE_CODE_MAX_RETRIES": "2",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_BUG_COMMAND": "1",
        "DISABLE_COST_WARNINGS": "1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
        # An AIR client's Claude Code predicts the next prompt after each turn, which is one
        # more Messages API request; the tier's scripts answer only what each test asks for.
        # test_prompt_suggestions.py turns it on.
        "CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": "false",
        "HTTPS_PROXY": proxy,
        "HTTP_PROXY": proxy,
        "https_proxy": proxy,
        "http_proxy": proxy,
        "NO_PROXY": "127.0.0.1",
        "no_proxy": "127.0.0.1",
    }
    env.update(extra)
    return env


@asynccontextmanager
async def real_adapter(
    root: Path,
    double: MessagesApiDouble,
    *,
    capable: bool,
    client: RecordingClient | None = None,
    capabilities: dict[str, Any] | None = None,
    client_meta: dict[str, Any] | None = None,
    **extra_env: str,
) -> AsyncIterator[Adapter]:
    """The adapter as a subprocess, spawning the bundled CLI against `double`. Its sessions
    start in Manual, named in the user's settings: unnamed, they would start in `auto` (the
    bundled CLI's models support it), where Claude Code decides permissions itself and the
    tier's permission questions would never be asked. `client` and `capabilities` as for
    `spawn_adapter` (a client that answers forms, say), and `client_meta` (what the client
    declares in `_meta`, a JetBrains AIR capability list say)."""
    config = root / "claude-config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text('{"permissions": {"defaultMode": "default"}}\n')
    async with spawn_adapter(
        root,
        capable=capable,
        client_meta=client_meta,
        scripted=False,
        env=cli_env(double, root, **extra_env),
        client=client,
        capabilities=capabilities,
    ) as adapter:
        yield adapter


async def wait_until(check: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    """Poll `check` until it holds (a bound on a hang, never a speed assertion)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for a condition")
        await asyncio.sleep(0.05)


@dataclass(slots=True)
class Turn:
    """One prompt's answer and every frame of its session that arrived while it ran."""

    session_id: str
    answer: PromptResponse | acp.RequestError
    frames: list[dict[str, Any]]
    cwd: Path | None = None  # the session's folder, when `run_turn` made the session

    @property
    def response(self) -> PromptResponse:
        assert isinstance(self.answer, PromptResponse), self.answer
        return self.answer

    @property
    def error(self) -> acp.RequestError:
        assert isinstance(self.answer, acp.RequestError), self.answer
        return self.answer

    def updates(self, kind: str | None = None) -> list[dict[str, Any]]:
        found = []
        for message in self.frames:
            if message.get("method") == "session/update":
                update = message["params"]["update"]
                if kind is None or update.get("sessionUpdate") == kind:
                    found.append(update)
        return found

    def texts(self) -> list[str]:
        return [
            str(u["content"].get("text", ""))
            for u in self.updates("agent_message_chunk")
            if isinstance(u.get("content"), dict)
        ]

    def messages(self) -> list[tuple[str | None, str]]:
        """The answer's chunks joined per `messageId`, in the order each message began."""
        joined: dict[str | None, str] = {}
        for update in self.updates("agent_message_chunk"):
            content = update.get("content")
            text = str(content.get("text", "")) if isinstance(content, dict) else ""
            key = update.get("messageId")
            joined[key] = joined.get(key, "") + text
        return list(joined.items())

    def records(self) -> list[tuple[str, dict[str, Any]]]:
        """Every sessionFailure record of the turn, with its carrier, in order."""
        found: list[tuple[str, dict[str, Any]]] = []
        for update in self.updates("session_info_update"):
            record = record_in(update.get("_meta"))
            if record is not None:
                found.append(("session_info_update", record))
        if isinstance(self.answer, PromptResponse):
            record = record_in(self.answer.field_meta)
            if record is not None:
                found.append(("prompt_response", record))
        return found

    def tool_calls(self) -> dict[str, list[dict[str, Any]]]:
        """Every `tool_call` / `tool_call_update` of the turn, grouped by tool call id."""
        calls: dict[str, list[dict[str, Any]]] = {}
        for update in self.updates():
            if update.get("sessionUpdate") in ("tool_call", "tool_call_update"):
                calls.setdefault(str(update["toolCallId"]), []).append(update)
        return calls


def session_frames(adapter: Adapter, start: int, session_id: str) -> list[dict[str, Any]]:
    return [
        f.message
        for f in adapter.frames[start:]
        if f.direction == "incoming"
        and f.message.get("method") == "session/update"
        and f.message["params"].get("sessionId") == session_id
    ]


async def run_turn(adapter: Adapter, text: str, session_id: str | None = None) -> Turn:
    """A prompt in `session_id` (a new session in a fresh project folder when None)."""
    cwd = None
    if session_id is None:
        cwd = _fresh_project(adapter)
        session_id = await adapter.new_session(cwd=cwd)
    start = len(adapter.frames)
    answer = await adapter.prompt(session_id, text)
    return Turn(session_id, answer, session_frames(adapter, start, session_id), cwd)


async def load(adapter: Adapter, session_id: str, cwd: Path) -> Turn:
    """`session/load`, and every update of that session it brought (the replay)."""
    start = len(adapter.frames)
    response = await asyncio.wait_for(
        adapter.conn.load_session(cwd=str(cwd), session_id=session_id, mcp_servers=[]), TIMEOUT
    )
    assert response is not None
    return Turn(
        session_id,
        PromptResponse(stop_reason="end_turn"),
        session_frames(adapter, start, session_id),
        cwd,
    )


def _fresh_project(adapter: Adapter) -> Path:
    base = adapter.workdir.parent / "projects"
    base.mkdir(exist_ok=True)
    folder = base / f"p{len(list(base.iterdir()))}"
    folder.mkdir()
    return folder


def transcript_entries(adapter: Adapter, session_id: str) -> list[dict[str, Any]]:
    """The real CLI's transcript of `session_id`, entry by entry."""
    entries: list[dict[str, Any]] = []
    # Only where Claude Code keeps transcripts: a walk of the whole folder races the lock
    # folders the CLI makes and removes beside them.
    for path in adapter.config_dir.glob(f"projects/*/{session_id}.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            entries.append(json.loads(line))
    return entries


def prompt_uuids(adapter: Adapter, session_id: str) -> list[str]:
    """The uuids of the real prompts (not tool results, not meta entries) in the transcript."""
    found = []
    for entry in transcript_entries(adapter, session_id):
        if entry.get("type") != "user" or entry.get("isMeta"):
            continue
        content = entry.get("message", {}).get("content")
        blocks = content if isinstance(content, list) else [{"type": "text"}]
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            continue
        found.append(str(entry["uuid"]))
    return found


def assert_broken_then(turn: Turn, answer: str) -> None:
    """Every abandoned streamed attempt is its own message, closed with the broken-stream
    mark, so the retry's answer is never glued to it; the last message is the whole answer."""
    *abandoned, (_, last) = turn.messages()
    assert last == answer
    assert abandoned, "the abandoned attempt streamed nothing"
    for message_id, text in abandoned:
        assert message_id is not None
        assert text.endswith(BROKEN_MARK) and len(text) > len(BROKEN_MARK)


async def approve_plan_from_file(
    adapter: Adapter, client: AskedClient, double: MessagesApiDouble, option: str, answer: str
) -> tuple[Turn, ToolUse, str]:
    """A prompt in plan mode whose ExitPlanMode the client approves with `option`, with `PLAN`
    written to the plan file the CLI named, while the double holds the call back (as Claude
    would have written it first); Claude then answers `answer`. The turn, the call, and the
    plan file."""
    session = await adapter.new_session()
    await asyncio.wait_for(
        adapter.conn.set_session_mode(session_id=session, mode_id="plan"), TIMEOUT
    )
    leave = ToolUse("ExitPlanMode", {})
    double.script(Stall(leave), Answer(answer))
    client.option = option
    start = len(adapter.frames)
    try:
        prompt = asyncio.ensure_future(adapter.prompt(session, "Plan the fix"))
        await wait_until(lambda: len(double.messages()) == 1)
        named = json.dumps(double.messages()[0].body)
        plans = re.escape(str(adapter.config_dir / "plans"))
        (plan_file,) = set(re.findall(plans + r"/[\w.-]+\.md", named))
        Path(plan_file).parent.mkdir(parents=True, exist_ok=True)
        Path(plan_file).write_text(PLAN, encoding="utf-8")
        double.release_stalls()
        response = await asyncio.wait_for(prompt, TIMEOUT)
    finally:
        client.option = "allow"
    return Turn(session, response, session_frames(adapter, start, session)), leave, plan_file
