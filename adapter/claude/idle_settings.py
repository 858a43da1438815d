"""The idle compaction's settings, read as the reference adapter reads them
(docs/reference-adapter.md#idle-compaction), for the core's `IdlePolicy`.

- Off when a Claude settings file says `"idleCompaction": false` or `"autoCompactEnabled":
  false` (user, project, local, managed; the last file that sets a key wins), or when
  `DISABLE_COMPACT` or `DISABLE_AUTO_COMPACT` is on (`1`, `true`, `yes`, `on`).
- The least context it compacts: `CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS` (whole tokens, never
  below 100,000; unset, 0 or not a number: 200,000), as Claude Code reads it.
- Claude Code applies a settings file's `env` block after its launch environment, so for those
  variables the `env` block wins over the environment Claude is started with (ours, and the
  client's extra variables).
- The delay: `CLAUDE_AGENT_ACP_IDLE_COMPACT_DELAY_MS` (whole milliseconds), 0.9 h unset;
  the reference's name, read from the environment only. It exists for tests; an invalid value
  is ignored, and warned about once a process (again only for another invalid value, or once a
  valid one was read in between), as a broken settings file is
  (docs/decisions.md#settings-warned-once).

The files (user, project, local, and the managed tier above them, as the reference's settings
resolve them) are read when the session opens, and again at each prompt and at the idle
deadline; the reference watches the same files (docs/decisions.md#settings-read-again).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from adapter.claude.settings_files import SettingsFile
from fsm import DEFAULT_MIN_TOKENS, MIN_TOKENS_FLOOR, IdlePolicy, SettingsProblem, SettingsWarnings

__all__ = ["DELAY_ENV", "idle_policy"]

log = logging.getLogger(__name__)

DELAY_ENV = "CLAUDE_AGENT_ACP_IDLE_COMPACT_DELAY_MS"
_MIN_TOKENS_ENV = "CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS"
_TRUTHY = frozenset({"1", "true", "yes", "on"})
_WHOLE = re.compile(r"\d{1,15}")
_MAX_TIMER_MS = 2_147_483_647  # the reference's bound (a JavaScript timer's longest)
_NOT_WHOLE = "not a whole number of milliseconds"
# What this process warned about the delay variable: it is read at every prompt of every
# session, and the core says when a problem is news (`fsm.SettingsWarnings`).
_delay_warnings = SettingsWarnings()


def _settings(files: Sequence[SettingsFile]) -> dict[str, Any]:
    """The settings tiers (lowest first, managed last) merged key by key: later tiers win, and
    their `env` blocks are merged too."""
    merged: dict[str, Any] = {}
    block: dict[str, str] = {}
    for tier in files:
        merged.update(tier.data)
        extra = tier.data.get("env")
        if isinstance(extra, dict):
            block.update({k: v for k, v in extra.items() if isinstance(v, str)})
    merged["env"] = block
    return merged


def idle_policy(files: Sequence[SettingsFile], env: Mapping[str, str]) -> IdlePolicy:
    """The session's idle compaction settings, from its settings tiers as read now (`files`,
    `adapter.claude.settings_reader`); `env` is what Claude is started with besides our own
    environment."""
    settings = _settings(files)
    launch = {**os.environ, **env}
    claude_env = {**launch, **settings["env"]}
    disabled_by = None
    if settings.get("idleCompaction") is False:
        disabled_by = "the idleCompaction setting"
    elif settings.get("autoCompactEnabled") is False:
        disabled_by = "the autoCompactEnabled setting"
    else:
        for name in ("DISABLE_COMPACT", "DISABLE_AUTO_COMPACT"):
            if claude_env.get(name, "").strip().lower() in _TRUTHY:
                disabled_by = name
                break
    raw_min = claude_env.get(_MIN_TOKENS_ENV, "").strip()
    wanted = int(raw_min) if _WHOLE.fullmatch(raw_min) else 0
    policy = IdlePolicy(
        disabled_by=disabled_by,
        min_tokens=max(MIN_TOKENS_FLOOR, wanted or DEFAULT_MIN_TOKENS),
    )
    raw_delay = launch.get(DELAY_ENV)
    delay = (raw_delay or "").strip()
    valid = _WHOLE.fullmatch(delay) is not None and int(delay) <= _MAX_TIMER_MS
    # The value itself is only compared, never logged (an environment value).
    problems = (
        []
        if raw_delay is None or valid
        else [SettingsProblem(path=DELAY_ENV, why=_NOT_WHOLE, version=raw_delay)]
    )
    for problem in _delay_warnings.heard([DELAY_ENV], problems):
        log.warning("ignoring %s: %s", problem.path, problem.why)
    if raw_delay is None or not valid:
        return policy
    return IdlePolicy(
        disabled_by=policy.disabled_by,
        min_tokens=policy.min_tokens,
        delay_seconds=int(delay) / 1000,
    )
