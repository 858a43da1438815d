"""The agents under test, how to start them, and the scripted-Claude launcher they share.

- `ours`: `python -m adapter` from this checkout (the venv's interpreter).
- `reference`: `@agentclientprotocol/claude-agent-acp` at a pinned version, installed with npm
  into a cache folder outside the repository and started as `node <pkg>/dist/index.js` (its
  `bin`). Its `claudeCliPath()` (docs/reference-adapter.md#claude-executable) returns
  `$CLAUDE_CODE_EXECUTABLE` when set and hands it to the TypeScript SDK as
  `pathToClaudeCodeExecutable`, so it runs the same scripted Claude as ours. The SDK's
  native-CLI package is an optional dependency, so it is left out (`--omit=optional`, about
  320 MB less).
- `floor`: `python -m tests.bench.floor_agent`, the same `acp` SDK answering at once.

Every agent gets the same launcher as `CLAUDE_CODE_EXECUTABLE` and its own temporary
`CLAUDE_CONFIG_DIR`. The launcher picks the scripted Claude's scenario from the name of the
folder Claude is started in (the session's cwd), so one agent process can hold one session per
scenario.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from adapter.scripted_claude import SCENARIO_ENV, SCENARIOS, write_launcher

__all__ = [
    "DEFAULT_REFERENCE_VERSION",
    "REFERENCE_PACKAGE",
    "ROOT",
    "AgentSpec",
    "Reference",
    "floor_agent",
    "install_reference",
    "our_agent",
    "reference_agent",
    "write_scenario_launcher",
]

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_PACKAGE = "@agentclientprotocol/claude-agent-acp"
DEFAULT_REFERENCE_VERSION = "0.101.0"


@dataclass(frozen=True, slots=True)
class AgentSpec:
    name: str
    argv: tuple[str, ...]


def our_agent() -> AgentSpec:
    return AgentSpec("ours", (sys.executable, "-m", "adapter"))


def floor_agent() -> AgentSpec:
    return AgentSpec("floor", (sys.executable, "-m", "tests.bench.floor_agent"))


@dataclass(frozen=True, slots=True)
class Reference:
    version: str
    entry: Path  # dist/index.js
    sdk_version: str  # @anthropic-ai/claude-agent-sdk as installed
    acp_sdk_version: str  # @agentclientprotocol/sdk as installed


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "claude-acp-bench"


def _package_version(modules: Path, name: str) -> str:
    try:
        data = json.loads((modules / name / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "?"
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else "?"


def install_reference(version: str, *, log: bool = True) -> Reference:
    """Install the reference adapter once per version into the cache; return where it is.

    Raises `RuntimeError` when npm is missing or the install fails.
    """
    folder = cache_root() / f"claude-agent-acp-{version}"
    modules = folder / "node_modules"
    entry = modules / REFERENCE_PACKAGE / "dist" / "index.js"
    if _package_version(modules, REFERENCE_PACKAGE) != version or not entry.is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is not installed; the reference adapter cannot be run")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        argv = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            "--omit=optional",
            "--save-exact",
            "--loglevel=error",
            f"{REFERENCE_PACKAGE}@{version}",
        ]
        if log:
            print(f"installing {REFERENCE_PACKAGE}@{version} into {folder}", flush=True)
        done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not entry.is_file():
            raise RuntimeError(f"npm install failed: {done.stderr.strip()[-800:]}")
    return Reference(
        version=version,
        entry=entry,
        sdk_version=_package_version(modules, "@anthropic-ai/claude-agent-sdk"),
        acp_sdk_version=_package_version(modules, "@agentclientprotocol/sdk"),
    )


def reference_agent(reference: Reference) -> AgentSpec:
    node = shutil.which("node") or "node"
    return AgentSpec("reference", (node, str(reference.entry)))


# What `claude auth status --json` prints for a user with an API key. The reference probes it in
# the background at start-up (5 s timeout: docs/reference-adapter.md#claude-executable); the
# scripted Claude has no such subcommand and would sit waiting for stream-json input until
# killed.
AUTH_STATUS_JSON = (
    '{"loggedIn": true, "authMethod": "api_key", "apiProvider": "firstParty", '
    '"apiKeySource": "ANTHROPIC_API_KEY"}'
)


def write_scenario_launcher(directory: Path, default: str = "success") -> Path:
    """A `claude` that runs the scripted Claude with the scenario its cwd's name names
    (`.../rate_limit` plays `rate_limit`), else `$CLAUDE_ACP_SCENARIO`, else `default`.
    `claude auth status ...` answers at once with `AUTH_STATUS_JSON`."""
    real = write_launcher(directory / "real")
    names = "|".join(sorted(SCENARIOS))
    lines = [
        "#!/bin/sh",
        "# Benchmark launcher: the scripted Claude (a test double), scenario = the cwd's name.",
        'if [ "$1" = auth ] && [ "$2" = status ]; then',
        f"  printf '%s\\n' {shlex.quote(AUTH_STATUS_JSON)}",
        "  exit 0",
        "fi",
        f'case "${{PWD##*/}}" in {names}) {SCENARIO_ENV}="${{PWD##*/}}";; esac',
        f'{SCENARIO_ENV}="${{{SCENARIO_ENV}:-{default}}}"',
        f"export {SCENARIO_ENV}",
        f'exec {shlex.quote(str(real))} "$@"',
    ]
    path = directory / "claude"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path
