"""Benchmark: our adapter against the reference TypeScript adapter and a floor.

Run it from the repository root (a full run took 5.5 minutes on 2 cores shared with other
work, load average 10-19; `--quick` about 2):

    .venv/bin/python -m tests.bench                 # every phase, full size
    .venv/bin/python -m tests.bench --quick         # fewer runs, replay up to 10,000 lines
    .venv/bin/python -m tests.bench --profile       # also py-spy profiles of ours
    .venv/bin/python -m tests.bench --only startup --only concurrent --runs 30 --no-reference

It writes `tests/bench/results/BENCHMARKS.md` (with its targets table, each target marked met or
missed: `initialize` within 40 ms of the floor, a fresh process's first session ready in 0.80x
the reference's time, `session/resume` and `session/fork` in 0.90x, `session/load` and the CPU
per streamed delta no more than the reference's, and the earlier ones), `benchmarks.png` (with
matplotlib, the `bench` extra) and `profile-*.txt` (with `--profile`). `--out DIR` writes them
elsewhere. The reference adapter, `@agentclientprotocol/claude-agent-acp`
at a pinned version, is installed with npm into `~/.cache/claude-acp-bench/` (outside the
repository) on first use; node and npm must be on PATH. Without them the reference columns are
left empty and the report says why.

The agents (see `agents.py`):
- ours: `python -m adapter`;
- reference: `node <cache>/node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js`,
  which runs `$CLAUDE_CODE_EXECUTABLE` when it is set (passed to the TypeScript SDK as
  `pathToClaudeCodeExecutable`; docs/reference-adapter.md#claude-executable);
- floor: `python -m tests.bench.floor_agent`, the same `acp` SDK answering at once without Claude.

All three get the same scripted Claude (`adapter.scripted_claude`) as `CLAUDE_CODE_EXECUTABLE`,
through a launcher that plays the scenario named by the session folder (so one process can hold
a `success`, a `rate_limit` and a `retry_then_rate_limit` session) and that answers the
reference's background `claude auth status --json` probe at once, as the real CLI would. Each
agent process gets its own temporary `CLAUDE_CONFIG_DIR`, and the benchmark's environment
without `PYTHONDONTWRITEBYTECODE` (`rpc.agent_environment`): a Python agent keeps its bytecode
from the warm-up run on, as an installed one has it from pip.

What is measured, phase by phase (`phases.py`; `--only PHASE` picks some):
- `core` (`core.py`): events/s through `fsm.session.SessionCore.handle`; memory per incident.
- `startup` (`startup.py`): per fresh process, spawn -> `initialize` answered (and the agent's
  CPU time by then), spawn -> first `session/new` answered, three `session/new` + prompt round
  trips, the agent's own peak RSS (VmHWM, not counting the scripted Claude children, which are
  reported apart). Runs are interleaved floor, ours, reference, ... and the ratio
  ours/reference is taken run by run.
- `concurrent` (`concurrency.py`): 50 `session/new` at once on one fresh agent: time to the
  last answer, agent and children CPU; ours and reference in turn, `--repeats` times.
- `scaling` (`concurrency.py`): sessions created one by one, the agent's VmRSS after 1, 10 and
  50: the cost of each further session.
- `streaming` (`streaming.py`, also runnable alone): prompt -> first `agent_message_chunk`
  (`--stream-runs` fresh agents each), and one 100,000-delta answer per agent: CPU per delta,
  peak RSS before and after (`--no-long-stream` skips it).
- `sessions` (`sessions.py`, also runnable alone): `session/resume`, `session/fork` and
  `session/load` of a session an earlier process created (`--session-runs` per agent).
- `listing` (`listing.py`, also runnable alone): `session/list` of a folder that had half its
  sessions deleted against one that never had, both listing the same count (ours alone).
- `replay` (`replay.py`): `session/load` of generated transcripts (`transcripts.py`) of 1,000,
  10,000 and 100,000 lines: time, CPU, peak RSS, growth ratio; and the pure part of ours alone.
- `profile.py`: py-spy summaries (`--profile`).
- Not a phase: `tool_input.py` (in process) times the turn view per streamed tool-input delta
  against a text delta: `python -m tests.bench.tool_input`.

The one-minute load average is recorded when each phase starts and at the start of each run,
and reported per phase.

The machine may be shared: the report gives the load average during the runs, and CPU-time
figures, which contention stretches far less than wall-clock ones.
"""
