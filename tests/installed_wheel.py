#!/usr/bin/env python3
"""The wheel as editor users get it: built, installed with `uv tool install`, run from elsewhere.

`tests/run.py`'s `wheel` stage runs this with `.venv`'s Python (which has `uv` from the test
extra). In a temporary folder it builds the wheel from a clean copy of the sources (so nothing
left in a `build/` folder of the checkout can slip in), checks what the wheel holds, installs it
with `uv tool install` into a temporary tool folder (`UV_TOOL_DIR`, `UV_TOOL_BIN_DIR`; the
user's own tools are never touched, and uv may not download a Python), and runs, from a folder
outside the checkout with no PYTHONPATH: `claude-acp --version` (the package's version),
`claude-acp doctor` (signed out in an empty config folder: it must find and start the Claude Code
bundled in the installed SDK and say so; its exit status is 1 there, for not being signed in, so
what it prints is checked, not its success) and `claude-acp demo` (the adapter serving a real ACP
client against the scripted Claude, all from the installed package).

Exits 0 when all of that holds; otherwise prints what did not and exits 1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UV = Path(sys.executable).with_name("uv")
# What goes into the wheel (pyproject.toml: the packages, the readme, the licence).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "adapter", "fsm")
TIMEOUT = 600


class Mismatch(Exception):
    """What the installed wheel did that it should not have."""


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(argv), flush=True)
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def _must(done: subprocess.CompletedProcess[str], what: str) -> str:
    if done.returncode != 0:
        raise Mismatch(f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _clean_env(scratch: Path) -> dict[str, str]:
    """The environment of a user with nothing of ours set: no venv, no PYTHONPATH, no Claude or
    adapter settings, an empty home and config folder."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE_", "ANTHROPIC_", "UV_"))
        and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(scratch / "claude-config"),
        # Nothing here may reach Claude's service; doctor asks no server, the demo none either.
        ANTHROPIC_BASE_URL="http://127.0.0.1:9",
        UV_TOOL_DIR=str(scratch / "uv-tools"),
        UV_TOOL_BIN_DIR=str(scratch / "uv-bin"),
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_CONFIG="1",
    )
    return env


def build_wheel(scratch: Path) -> Path:
    source = scratch / "source"
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(ROOT / name, source / name)
    dist = scratch / "dist"
    _must(
        _run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(source)],
            cwd=scratch,
            env=dict(os.environ),
        ),
        "building the wheel",
    )
    wheels = sorted(dist.glob("claude_acp-*.whl"))
    if len(wheels) != 1:
        raise Mismatch(f"expected one wheel, found {[w.name for w in wheels]}")
    return wheels[0]


def check_contents(wheel: Path, version: str) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {"adapter/py.typed", "fsm/py.typed", "adapter/app/cli.py", "adapter/app/doctor.py"}
    missing = wanted - names
    if missing:
        raise Mismatch(f"the wheel lacks {sorted(missing)}")
    strays = sorted(n for n in names if n.startswith(("tests/", "diagrams/")))
    if strays:
        raise Mismatch(f"the wheel holds test or development files: {strays[:5]}")
    sources = {
        str(p.relative_to(ROOT))
        for package in ("adapter", "fsm")
        for p in (ROOT / package).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    if sources - names:
        raise Mismatch(f"modules missing from the wheel: {sorted(sources - names)[:5]}")
    if f"claude_acp-{version}.dist-info/METADATA" not in names:
        raise Mismatch(f"the wheel is not version {version}: {wheel.name}")
    print(f"{wheel.name}: {len(names)} files, every module and both py.typed", flush=True)


def check_installed(wheel: Path, scratch: Path, version: str) -> None:
    env = _clean_env(scratch)
    base = getattr(sys, "_base_executable", sys.executable)
    _must(
        _run([str(UV), "tool", "install", "--python", base, str(wheel)], cwd=scratch, env=env),
        "uv tool install",
    )
    command = Path(env["UV_TOOL_BIN_DIR"]) / "claude-acp"
    elsewhere = scratch / "project"
    elsewhere.mkdir()

    said = _must(_run([str(command), "--version"], cwd=elsewhere, env=env), "claude-acp --version")
    if said != f"claude-acp {version}\n":
        raise Mismatch(f"claude-acp --version printed {said!r}, not the package's {version}")
    print(said, end="", flush=True)

    done = _run([str(command), "doctor"], cwd=elsewhere, env=env)
    print(done.stdout, end="", flush=True)
    output = done.stdout + done.stderr
    lines = done.stdout.splitlines()

    def line(name: str) -> str:
        found = [text for text in lines if text[6:].startswith(name + " ")]
        if len(found) != 1:
            raise Mismatch(f"doctor printed no single {name!r} line:\n{output}")
        return found[0]

    if done.returncode not in (0, 1) or "Traceback" in output:
        raise Mismatch(f"doctor ended with {done.returncode} or a traceback:\n{output}")
    if f"claude-acp {version} on Python" not in line("versions"):
        raise Mismatch("doctor's versions line does not name the installed version")
    claude = line("Claude Code")
    if not claude.startswith("ok ") or "bundled with claude-agent-sdk" not in claude:
        raise Mismatch("doctor did not find and start the Claude Code bundled in the wheel's SDK")
    signed = line("signed in")
    if not signed.startswith("FAIL ") or "claude-acp login" not in signed or done.returncode != 1:
        raise Mismatch("signed out in an empty config folder, doctor must say so and exit 1")
    zed = json.loads(done.stdout[done.stdout.index("{") : done.stdout.rindex("}") + 1])
    started = zed["agent_servers"]["Claude (claude-acp)"]["command"]
    if Path(started) != command:
        raise Mismatch(f"doctor's Zed configuration starts {started}, not {command}")

    demo = _must(_run([str(command), "demo"], cwd=elsewhere, env=env), "claude-acp demo")
    if "session/prompt" not in demo and "end_turn" not in demo:
        raise Mismatch(f"claude-acp demo printed no turn:\n{demo}")
    print(f"claude-acp demo: {len(demo.splitlines())} lines, a turn played", flush=True)


def main() -> int:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    if not UV.exists():
        print(f"uv is not installed beside {sys.executable} (the test extra has it)")
        return 1
    with tempfile.TemporaryDirectory(prefix="claude-acp-wheel-") as folder:
        scratch = Path(folder)
        try:
            wheel = build_wheel(scratch)
            check_contents(wheel, version)
            check_installed(wheel, scratch, version)
        except (Mismatch, subprocess.TimeoutExpired, OSError) as failed:
            print(f"the installed wheel does not work: {failed}", flush=True)
            return 1
    print("the wheel installs with uv tool install and runs from any folder", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
