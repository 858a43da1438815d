"""Telling the client which sign-in Claude Code pays with: `_auth/status_update {authStatus}`.

Theory of operation (docs/reference-adapter.md#auth-status): the identity is read, as the
reference reads it, at `initialize`, at the start of each prompt (a sign-in or sign-out done in
another terminal shows up), after `authenticate` (its own read) and after `logout` (a fresh read;
one that cannot say is "not logged in"), and from a session's account (Claude Code's initialize
answer). A read from the CLI (`claude auth status --json`, in the session's folder, with the
session's variables) is never waited for by a request, but `logout`'s, whose answer waits for
its fresh read (5 s at most, as the reference waits there). A prompt's read joins one under way,
but logout's may run beside it, so every read's child is kept: a read cancelled kills and reaps
its CLI; when the agent ends, each is killed and reaped, each task is waited for, and nothing
starts or is sent after. A background read's failure (a push at shutdown) is logged, never left
unretrieved. Reads are made in the folder of the session read for last, with the `apiKeyHelper`
its settings name: where a prompt or a session's account moves that, the core drops the reads
begun before and a read is begun there (at the next quiet moment, after an account). What is
pushed, and when, and whether a read joins one under way, is the core's (`fsm.AuthReports`);
this module runs the CLI and sends.

The read `initialize` asks for is a step of the work done ahead (`adapter.agent.work_ahead`):
at a quiet moment after its answer, or while a first session's Claude starts, never before that
Claude's spawn, so its push follows that answer. The CLI is run with asyncio itself, not anyio,
whose backend comes in only once a first Claude has spawned (`adapter/app/serving.py`).
Whatever goes wrong (no
Claude Code, no answer within `PROBE_TIMEOUT_SECONDS`, an answer not understood) is silence
and a log line (a CLI that hangs is told once, as the reference does, not at every prompt):
"cannot say" is never "not logged in".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapter.claude.runtime_settings import RuntimeSettings
    from adapter.wire.client_link import ClientLink
    from fsm import AuthIdentity, AuthReports

__all__ = ["PROBE_TIMEOUT_SECONDS", "AuthPush"]

log = logging.getLogger(__name__)

# The reference's bound on one `claude auth status --json` run.
PROBE_TIMEOUT_SECONDS = 5.0


class AuthPush:
    """The connection's `authStatus` pushes (one per agent)."""

    def __init__(self, link: ClientLink, settings: RuntimeSettings) -> None:
        self._link = link
        self._settings = settings
        self._reports: AuthReports | None = None
        self._probe: asyncio.Task[None] | None = None
        self._probe_epoch = 0  # the epoch the read `_probe` began at
        # Where a read is started at the next quiet moment (the agent's work done ahead); at
        # once without one.
        self.quietly: Callable[[Callable[[], None]], None] | None = None
        self._cwd: str | None = None  # the folder of the session read last
        self._tasks: set[asyncio.Task[None]] = set()  # every task started here, until done
        self._processes: set[asyncio.subprocess.Process] = set()  # every read's child, running
        self._closed = False  # the agent is ending: nothing starts, nothing is sent
        self._told_timeout = False  # a CLI that does not answer is logged once

    @property
    def reports(self) -> AuthReports:
        if self._reports is None:
            from fsm import AuthReports

            self._reports = AuthReports()
        return self._reports

    def probe(self, cwd: str | None = None) -> None:
        """Read the identity from the CLI, in the background; joins a read under way where the
        core says it still counts (`AuthReports.joins`: none came since, nor another context)."""
        if cwd is not None:
            self._cwd = cwd
        if self._closed:
            return
        helper = self._helper()  # read once: the read begun here maps its answer with it
        self._reading_in(helper)
        under_way = self._probe is not None and not self._probe.done()
        if self.reports.joins(self._probe_epoch if under_way else None):
            return
        self._probe_epoch = self.reports.epoch
        self._probe = self._start(self._probed(self.reports.epoch, helper))

    def _reading_in(self, helper: str | None) -> bool:
        """The core told where reads are made now: the folder of the session read last and
        the `apiKeyHelper` its settings name (docs/reference-adapter.md#auth-status); True
        when that moved, and reads begun before no longer count."""
        return self.reports.reading_in(self._cwd or os.getcwd(), helper)

    async def _probed(self, epoch: int, helper: str | None) -> None:
        await self._push(self.reports.read(await self._read(helper), epoch))

    async def signed_in(self, stdout: str) -> None:
        """`authenticate` found the user signed in: its own read, which supersedes any under
        way."""
        from fsm import identity_from_cli

        self.reports.changed()
        found = identity_from_cli(stdout, self._helper())
        await self._push(self.reports.read(found, self.reports.epoch))

    async def signed_out(self) -> None:
        """`logout` cleared the credentials: a read begun after it (an API key in the
        environment survives it); one that cannot say is "not logged in"."""
        self.reports.changed()
        epoch = self.reports.epoch
        await self._push(self.reports.signed_out(await self._read(self._helper()), epoch))

    async def gateway_signed_in(self, base_url: str) -> None:
        """A gateway sign-in (adapter.agent.provider_requests): the gateway is the identity."""
        await self._push(self.reports.gateway_signed_in(base_url))

    def routing(self, *, gateway: bool, provider_set: bool) -> None:
        """What routes Claude now (adapter.agent.provider_requests): see `AuthReports.routing`."""
        self.reports.routing(gateway=gateway, provider_set=provider_set)

    @property
    def epoch(self) -> int:
        """The sign-ins and sign-outs so far: taken as a Claude begins starting, and handed
        back with the account it names (`opened`)."""
        return 0 if self._reports is None else self._reports.epoch

    def opened(self, account: Mapping[str, Any] | None, cwd: str, epoch: int) -> None:
        """A session's Claude, begun starting at `epoch`, named `account` (its initialize
        answer): told in the background, off the session's answer; the core drops it when a
        sign-in or sign-out came meanwhile (that Claude read the credentials before it)."""
        if account is None or self._closed:
            return
        self._cwd = cwd
        self._start(self.account(account, epoch))

    def _start(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """`work` in the background, kept until done (`close` waits for it)."""
        task = asyncio.get_running_loop().create_task(self._logged(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @staticmethod
    async def _logged(work: Coroutine[Any, Any, None]) -> None:
        """`work` in the background: its failure is logged, not left for asyncio to warn of."""
        try:
            await work
        except Exception:
            log.warning("authStatus: a background read or push failed", exc_info=True)

    async def account(self, account: Mapping[str, Any] | None, epoch: int) -> None:
        """A session's Claude Code, begun starting at `epoch`, named its account."""
        from fsm import identity_from_account

        helper = self._helper()
        found = identity_from_account(account, helper)
        await self._push(self.reports.read(found, epoch, session_account=True))
        # Its folder may be another, or its settings name another key helper: an account may
        # not say which (a key helper's is bare), so a read there is begun, as the reference's.
        if self._reading_in(helper) and not self._closed:
            (self.quietly or _now)(self.probe)

    async def _push(self, payload: dict[str, Any] | None) -> None:
        if payload is None or self._closed:
            return
        from fsm import AUTH_STATUS_METHOD

        await self._link.notify(AUTH_STATUS_METHOD, payload, "(connection)")

    async def close(self) -> None:
        """The agent is ending: every read under way is stopped, its child killed and waited
        for (asyncio would otherwise warn of a child it still watches), every task started here
        is cancelled and waited for, and nothing more starts or is sent."""
        self._closed = True
        for process in list(self._processes):
            _kill(process)
        tasks = [task for task in self._tasks if not task.done()]
        for task in tasks:
            task.cancel()
        if tasks:  # each reaps its own child when cancelled (`_read`), boundedly
            await asyncio.wait(tasks, timeout=2 * PROBE_TIMEOUT_SECONDS)
        for process in list(self._processes):  # logout's read, awaited by its request
            await _stopped(process)

    def _helper(self) -> str | None:
        """The `apiKeyHelper` Claude Code would use in the folder read last (JetBrains AIR's
        gateway is one), as the core picks it from the settings tiers (`fsm.api_key_helper`)."""
        from adapter.claude.settings_files import read_settings
        from fsm import api_key_helper

        env = {**os.environ, **self._settings.env}
        return api_key_helper([tier.data for tier in read_settings(self._cwd or os.getcwd(), env)])

    async def _read(self, helper: str | None) -> AuthIdentity | None:
        """`claude auth status --json`'s answer, mapped with `helper`, the `apiKeyHelper` read
        when this read began (the settings are not read again: both halves agree)."""
        from adapter.claude.auth_command import auth_command_line
        from fsm import identity_from_cli

        line = auth_command_line(("status", "--json"), self._settings)
        if line is None:
            log.info("authStatus: no Claude Code to ask")
            return None
        argv, environ = line
        if self._closed:
            return None
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=environ,
                cwd=self._cwd,
            )
        except (OSError, ValueError) as exc:  # ValueError: a NUL in its argv or environment
            log.info("authStatus: claude auth status could not start: %s", type(exc).__name__)
            return None
        self._processes.add(process)
        try:
            if self._closed:  # `close` ran while it started: it is killed here
                await _stopped(process)
                return None
            stdout, _ = await asyncio.wait_for(process.communicate(), PROBE_TIMEOUT_SECONDS)
        except TimeoutError:
            await _stopped(process)
            self._timed_out()
            return None
        except BaseException:  # cancelled (the agent ending): no child is left behind
            await _stopped(process)
            raise
        finally:
            self._processes.discard(process)
        # Signed out exits 1 and still prints its JSON answer.
        found = identity_from_cli(stdout.decode("utf-8", "replace"), helper)
        if found is None:
            log.info("authStatus: claude auth status's answer was not understood")
        return found

    def _timed_out(self) -> None:
        if self._told_timeout:
            log.debug("claude auth status did not answer within 5 s")
            return
        self._told_timeout = True
        log.warning("claude auth status did not answer within 5 s; the identity is not read")


def _now(work: Callable[[], None]) -> None:
    work()


def _kill(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()


async def _stopped(process: asyncio.subprocess.Process) -> None:
    """`process` killed and waited for (boundedly: it was killed)."""
    _kill(process)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), PROBE_TIMEOUT_SECONDS)
