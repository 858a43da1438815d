"""Proof at scale: a seeded, reproducible randomized fault run over hundreds of sessions.

Every session plays turns the scripted Claude draws from the seed and the session id
(`CLAUDE_ACP_SCENARIO=random:<seed>`, `tests/support/scripted/randomized.py`): texts, tools,
retries, rate-limit events, garbage lines, broken frames, model fallbacks, and an ending that is
a result of some kind or a way to end without one (SIGKILL, exit 0/1, worker shutdown, going
idle, hanging until interrupted, closing stdout, a truncated line, dying at the prompt or right
after the result); a few sessions die before the handshake. The client (this test, speaking
JSON-RPC by hand so it sees stdout raw) sends 1-4 prompts per session, cancels some at random
moments, and cancels a prompt left unanswered for `PATIENCE` seconds whose turn hangs by design
(any other prompt gets `HANG_BOUND` first: a slow answer on a busy machine is not a hang).
Several sessions run at once inside one adapter process; the sessions are split over a few
adapter processes, capable and legacy, one after the other.

Checked, over the whole run:
- every stdout line is exactly one well-formed JSON-RPC 2.0 frame;
- every request (session/new, session/prompt) gets exactly one response, within `HANG_BOUND`
  after the client gave up waiting and cancelled it;
- a prompt that needed a cancel to be answered was one whose turn hangs by design (its plan,
  recomputed from the seed, the session id and its index in Claude's transcript);
- revisions strictly rise per record id, in stream order;
- every record has exactly the spec's keys and value types, and a legacy client never gets one;
- a capable client's prompt is never answered with a JSON-RPC error (docs/decisions.md#never-silent
  and #legacy-clients: its failures ride on the PromptResponse as records);
- no injected secret (the hostile error text's keys, tokens, passwords, private paths, and the
  adapter's own `ANTHROPIC_API_KEY`, echoed by Claude) reaches any frame, a legacy client's
  agent text included (docs/decisions.md#secrets), or any line of the adapter's log;
- hostile lines the client slips in between its requests (not JSON, not requests, batches,
  invalid UTF-8, deep nesting, over the line limit) each get exactly their JSON-RPC error;
- a message over the message limit the run sets (`large_message` endings) fails its turn
  like any other failure;
- a last adapter is stopped with SIGTERM while prompts are in flight: every request it had
  read is answered (prompts `cancelled`), it exits 143, and no Claude process outlives it (half
  the hanging ones ignore SIGTERM).

It prints its counts. A failure prints the seed: `CLAUDE_ACP_FAULT_SEED=<seed>` reproduces the
run (`CLAUDE_ACP_FAULT_SESSIONS` changes its size).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp.transports import default_environment

from adapter.scripted_claude import SCENARIO_ENV, write_launcher
from adapter.scripted_claude.faults import HOSTILE_SECRETS
from adapter.scripted_claude.transcript import transcript_path
from tests.support.harness import OPT_IN, ROOT, Frame, conformance_violations
from tests.support.raw_agent import processes_mentioning
from tests.support.scripted.randomized import RANDOM_PREFIX, turn_plan

SEED = os.environ.get("CLAUDE_ACP_FAULT_SEED", "20261129")
SESSIONS = int(os.environ.get("CLAUDE_ACP_FAULT_SESSIONS", "500"))
# Adapter processes, one after the other; even ones capable, odd ones legacy.
ADAPTERS = 4
# Sessions in flight at once inside one adapter.
CONCURRENCY = int(os.environ.get("CLAUDE_ACP_FAULT_CONCURRENCY", "20"))
# How long the client waits for an answer before it cancels the prompt itself.
PATIENCE = 2.5
# After a cancel, an answer must come within this (the adapter stops a Claude that ignores the
# interrupt after 10 s). A bound on a hang, never a speed requirement.
HANG_BOUND = 30.0
# The whole run, as a bound on a hang.
RUN_BOUND = 600.0

SESSION_FAILURE_KEYS = {"id", "revision", "category", "severity", "title", "details", "actions"}
REQUIRED_KEYS = SESSION_FAILURE_KEYS - {"details"}
CATEGORIES = {"connection", "access", "limit", "request", "service", "unknown"}
ACTIONS = {"retry", "login", "new_session"}
# The adapter's own API key, of no known shape: masked because it is the adapter's
# (docs/decisions.md#secrets).
API_KEY = "Qv7rTzLpXw2mNbKs"
SECRETS = (*HOSTILE_SECRETS, API_KEY)
# A small line limit and message limit, so that hostile lines and large messages cross them.
LINE_LIMIT = 64 * 1024
MESSAGE_LIMIT = 256 * 1024
# Hostile lines the client slips in: (bytes, the error code and id of the one answer it gets).
HOSTILE_LINES: tuple[tuple[bytes, int, Any], ...] = (
    (b"[]", -32600, None),
    (b"42", -32600, None),
    (b"null", -32600, None),
    (b'"s"', -32600, None),
    (b'{"jsonrpc":"2.0","id":', -32700, None),
    (b'{"jsonrpc":"2.0","x":"\xff\xfe"}', -32700, None),
    (b'{"jsonrpc":"2.0","method":"x\x00"}', -32700, None),
    (b"[" * 5000 + b"]" * 5000, -32700, None),
    (b'{"jsonrpc":"2.0","id":"hostile","method":7}', -32600, "hostile"),
    (b'[{"jsonrpc":"2.0","id":"hostile","method":"x"}]', -32600, "hostile"),
    (
        b'{"jsonrpc":"2.0","id":"hostile","method":"initialize","x":"' + b"a" * LINE_LIMIT + b'"}',
        -32600,
        None,
    ),
)
# What a request still waiting gets when the adapter's stdout ends: no response at all.
ADAPTER_GONE: dict[str, Any] = {"adapter_gone": True}
# Endings after which a prompt may need the client's cancel to be answered: the turn hangs by
# design until it is interrupted.
HANGING_ENDINGS = {"hang"}


# --- the client ---------------------------------------------------------------------------------


def _strict_json(line: str) -> Any:
    def reject(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(line, parse_constant=reject)


def frame_problem(line: str) -> str | None:
    """Why `line` is not exactly one JSON-RPC 2.0 frame (or a batch answer: an array of
    responses), or None when it is one."""
    try:
        message = _strict_json(line)
    except ValueError as exc:
        return f"not JSON ({exc})"
    if isinstance(message, list):
        if not message:
            return "an empty batch answer"
        problems = [_message_problem(item) for item in message if "method" not in item]
        if len(problems) != len(message):
            return "a request inside a batch answer"
        return next((p for p in problems if p is not None), None)
    return _message_problem(message)


def _message_problem(message: Any) -> str | None:
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return "not a JSON-RPC 2.0 object"
    keys = set(message) - {"jsonrpc"}
    if "method" in message:
        if not isinstance(message["method"], str) or not keys <= {"method", "params", "id"}:
            return "a malformed request or notification"
        if "params" in message and not isinstance(message["params"], dict | list):
            return "params neither object nor array"
        return None
    if "id" not in message or ("result" in message) == ("error" in message):
        return "a response without an id, or with both or neither of result and error"
    if not keys <= {"id", "result", "error"}:
        return "a response with extra members"
    if "error" in message:
        error = message["error"]
        if not isinstance(error, dict) or not set(error) <= {"code", "message", "data"}:
            return "a malformed error object"
        if not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str):
            return "an error without an integer code and a string message"
    return None


@dataclass
class Prompt:
    session: str
    index: int  # the n-th prompt this client sent in the session
    text: str
    request_id: int
    sent: float
    cancelled_by_chance: bool = False
    needed_cancel: bool = False
    answer: dict[str, Any] | None = None
    answered: float | None = None


@dataclass
class Wave:
    """One adapter process and everything the client saw of it."""

    number: int
    capable: bool
    process: asyncio.subprocess.Process
    workdir: Path
    config_dir: Path
    lines: int = 0
    bad_lines: list[tuple[str, str]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    responses: Counter[int] = field(default_factory=Counter)
    waiting: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    requests: dict[int, str] = field(default_factory=dict)  # id -> method
    prompts: list[Prompt] = field(default_factory=list)
    new_session_errors: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    next_id: int = 0
    reader: asyncio.Task[None] | None = None
    seconds: float = 0.0
    exited: bool = False  # the adapter's stdout ended (or its stdin broke)
    stderr_path: Path | None = None
    frames: list[Frame] = field(default_factory=list)  # both directions, for the checker
    hostile_sent: Counter[tuple[int, Any]] = field(default_factory=Counter)
    hostile_answers: Counter[tuple[int, Any]] = field(default_factory=Counter)
    # The SIGTERM wave: the last request id sent before the signal (later ones are unread).
    signalled_after: int | None = None
    signal_time: float | None = None

    async def write(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        if self.exited:
            return
        # Recorded before the write: the answer may be read while this write drains.
        self.frames.append(Frame("outgoing", message))
        try:
            self.process.stdin.write(json.dumps(message).encode() + b"\n")
            await self.process.stdin.drain()
        except (ConnectionError, RuntimeError):
            self.exited = True  # the adapter is gone; `read` settles what waits

    def _settle_waiting(self) -> None:
        # The adapter's stdout ended: nothing will answer what is still waiting.
        for future in self.waiting.values():
            if not future.done():
                future.set_result(ADAPTER_GONE)
        self.waiting.clear()

    async def request(self, method: str, params: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        self.next_id += 1
        request_id = self.next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        if self.exited or self.signalled_after is not None:
            future.set_result(ADAPTER_GONE)  # never sent: nothing to answer
            return future
        self.requests[request_id] = method
        self.waiting[request_id] = future
        await self.write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return future

    async def write_hostile(self, rng: random.Random) -> None:
        line, code, answer_id = rng.choice(HOSTILE_LINES)
        assert self.process.stdin is not None
        if self.exited or self.signalled_after is not None:
            return
        try:
            self.process.stdin.write(line + b"\n")
            await self.process.stdin.drain()
        except (ConnectionError, RuntimeError):
            self.exited = True
            return
        self.hostile_sent[(code, answer_id)] += 1

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self.write({"jsonrpc": "2.0", "method": method, "params": params})

    async def read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while raw := await stdout.readline():
            self.lines += 1
            line = raw.decode("utf-8", errors="replace")
            problem = frame_problem(line) if line.endswith("\n") else "a line cut off at EOF"
            if problem is not None:
                self.bad_lines.append((problem, line[:300]))
                continue
            message = _strict_json(line)
            if isinstance(message, list) or message.get("id", "") in (None, "hostile"):
                for item in message if isinstance(message, list) else [message]:
                    self.hostile_answers[(item["error"]["code"], item["id"])] += 1
                continue
            self.messages.append(message)
            self.frames.append(Frame("incoming", message))
            if "method" in message:
                if "id" in message:
                    await self._answer_agent_request(message)
                continue
            request_id = message["id"]
            self.responses[request_id] += 1
            future = self.waiting.pop(request_id, None)
            if future is not None and not future.done():
                future.set_result(message)
        self.exited = True
        self._settle_waiting()

    async def _answer_agent_request(self, message: dict[str, Any]) -> None:
        if message["method"] == "session/request_permission":
            options = message["params"]["options"]
            option = random.Random(str(message["id"])).choice(options)
            outcome = {"outcome": "selected", "optionId": option["optionId"]}
            reply: dict[str, Any] = {"result": {"outcome": outcome}}
        else:
            reply = {"error": {"code": -32601, "message": "Method not found"}}
        await self.write({"jsonrpc": "2.0", "id": message["id"], **reply})


async def _spawn(tmp_path: Path, number: int, *, capable: bool) -> Wave:
    base = tmp_path / f"wave-{number}"
    workdir = base / "project"
    config_dir = base / "claude-config"
    workdir.mkdir(parents=True)
    config_dir.mkdir()
    env = {
        **default_environment(),
        "CLAUDE_CODE_EXECUTABLE": str(write_launcher(base / "bin")),
        SCENARIO_ENV: f"{RANDOM_PREFIX}{SEED}",
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "CLAUDE_ACP_LOG": "WARNING",
        # Hanging turns get stall warnings, revised in place: more revisions to check.
        "CLAUDE_ACP_STALL_SECONDS": "1",
        "CLAUDE_ACP_MAX_LINE_BYTES": str(LINE_LIMIT),
        "CLAUDE_ACP_MAX_MESSAGE_BYTES": str(MESSAGE_LIMIT),
        "ANTHROPIC_API_KEY": API_KEY,
        "PYTHONPATH": str(ROOT),
    }
    stderr = (base / "adapter-stderr.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "adapter",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        env=env,
        cwd=str(ROOT),
        limit=16 * 1024 * 1024,
    )
    stderr.close()
    wave = Wave(number, capable, process, workdir, config_dir)
    wave.stderr_path = base / "adapter-stderr.log"
    wave.reader = asyncio.create_task(wave.read())
    meta = {"_meta": OPT_IN} if capable else {}
    init = await asyncio.wait_for(
        await wave.request("initialize", {"protocolVersion": 1, "clientCapabilities": meta}),
        HANG_BOUND,
    )
    assert init is not ADAPTER_GONE and "result" in init, init
    return wave


async def _prompt(wave: Wave, session: str, index: int, rng: random.Random) -> None:
    text = f"prompt {index} of {session}"
    params = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
    future = await wave.request("session/prompt", params)
    if future.done() and future.result() is ADAPTER_GONE:
        return  # never sent (the adapter is gone, or was signalled): nothing to answer
    prompt = Prompt(session, index, text, wave.next_id, time.monotonic())
    wave.prompts.append(prompt)
    if rng.random() < 0.12:
        prompt.cancelled_by_chance = True
        await asyncio.sleep(rng.uniform(0.0, 0.6))
        await wave.notify("session/cancel", {"sessionId": session})
    try:
        answer = await asyncio.wait_for(asyncio.shield(future), PATIENCE)
    except TimeoutError:
        answer = None
    if answer is None and not _hangs_by_design(wave, session, text):
        # Slow, not hung by design (a busy machine): a hang bound, not patience, decides.
        with contextlib.suppress(TimeoutError):
            answer = await asyncio.wait_for(asyncio.shield(future), HANG_BOUND)
    if answer is None:
        prompt.needed_cancel = True
        await wave.notify("session/cancel", {"sessionId": session})
        try:
            answer = await asyncio.wait_for(future, HANG_BOUND)
        except TimeoutError:
            return  # reported as unanswered
    if answer is ADAPTER_GONE:
        return  # reported as unanswered (and the adapter's exit, once)
    prompt.answer = answer
    prompt.answered = time.monotonic()


def _hangs_by_design(wave: Wave, session: str, text: str) -> bool:
    """Whether the turn Claude is playing for prompt `text` hangs until interrupted, as far as its
    transcript tells yet (a prompt not yet in it, or a line half written, is not known to)."""
    try:
        turn = _prompt_indices(wave, session).get(text)
    except ValueError:
        return False
    return turn is not None and turn_plan(SEED, session, turn).ending in HANGING_ENDINGS


async def _session(wave: Wave, rng: random.Random) -> None:
    if rng.random() < 0.15:
        await wave.write_hostile(rng)
    future = await wave.request("session/new", {"cwd": str(wave.workdir), "mcpServers": []})
    created = await asyncio.wait_for(future, HANG_BOUND)
    if created is ADAPTER_GONE:
        return  # the adapter's exit is reported once
    if "error" in created:
        wave.new_session_errors.append(created)
        return
    session = created["result"]["sessionId"]
    wave.sessions.append(session)
    for index in range(rng.randint(1, 4)):
        await _prompt(wave, session, index, rng)


async def _sigterm_midway(wave: Wave, prompts: int) -> None:
    """Once `prompts` prompts were sent, stop sending, make sure the adapter has read all
    that was sent (a probe behind it is answered), and send SIGTERM."""
    while len(wave.prompts) < prompts and not wave.exited:
        await asyncio.sleep(0.05)
    wave.signalled_after = wave.next_id
    wave.next_id += 1
    probe = wave.next_id
    answered: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    wave.waiting[probe] = answered
    wave.requests[probe] = "initialize"
    # The probe declares what the wave's client declared, so the recorded wire keeps meaning
    # one client (the conformance rules read negotiation from the latest initialize).
    caps = {"_meta": OPT_IN} if wave.capable else {}
    params = {"protocolVersion": 1, "clientCapabilities": caps}
    await wave.write({"jsonrpc": "2.0", "id": probe, "method": "initialize", "params": params})
    await asyncio.wait_for(answered, HANG_BOUND)
    wave.signal_time = time.monotonic()
    wave.process.send_signal(signal.SIGTERM)


async def _run_wave(tmp_path: Path, number: int, sessions: int, *, sigterm: bool = False) -> Wave:
    wave = await _spawn(tmp_path, number, capable=number % 2 == 0)
    gate = asyncio.Semaphore(CONCURRENCY)
    rng = random.Random(f"{SEED}:client:{number}")
    seeds = [rng.random() for _ in range(sessions)]

    async def one(seed: float) -> None:
        async with gate:
            await _session(wave, random.Random(seed))

    started = time.monotonic()
    try:
        work = asyncio.gather(*(one(seed) for seed in seeds))
        if sigterm:
            await _sigterm_midway(wave, max(1, sessions // 2))
        await work
    finally:
        wave.seconds = time.monotonic() - started
        assert wave.process.stdin is not None
        wave.process.stdin.close()
        try:
            await asyncio.wait_for(wave.process.wait(), HANG_BOUND)
        except TimeoutError:
            wave.process.kill()
            await wave.process.wait()
        if wave.reader is not None:
            await asyncio.wait_for(wave.reader, HANG_BOUND)
    return wave


# --- the checks -------------------------------------------------------------------------------


def _records(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The sessionFailure records a message carries (a session update or a prompt response)."""
    meta: Any = None
    if message.get("method") == "session/update":
        meta = message.get("params", {}).get("update", {}).get("_meta")
    elif isinstance(message.get("result"), dict):
        meta = message["result"].get("_meta")
    if not isinstance(meta, dict):
        return []
    air = meta.get("jetbrains", {}).get("air") if isinstance(meta.get("jetbrains"), dict) else None
    if not isinstance(air, dict) or "sessionFailure" not in air:
        return []
    return [air["sessionFailure"]]


def _record_problem(record: Any) -> str | None:
    if not isinstance(record, dict):
        return "not an object"
    keys = set(record)
    if not keys <= SESSION_FAILURE_KEYS or not keys >= REQUIRED_KEYS:
        return f"keys {sorted(keys)}"
    revision = record["revision"]
    if not isinstance(record["id"], str) or not record["id"]:
        return "id"
    if not isinstance(revision, int) or isinstance(revision, bool) or revision < 1:
        return "revision"
    if record["category"] not in CATEGORIES or record["severity"] not in ("warning", "error"):
        return "category or severity"
    if not isinstance(record["title"], str) or not record["title"]:
        return "title"
    if "details" in record and (not isinstance(record["details"], str) or not record["details"]):
        return "details"
    actions = record["actions"]
    if not isinstance(actions, list) or not set(actions) <= ACTIONS:
        return "actions"
    if record["severity"] == "warning" and actions:
        return "a warning with actions"
    return None


def _prompt_indices(wave: Wave, session: str) -> dict[str, int]:
    """Prompt text -> its index among the turns Claude played for `session` (its transcript)."""
    path = transcript_path({"CLAUDE_CONFIG_DIR": str(wave.config_dir)}, str(wave.workdir), session)
    indices: dict[str, int] = {}
    if not path.exists():
        return indices
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        content = entry.get("message", {}).get("content")
        if entry.get("type") != "user" or not isinstance(content, list) or not content:
            continue
        first = content[0]
        if not isinstance(first, dict) or first.get("type") != "text":
            continue
        text = str(first.get("text", ""))
        if text.startswith("prompt "):
            indices[text] = count
            count += 1
        elif not text.startswith("[Request interrupted"):
            count += 1
    return indices


@dataclass
class Findings:
    problems: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    endings: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    latency: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    waves: list[str] = field(default_factory=list)

    def problem(self, text: str) -> None:
        if len(self.problems) < 40:
            self.problems.append(text)
        self.counts["problems"] += 1


def _outcome(prompt: Prompt) -> str:
    answer = prompt.answer
    if answer is None:
        return "unanswered"
    if "error" in answer:
        return f"error {answer['error'].get('code')}"
    result = answer["result"]
    records = _records(answer)
    if records:
        return f"{result.get('stopReason')} + {records[0].get('category')}"
    return str(result.get("stopReason"))


def _check(wave: Wave, findings: Findings) -> None:
    counts = findings.counts
    mode = "capable" if wave.capable else "legacy"
    counts["adapters"] += 1
    findings.waves.append(
        f"{mode} adapter {wave.number}: {len(wave.sessions)} sessions in {wave.seconds:.0f} s"
    )
    counts["stdout lines"] += wave.lines
    counts[f"sessions ({mode})"] += len(wave.sessions)
    counts["session/new errors"] += len(wave.new_session_errors)
    expected_code = 0 if wave.signalled_after is None else 128 + signal.SIGTERM
    if (
        wave.process.returncode not in (expected_code, None)
        or wave.waiting
        or (wave.exited and any(p.answer is None for p in wave.prompts))
    ):
        tail = ""
        if wave.stderr_path is not None:
            lines = wave.stderr_path.read_text(errors="replace").splitlines()
            tail = "\n".join(line for line in lines[-60:] if "Error" in line or "File" in line)
        findings.problem(
            f"wave {wave.number}: the adapter exited with {wave.process.returncode}; "
            f"its stderr ends:\n{tail[-2000:]}"
        )
    for problem, line in wave.bad_lines:
        findings.problem(f"wave {wave.number}: stdout line is {problem}: {line!r}")
    # The wire as a whole keeps the rules `claude-acp conformance` checks.
    for violation in conformance_violations(wave.frames):
        findings.problem(f"wave {wave.number}: conformance {violation}")
    # Hostile lines: each got exactly its one answer.
    if wave.hostile_answers != wave.hostile_sent:
        findings.problem(
            f"wave {wave.number}: hostile lines sent {dict(wave.hostile_sent)}, "
            f"answered {dict(wave.hostile_answers)}"
        )
    counts["hostile lines"] += sum(wave.hostile_sent.values())
    # No secret in any log line either.
    if wave.stderr_path is not None:
        log = wave.stderr_path.read_text(errors="replace")
        for secret in SECRETS:
            if secret in log:
                findings.problem(f"wave {wave.number}: secret {secret!r} in the adapter's log")
    # A Claude that cannot start is -32603; a session still opening when SIGTERM came is
    # -32800, cancelled at once (docs/decisions.md#openings-at-exit).
    allowed = {-32603} if wave.signalled_after is None else {-32603, -32800}
    for error in wave.new_session_errors:
        if error["error"].get("code") not in allowed:
            findings.problem(f"wave {wave.number}: session/new failed oddly: {error}")
    # Exactly one response per request.
    for request_id, method in wave.requests.items():
        answers = wave.responses[request_id]
        if answers != 1:
            findings.problem(f"wave {wave.number}: {method} #{request_id} answered {answers}x")
    # Records: shape, mode, revisions, secrets.
    last_revision: dict[str, int] = {}
    for message in wave.messages:
        for record in _records(message):
            counts["records"] += 1
            if not wave.capable:
                findings.problem(f"wave {wave.number}: a legacy client got a record: {record}")
            malformed = _record_problem(record)
            if malformed is not None:
                findings.problem(f"wave {wave.number}: malformed record ({malformed}): {record}")
                continue
            previous = last_revision.get(record["id"], 0)
            if record["revision"] <= previous:
                findings.problem(
                    f"wave {wave.number}: {record['id']} revision {record['revision']} "
                    f"after {previous}"
                )
            last_revision[record["id"]] = max(previous, record["revision"])
            if record["revision"] > 1:
                counts["revisions > 1"] += 1
        # docs/decisions.md#secrets: a legacy client's agent text carries Claude's error prose
        # masked.
        wire = json.dumps(message, ensure_ascii=False)
        for secret in SECRETS:
            if secret in wire:
                findings.problem(f"wave {wave.number}: secret {secret!r} in {wire[:300]}")
    counts["record ids"] += len(last_revision)
    # Prompts: answered, and a cancel was needed only for turns that hang by design.
    indices = {session: _prompt_indices(wave, session) for session in wave.sessions}
    for prompt in wave.prompts:
        counts[f"prompts ({mode})"] += 1
        outcome = _outcome(prompt)
        turn = indices[prompt.session].get(prompt.text)
        ending = (
            "never reached Claude" if turn is None else turn_plan(SEED, prompt.session, turn).ending
        )
        findings.endings[ending][outcome] += 1
        if prompt.answered is not None:
            findings.latency[ending].append(prompt.answered - prompt.sent)
        if prompt.cancelled_by_chance:
            counts["client cancels (random)"] += 1
        if prompt.needed_cancel:
            counts["client cancels (no answer yet)"] += 1
        if wave.capable and prompt.answer is not None and "error" in prompt.answer:
            # docs/decisions.md#never-silent and #legacy-clients: a capable client's failures ride
            # on the PromptResponse as records.
            findings.problem(
                f"wave {wave.number}: prompt {prompt.index} of session {prompt.session} "
                f"(turn {turn}, ending {ending}) got a JSON-RPC error: {prompt.answer['error']}"
            )
        if prompt.answer is None:
            findings.problem(
                f"wave {wave.number}: prompt {prompt.index} of session {prompt.session} "
                f"(turn {turn}, ending {ending}) was never answered, even after a cancel"
            )
        elif (
            prompt.needed_cancel
            and not prompt.cancelled_by_chance
            and ending not in HANGING_ENDINGS
        ):
            findings.problem(
                f"wave {wave.number}: prompt {prompt.index} of session {prompt.session} "
                f"(turn {turn}, ending {ending}) hung until the client cancelled it; "
                f"answer: {outcome}"
            )


async def _check_no_orphans(wave: Wave, findings: Findings) -> None:
    """No Claude process of the wave's sessions outlives the adapter (SIGKILL included)."""
    deadline = time.monotonic() + HANG_BOUND
    left = list(wave.sessions)
    while left and time.monotonic() < deadline:
        left = [s for s in left if processes_mentioning(s)]
        await asyncio.sleep(0.1)
    for session in left:
        findings.problem(f"wave {wave.number}: Claude of {session} outlived the adapter")
    findings.counts["sessions of the SIGTERM wave"] += len(wave.sessions)
    at = wave.signal_time or 0.0
    late = [p for p in wave.prompts if p.answered is not None and p.answered >= at]
    # Each was answered exactly once (checked above): `cancelled` by the shutdown, or with its
    # own outcome when its turn ended at that same moment.
    findings.counts["prompts answered at SIGTERM"] += len(late)
    findings.counts["prompts cancelled at SIGTERM"] += sum(
        1
        for p in late
        if p.answer is not None and (p.answer.get("result") or {}).get("stopReason") == "cancelled"
    )


def _report(findings: Findings, seconds: float) -> str:
    lines = [f"fault run, seed {SEED}: {seconds:.0f} s", *(f"  {w}" for w in findings.waves)]
    lines += [f"  {name}: {count}" for name, count in sorted(findings.counts.items())]
    lines.append("  outcomes by planned ending (first prompt of a turn that reached Claude):")
    for ending in sorted(findings.endings):
        outcomes = ", ".join(f"{o} {n}" for o, n in findings.endings[ending].most_common())
        waits = sorted(findings.latency[ending]) or [0.0]
        median, worst = waits[len(waits) // 2], waits[-1]
        lines.append(
            f"    {ending}: {outcomes} (answered in {median:.2f} s median, {worst:.1f} max)"
        )
    return "\n".join(lines)


@pytest.mark.asyncio
async def test_randomized_fault_run(tmp_path: Path) -> None:
    started = time.monotonic()
    findings = Findings()
    per_wave = [
        SESSIONS // ADAPTERS + (1 if i < SESSIONS % ADAPTERS else 0) for i in range(ADAPTERS)
    ]
    async with asyncio.timeout(RUN_BOUND):
        for number, sessions in enumerate(per_wave):
            # The last adapter is stopped with SIGTERM halfway through.
            last = number == len(per_wave) - 1
            wave = await _run_wave(tmp_path, number, sessions, sigterm=last)
            _check(wave, findings)
            if last:
                await _check_no_orphans(wave, findings)
            started_sessions = len(wave.sessions) + len(wave.new_session_errors)
            if started_sessions != sessions and not last:  # SIGTERM: the rest never start
                findings.problem(f"wave {wave.number}: {started_sessions} of {sessions} sessions")
    report = _report(findings, time.monotonic() - started)
    print("\n" + report)
    assert not findings.problems, (
        f"fault run failed; reproduce with CLAUDE_ACP_FAULT_SEED={SEED} "
        f"(CLAUDE_ACP_FAULT_SESSIONS={SESSIONS})\n"
        + "\n".join(findings.problems)
        + f"\n({findings.counts['problems']} problems in all)\n"
        + report
    )
