"""Pins for the import-time touchpoints of `adapter/lean_imports.py`.

Both run in a fresh interpreter (this test process has imported `acp` and the SDK the ordinary
way already), and each compares what the lean import gives with what the ordinary import gives,
so a `pydantic`, `acp` or `claude-agent-sdk` upgrade that changes either fails here by name.
"""

from __future__ import annotations

import ast
import inspect
import json
import marshal
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

from pydantic._internal._config import ConfigWrapper

from adapter.lean_imports import DATACLASS_CODE_PREFIX, MCP_BRIDGE, SDK_PACKAGE, reexported_names
from tests.support.fresh_python import printed_json

# Models the adapter sends and reads on every session, built and dumped the way acp does.
WIRE_SAMPLE = """
import json
from acp import schema as s
messages = [
    s.InitializeResponse(protocol_version=1, agent_capabilities=s.AgentCapabilities(
        load_session=True, prompt_capabilities=s.PromptCapabilities(image=True)),
        agent_info=s.Implementation(name="claude-acp", version="1")),
    s.SessionNotification(session_id="s", update=s.AgentMessageChunk(
        session_update="agent_message_chunk", content=s.TextContentBlock(type="text", text="hi"))),
    s.PromptResponse(stop_reason="end_turn", field_meta={"jetbrains": {"air": {}}}),
]
parsed = s.PromptRequest.model_validate(
    {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}], "_meta": {"k": 1}})
dumped = [m.model_dump(mode="json", by_alias=True, exclude_none=True) for m in messages]
dumped.append(parsed.model_dump(mode="json", by_alias=True, exclude_none=True))
"""


def _fresh(code: str) -> Any:
    return printed_json(code)


def test_pydantics_config_hook_has_the_shape_the_lean_import_wraps() -> None:
    for_model = ConfigWrapper.__dict__["for_model"]
    assert isinstance(for_model, classmethod)
    assert list(inspect.signature(for_model.__func__).parameters) == [
        "cls",
        "bases",
        "namespace",
        "kwargs",
    ]


def test_deferred_acp_models_speak_exactly_as_eager_ones() -> None:
    eager: dict[str, Any] = {}
    exec(WIRE_SAMPLE, eager)  # this process imported acp.schema the ordinary way
    lean = _fresh(
        "from adapter.lean_imports import prepare_acp_schema\n"
        "prepare_acp_schema()\n"
        "from acp import schema\n"
        "deferred = not schema.SessionNotification.__pydantic_complete__\n"
        "described = any(f.description for f in schema.AgentCapabilities.model_fields.values())\n"
        + WIRE_SAMPLE
        + "print(json.dumps({'deferred': deferred, 'described': described, 'dumped': dumped}))"
    )
    assert lean["deferred"] is True  # built on first use, not at import
    assert lean["described"] is False  # the docstring pass was skipped
    assert lean["dumped"] == json.loads(json.dumps(eager["dumped"]))


def test_the_lean_sdk_gives_the_same_objects_without_importing_mcp() -> None:
    got = _fresh(
        "import json, sys\n"
        "from adapter.lean_imports import lean_claude_sdk\n"
        "lean_claude_sdk()\n"
        "import adapter.claude.sdk_compat, adapter.claude.claude_runtime\n"
        "import adapter.session.claude_side, adapter.claude.session_store\n"
        "import claude_agent_sdk._internal.query  # what ClaudeSDKClient.connect imports\n"
        "import claude_agent_sdk as sdk\n"
        "from adapter.lean_imports import reexported_names\n"
        "from pathlib import Path\n"
        "names = reexported_names(Path(sdk.__file__))\n"
        "lean_mcp = sorted(m for m in ('mcp', 'jsonschema') if m in sys.modules)\n"
        "resolved = {n: getattr(sdk, n) for n in names}\n"
        "server = sdk.create_sdk_mcp_server('calc')  # defined by __init__: all of it loads\n"
        "from claude_agent_sdk._internal import query\n"
        "bridge = query.SdkMcpBridge('calc', server['instance'])\n"
        "real_bridge = type(bridge).__module__ + '.' + type(bridge).__name__\n"
        "same = [n for n in names if sdk.__dict__[n] is resolved[n]]\n"
        "missing = [n for n in sdk.__all__ if not hasattr(sdk, n)]\n"
        "print(json.dumps({'lean_mcp': lean_mcp, 'names': sorted(names), 'same': sorted(same),\n"
        "    'missing': missing, 'full_mcp': 'mcp' in sys.modules, 'bridge': real_bridge}))"
    )
    assert got["lean_mcp"] == []  # the adapter's whole SDK surface loads without mcp
    assert "ClaudeSDKClient" in got["names"] and "fork_session" in got["names"]
    assert got["same"] == got["names"]  # each lean name is the object __init__ exports
    assert got["missing"] == [] and got["full_mcp"] is True
    # An in-process MCP server still gets the SDK's real bridge through the stand-in.
    assert got["bridge"] == f"{MCP_BRIDGE}.SdkMcpBridge"


def test_the_sdks_query_only_calls_its_mcp_bridge() -> None:
    # The stand-in offers a factory under the class's name: enough while Query only calls it.
    from claude_agent_sdk._internal import query

    tree = ast.parse(Path(query.__file__ or "").read_text(encoding="utf-8"))
    uses = [
        node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "SdkMcpBridge"
    ]
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "SdkMcpBridge"
    ]
    assert len(uses) == len(calls) == 1


def test_the_sdk_init_still_reexports_what_the_adapter_imports_from_it() -> None:
    import claude_agent_sdk

    names = reexported_names(Path(claude_agent_sdk.__file__ or ""))
    used = {
        "AssistantMessage",
        "CLIConnectionError",
        "CLIJSONDecodeError",
        "CLINotFoundError",
        "ClaudeAgentOptions",
        "ClaudeSDKClient",
        "RateLimitEvent",
        "ResultMessage",
        "StreamEvent",
        "SystemMessage",
        "TextBlock",
        "ToolUseBlock",
        "UserMessage",
        "fork_session",
        "list_sessions",
    }
    assert used <= set(names)
    assert names["ClaudeSDKClient"] == (".client", "ClaudeSDKClient")
    assert claude_agent_sdk.__name__ == SDK_PACKAGE


# Dataclasses of every kind the adapter and the SDK define, and what each instance says.
DATACLASS_SAMPLE = """
import dataclasses, json
from dataclasses import dataclass, field

@dataclass(frozen=True, slots=True)
class Frozen:
    name: str
    size: int = 3
    tags: tuple[str, ...] = ()

@dataclass(order=True, kw_only=True)
class Ordered:
    rank: int
    items: list[int] = field(default_factory=list)
    hidden: str = field(default="h", repr=False, compare=False)

@dataclass(eq=False)
class Plain:
    value: object = None

a, b = Frozen("x"), Frozen("x", 4, ("t",))
try:
    a.name = "y"
    frozen_refused = False
except dataclasses.FrozenInstanceError:
    frozen_refused = True
facts = {
    "reprs": [repr(a), repr(b), repr(Ordered(rank=1)), repr(Ordered(rank=2, items=[1]))],
    "eq": [a == Frozen("x"), a == b, Ordered(rank=1, hidden="a") == Ordered(rank=1)],
    "hash": hash(a) == hash(Frozen("x")),
    "order": sorted([Ordered(rank=2), Ordered(rank=1)]) == [Ordered(rank=1), Ordered(rank=2)],
    "fresh_lists": Ordered(rank=1).items is not Ordered(rank=1).items,
    "identity_eq": Plain() != Plain(),
    "frozen_refused": frozen_refused,
    "slots": Frozen.__slots__,
    "fields": [f.name for f in dataclasses.fields(Ordered)],
}
"""


def _cached_dataclasses(cache: Path, *, env: dict[str, str] | None = None) -> Any:
    """Define `DATACLASS_SAMPLE`'s classes in a fresh interpreter with the dataclass code cache
    at `cache`, and save it; what they did and what the cache saw."""
    return printed_json(
        (
            "import json, sys\n"
            "from pathlib import Path\n"
            "from adapter.lean_imports import cache_dataclass_code\n"
            f"code = cache_dataclass_code(Path({str(cache)!r}))\n"
            + DATACLASS_SAMPLE
            + "saved = code.save()\n"
            "print(json.dumps({'facts': facts, 'hits': code.hits,"
            " 'compiled': len(code.stored) if saved else len(code.new), 'saved': saved}))"
        ),
        # Written as Python writes bytecode: not where the caller's shell says not to.
        env={
            **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
            **(env or {}),
        },
    )


def test_dataclasses_built_from_cached_code_behave_as_compiled_ones(tmp_path: Path) -> None:
    ordinary: dict[str, Any] = {}
    exec(DATACLASS_SAMPLE, ordinary)
    expected = json.loads(json.dumps(ordinary["facts"]))
    cache = tmp_path / "dataclass-code.marshal"
    first = _cached_dataclasses(cache)
    assert first["hits"] == 0 and first["saved"] is True and cache.exists()
    assert first["facts"] == expected
    second = _cached_dataclasses(cache)
    # Every generated method came from the cache: nothing compiled, nothing to save. (Python 3.11
    # and 3.12 compile each method on its own; 3.13 compiles a class's methods in one source.)
    assert first["compiled"] >= 3
    assert second["hits"] >= first["compiled"]
    assert second["saved"] is False and second["compiled"] == 0
    assert second["facts"] == expected


def test_a_foreign_or_broken_dataclass_code_cache_is_compiled_over(tmp_path: Path) -> None:
    cache = tmp_path / "dataclass-code.marshal"
    for junk in (b"not marshal at all", marshal.dumps((0, b"", "other"), 4), b""):
        cache.write_bytes(junk)
        got = _cached_dataclasses(cache)
        assert got["hits"] == 0 and got["saved"] is True
    assert _cached_dataclasses(cache)["hits"] > 0  # the file written over it is read


def test_no_dataclass_code_cache_is_written_without_bytecode(tmp_path: Path) -> None:
    cache = tmp_path / "dataclass-code.marshal"
    got = _cached_dataclasses(cache, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert got["saved"] is False and not cache.exists()


def test_the_dataclass_code_cache_lives_beside_the_adapters_bytecode() -> None:
    got = _fresh(
        "import importlib.util, json\n"
        "from adapter import lean_imports\n"
        "path = lean_imports._code_path()\n"
        "pyc = importlib.util.cache_from_source(lean_imports.__file__)\n"
        "print(json.dumps({'path': str(path), 'pyc': pyc}))"
    )
    assert Path(got["path"]).parent == Path(got["pyc"]).parent
    tag = sys.implementation.cache_tag
    assert Path(got["path"]).name == f"{DATACLASS_CODE_PREFIX}.{tag}.marshal"


# What the SDK's transport does at each spawn (`SubprocessCLITransport.connect`), inside a
# request's span as acp opens one, and after `setup` (which may give the context a span or
# baggage: a host process with a tracer provider makes acp's span a real one).
PROPAGATION = """
import json, sys
LEAN = {lean}
if LEAN:
    from adapter.lean_imports import prepare_imports
    prepare_imports()
import acp  # as the agent does: acp imports opentelemetry.trace for its request spans
from acp.telemetry import span_context
from opentelemetry import trace
request = span_context("acp.request", attributes={{"method": "session/new"}})
request.__enter__()  # (kept: a context manager collected leaves its context)
{setup}
from opentelemetry import propagate
carrier = {{}}
propagate.inject(carrier{context})
loaded = [m for m in ("opentelemetry.baggage", "opentelemetry.propagators") if m in sys.modules]
print(json.dumps({{"carrier": carrier, "loaded": loaded}}))
"""
A_SPAN = (
    "span = trace.NonRecordingSpan(trace.SpanContext(trace_id=0x0AF7651916CD43DD8448EB211C80319C,"
    " span_id=0x00F067AA0BA902B7, is_remote=False, trace_flags=trace.TraceFlags(1)))\n"
)
PROPAGATION_CASES = {
    "nothing": ("", ""),
    "a current span": (A_SPAN + "using = trace.use_span(span)\nusing.__enter__()", ""),
    "a span in the context passed": (A_SPAN + "passed = trace.set_span_in_context(span)", "passed"),
    "baggage": (
        "from opentelemetry import baggage, context\n"
        "context.attach(baggage.set_baggage('tenant', 'a'))",
        "",
    ),
}


def _propagated(lean: bool, setup: str, context: str, env: dict[str, str]) -> Any:
    code = PROPAGATION.format(lean=lean, setup=setup, context=f", {context}" if context else "")
    return printed_json(
        code, env={**{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}, **env}
    )


def test_the_trace_context_stand_in_passes_on_what_the_real_module_does() -> None:
    for case, (setup, context) in PROPAGATION_CASES.items():
        for env in ({}, {"OTEL_PROPAGATORS": "tracecontext,baggage"}):
            lean = _propagated(True, setup, context, env)
            real = _propagated(False, setup, context, env)
            assert lean["carrier"] == real["carrier"], (case, env)
            if case == "nothing":
                assert real["carrier"] == {}
            else:
                assert real["carrier"] != {}, (case, env)  # the case is not vacuous
            # Nothing to pass on, the default propagators: the real module is not imported.
            nothing = case == "nothing" and not env
            assert (lean["loaded"] == []) is nothing, (case, env, lean["loaded"])


def test_the_sdk_imports_the_propagation_module_at_the_spawn_and_only_injects() -> None:
    # The stand-in serves `inject`; a transport that used anything else would load the real
    # module at each spawn (still correct, but the cost is back).
    from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

    source = inspect.getsource(SubprocessCLITransport.connect)
    assert "from opentelemetry import propagate" in source
    used = {
        node.attr
        for node in ast.walk(ast.parse(textwrap.dedent(source)))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "propagate"
    }
    assert used == {"inject"}


# anyio's lazily loaded names, in a fresh interpreter: with the lean import and the dataclass
# code cache at a given path (or neither), what `anyio` and `anyio.abc` offer, and whether
# anyio read its own source to learn them.
ANYIO_NAMES = """
import inspect, json, sys
from pathlib import Path
read = []
getsource = inspect.getsource
def noting(obj):
    read.append(getattr(obj, "__name__", "?"))
    return getsource(obj)
inspect.getsource = noting
LEAN = {lean}
if LEAN:
    from adapter.lean_imports import cache_dataclass_code, lean_anyio_names
    code = cache_dataclass_code(Path({cache!r}))
    lean_anyio_names()
import anyio, anyio.abc
names = {{"anyio": sorted(dir(anyio)), "anyio.abc": sorted(dir(anyio.abc))}}
resolved = [anyio.create_task_group.__module__, anyio.abc.Process.__name__]
saved = code.save() if LEAN else False
print(json.dumps({{"names": names, "resolved": resolved, "read": sorted(read), "saved": saved}}))
"""


def _anyio_names(lean: bool, cache: Path) -> Any:
    return printed_json(
        ANYIO_NAMES.format(lean=lean, cache=str(cache)),
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )


def test_anyios_lazy_names_come_from_the_cache_and_are_the_ones_it_reads(tmp_path: Path) -> None:
    cache = tmp_path / "dataclass-code.marshal"
    ordinary = _anyio_names(False, cache)
    first = _anyio_names(True, cache)
    second = _anyio_names(True, cache)
    assert ordinary["read"] == ["anyio", "anyio.abc"]  # what anyio does without the cache
    assert first["read"] == ordinary["read"] and first["saved"] is True
    assert second["read"] == []  # both lists of names came from the cache
    assert first["names"] == second["names"] == ordinary["names"]
    assert len(ordinary["names"]["anyio"]) > 50 and "Process" in ordinary["names"]["anyio.abc"]
    assert first["resolved"] == second["resolved"] == ordinary["resolved"]


def test_anyio_still_learns_its_lazy_names_the_way_the_lean_import_caches() -> None:
    from anyio import _lazyimport

    assert list(inspect.signature(_lazyimport._build_lazy_map).parameters) == ["module"]
    source = inspect.getsource(_lazyimport.install_lazy_importer)
    assert "_build_lazy_map(module)" in source
