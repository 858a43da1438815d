"""The real-Claude-Code tier: the adapter driving the Claude Code CLI that ships inside
`claude-agent-sdk`, against a local stand-in for the Anthropic Messages API.

Why: every other end-to-end test talks to the scripted Claude this project wrote itself. The
real CLI differs in ways only it can show (a plain 400 arrives as error kind `unknown`, a 529
as `server_error`, retries follow `CLAUDE_CODE_MAX_RETRIES`, transcripts hold entry types the
scripted one never writes, tools run for real), and an SDK upgrade may change any of it.

How:
- `api_double.py`: the Messages API double (127.0.0.1 only, a free port, stops with its `with`
  block): streamed and plain replies, the real error bodies and headers, cut and reset
  connections, stalls, scripted `tool_use` turns, a record of every request, and a tripwire
  proxy that catches any connection meant for anywhere but loopback.
- `support.py`: the CLI's environment (the double as `ANTHROPIC_BASE_URL`, a dummy key, fresh
  `HOME` and `CLAUDE_CONFIG_DIR`, `CLAUDE_CODE_MAX_RETRIES=2`, non-essential traffic, telemetry,
  updates and error reports off, the tripwire as `HTTP(S)_PROXY`), the adapter spawned by
  `tests/support/harness.py` without `CLAUDE_CODE_EXECUTABLE` (so the SDK runs its bundled CLI), and
  readers for one turn's frames.
- `conftest.py`: one double and one adapter per module and client mode (capable: opted into
  sessionFailure; legacy), and the refusal to pass silently: where the SDK has no bundled CLI
  for the platform, every test here is skipped with the reason and the pytest summary ends
  with a banner.
- `test_*.py`: marked `e2e` and `real_claude`; `pytest -m real_claude` runs only them.
"""
