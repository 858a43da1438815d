"""Benchmark: our adapter against the reference TypeScript adapter and a floor.

Run it from the repository root (about 5-8 minutes on 2 cores; `--quick` takes about one):

    .venv/bin/python -m tests.bench                 # 20 runs per agent, replay up to 100,000 lines
    .venv/bin/python -m tests.bench --quick         # 5 runs, replay up to 10,000 lines
    .venv/bin/python -m tests.bench --profile       # also py-spy profiles of ours
    .venv/bin/python -m tests.bench --only startup --runs 30 --no-reference

It writes `tests/bench/results/BENCHMARKS.md` (and `benchmarks.png` with matplotlib, and
`profile-*.txt` with `--profile`). The reference adapter, `@agentclientprotocol/claude-agent-acp`
at a pinned version, is installed with npm into `~/.cache/claude-acp-bench/` (outside the
repository) on first use; node and npm must be on PATH. Without them the reference columns are
left empty and the report says why.

The agents (see `agents.py`):
- ours: `python -m adapter`;
- reference: `node <cache>/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js`,
  which runs `$CLAUDE_CODE_EXECUTABLE` when it is set (`dist/claude-cli.js`, passed to the
  TypeScript SDK as `pathToClaudeCodeExecutable`);
- floor: `python -m tests.bench.floor_agent`, the same `acp` SDK answering at once without Claude.

All three get the same scripted Claude (`adapter.scripted_claude`) as `CLAUDE_CODE_EXECUTABLE`,
through a launcher that plays the scenario named by the session folder (so one process can hold
a `success`, a `rate_limit` and a `retry_then_rate_limit` session) and that answers the
reference's background `claude auth status --json` probe at once, as the real CLI would. Each
agent process gets its own temporary `CLAUDE_CONFIG_DIR`.

What is measured (see each module's docstring):
- `startup.py`: per fresh process, spawn -> `initialize` answered (and the agent's CPU time by
  then), three `session/new` + prompt round trips, the agent's own peak RSS (VmHWM, not
  counting the scripted Claude children, which are reported apart). Runs are interleaved
  floor, ours, reference, ... and the ratio ours/reference is taken run by run.
- `core.py`: events/s through `fsm.session.SessionCore.handle`; memory per incident.
- `replay.py`: `session/load` of generated transcripts (`transcripts.py`) of 1,000, 10,000 and
  100,000 lines: time, CPU, peak RSS, growth ratio; and the pure part of ours on its own.
- `profile.py`: py-spy summaries (`--profile`).

The machine may be shared: the report gives the load average during the runs, and CPU-time
figures, which contention stretches far less than wall-clock ones.
"""
