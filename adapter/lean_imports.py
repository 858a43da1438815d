"""Start-up without paying for what the adapter never uses: import-time touchpoints, and the
garbage collector paused while the process starts.

Measured with `python -X importtime` on the pinned releases (2 cores, quiet machine), these two
imports were most of the time from spawn to the first `session/new` answer:

- `acp.schema` (~270 ms): its 273 pydantic models are built eagerly, and its base model sets
  `use_attribute_docstrings`, so pydantic reads and parses the module's source with `ast` for
  every class. `prepare_acp_schema` builds those models with `defer_build` (each is built the
  first time it is used; a session uses a few dozen) and without the docstring pass (the
  docstrings only ever become JSON-schema descriptions, which the adapter never asks for).
  Validation and serialization are unchanged. It reaches into pydantic's private
  `ConfigWrapper.for_model`, only while `acp.schema` is being imported.
- `claude_agent_sdk` (~410 ms): its package `__init__` imports `mcp` and `jsonschema` to define
  the in-process MCP server helpers (`tool`, `create_sdk_mcp_server`), which the adapter does not
  use; the client, transport, types and session functions need neither. `lean_claude_sdk`
  registers the package without running `__init__` and resolves each name `__init__` re-exports
  from a submodule to that very object, on first use. The first name `__init__` defines itself
  (say `create_sdk_mcp_server`) runs the real `__init__` in the same module, so anything that
  wants the whole SDK still gets it. The SDK's `Query` imports `mcp` too, through its MCP bridge
  module, which a stand-in replaces until a bridge is built.
- `anyio` (~6 M instructions): `anyio` and `anyio.abc` parse their own source with `ast`
  (`anyio._lazyimport._build_lazy_map`) to learn the names they load lazily, in every process.
  `lean_anyio_names` keeps what that returns in the dataclass code cache (below), keyed by the
  file's path, size and modification time, as Python's bytecode is.
- `opentelemetry.propagate` (~1.6 ms of every first session's way to its spawn): the SDK's
  transport imports it in `connect`, right before spawning Claude, to pass an active span's
  trace context on in Claude's environment. The adapter starts no span of its own, and acp's
  request spans are empty ones unless the process was given a tracer provider: a stand-in
  (`lean_trace_propagation`) leaves the carrier as the real module would when the context holds
  no span and no baggage and the propagators are the default ones, and hands everything else,
  and every other name, to the real module.

They must run before the first `import acp` / `import claude_agent_sdk` of the process, which is
why they live here and not in `adapter/claude/sdk_compat.py` (which imports the SDK).
`tests/shell/test_lean_imports.py` pins them, and the end-to-end tests run every adapter
subprocess through them.

`pause_collection` / `resume_collection`: the cyclic garbage collector is off while the process
starts (`claude-acp`'s `main`, until serving begins). Those imports make hundreds of thousands of
objects and next to no garbage, yet each full collection walked everything made so far: about
50 million instructions before the answer to `initialize`, counted with callgrind
(docs/performance.md). Serving turns it back on, after freezing what start-up made.

A third touchpoint, `cache_dataclass_code`, keeps the code `dataclasses` generates for each
class between processes, beside the adapter's bytecode: the first session request of a process
puts it in place (`adapter.agent.session_opener.opens_a_session`), before it imports the session
side, which it does with the collector paused the same way.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import gc
import importlib
import importlib.util
import inspect
import logging
import marshal
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

__all__ = [
    "DATACLASS_CODE_PREFIX",
    "MCP_BRIDGE",
    "PROPAGATE",
    "SDK_PACKAGE",
    "DataclassCode",
    "cache_dataclass_code",
    "dataclass_code_unsaved",
    "lean_anyio_names",
    "lean_claude_sdk",
    "lean_trace_propagation",
    "pause_collection",
    "prepare_acp_schema",
    "prepare_imports",
    "resume_collection",
    "save_dataclass_code",
]

log = logging.getLogger(__name__)

SDK_PACKAGE = "claude_agent_sdk"
ACP_SCHEMA = "acp.schema"
MCP_BRIDGE = f"{SDK_PACKAGE}._internal.sdk_mcp_bridge"
ANYIO_LAZY = "anyio._lazyimport"
PROPAGATE = "opentelemetry.propagate"


_paused: list[bool] = []


def pause_collection() -> bool:
    """Turn the cyclic garbage collector off until `resume_collection` (if it was on); whether
    this call paused it (False: it was off, or paused already)."""
    if gc.isenabled() and not _paused:
        gc.disable()
        _paused.append(True)
        return True
    return False


def resume_collection() -> None:
    """Turn the collector back on if `pause_collection` turned it off; what the process made
    until now is frozen first (it lives as long as the process: no collection need scan it)."""
    if _paused:
        _paused.clear()
        gc.freeze()
        gc.enable()


def prepare_imports() -> None:
    """All four changes, for a process that is about to serve ACP."""
    prepare_acp_schema()
    lean_claude_sdk()
    lean_trace_propagation()
    lean_anyio_names()


def prepare_acp_schema() -> None:
    """Import `acp.schema` with its models deferred and without the docstring pass."""
    if ACP_SCHEMA in sys.modules:  # too late: someone imported it already (tests, in-process)
        return
    with _deferred_models(ACP_SCHEMA):
        importlib.import_module(ACP_SCHEMA)


@contextmanager
def _deferred_models(module_name: str) -> Iterator[None]:
    from pydantic._internal._config import ConfigWrapper

    original = ConfigWrapper.__dict__["for_model"]
    build = original.__func__
    if list(inspect.signature(build).parameters) != ["cls", "bases", "namespace", "kwargs"]:
        log.debug("pydantic's ConfigWrapper.for_model changed; building acp's models eagerly")
        yield
        return

    def for_model(
        cls: type[ConfigWrapper],
        bases: tuple[type[Any], ...],
        namespace: dict[str, Any],
        kwargs: dict[str, Any],
    ) -> ConfigWrapper:
        wrapper: ConfigWrapper = build(cls, bases, namespace, kwargs)
        if namespace.get("__module__") == module_name:
            wrapper.config_dict["defer_build"] = True
            wrapper.config_dict["use_attribute_docstrings"] = False
        return wrapper

    ConfigWrapper.for_model = classmethod(for_model)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        ConfigWrapper.for_model = original  # type: ignore[method-assign]


def lean_claude_sdk() -> None:
    """Register `claude_agent_sdk` so that its names load from their submodules on first use."""
    if SDK_PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(SDK_PACKAGE)
    if spec is None or spec.origin is None or spec.loader is None:
        return  # not installed: the import error comes where the SDK is first used
    try:
        reexports = reexported_names(Path(spec.origin))
    except (OSError, SyntaxError, ValueError):
        log.debug("could not read %s; importing the SDK whole", spec.origin, exc_info=True)
        return
    package = importlib.util.module_from_spec(spec)
    package.__getattr__ = _resolver(package, reexports, spec.loader.exec_module)  # type: ignore[method-assign]
    sys.modules[SDK_PACKAGE] = package
    sys.modules[MCP_BRIDGE] = _bridge_stand_in()


def _bridge_stand_in() -> ModuleType:
    """`_internal.sdk_mcp_bridge` until a Query is given an in-process MCP server.

    The SDK's `Query` imports `SdkMcpBridge` (and with it `mcp`) at the top of its module, but
    only calls it, once per in-process MCP server. The stand-in's `SdkMcpBridge` imports the real
    module on that first call and builds the real bridge; any other attribute does the same.
    """
    stand_in = ModuleType(MCP_BRIDGE, _bridge_stand_in.__doc__)

    def real() -> ModuleType:
        if sys.modules.get(MCP_BRIDGE) is stand_in:
            del sys.modules[MCP_BRIDGE]
        return importlib.import_module(MCP_BRIDGE)

    def bridge(*args: Any, **kwargs: Any) -> Any:
        return real().SdkMcpBridge(*args, **kwargs)

    def other(name: str) -> Any:
        if name.startswith("__"):  # the import system's probes (`__path__`...) must not load it
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in.SdkMcpBridge = bridge  # type: ignore[attr-defined]
    stand_in.__getattr__ = other  # type: ignore[method-assign]
    return stand_in


def lean_trace_propagation() -> None:
    """Stand in for `opentelemetry.propagate` until something needs more than an `inject` with
    nothing to inject (the SDK's, at each spawn); nothing when the real module is loaded."""
    if PROPAGATE not in sys.modules:
        sys.modules[PROPAGATE] = _propagate_stand_in()


def _propagate_stand_in() -> ModuleType:
    """`opentelemetry.propagate`, whose `inject` does what the real one does when there is
    nothing to inject (nothing), and otherwise imports the real module and calls its `inject`;
    any other attribute imports the real module too (which then replaces the stand-in)."""
    stand_in = ModuleType(PROPAGATE, _propagate_stand_in.__doc__)

    def real() -> ModuleType:
        if sys.modules.get(PROPAGATE) is stand_in:
            del sys.modules[PROPAGATE]
        return importlib.import_module(PROPAGATE)

    def inject(carrier: Any, context: Any = None, setter: Any = None) -> None:
        if sys.modules.get(PROPAGATE) is stand_in and _nothing_to_propagate(context):
            return
        module = real()
        if setter is None:
            module.inject(carrier, context)
        else:
            module.inject(carrier, context, setter)

    def other(name: str) -> Any:
        if name.startswith("__"):  # the import system's probes must not load it
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in.inject = inject  # type: ignore[attr-defined]
    stand_in.__getattr__ = other  # type: ignore[method-assign]
    return stand_in


def _nothing_to_propagate(context: Any) -> bool:
    """Whether the default propagators (W3C trace context, then baggage) would leave a carrier
    empty for `context` (None: the current one): no span context but the invalid one, no
    baggage. A span or baggage can only be there if `opentelemetry.trace` or
    `opentelemetry.baggage` was imported; propagators named in `OTEL_PROPAGATORS` are not
    judged here (the real module is used)."""
    if os.environ.get("OTEL_PROPAGATORS"):
        return False
    try:
        trace = sys.modules.get("opentelemetry.trace")
        if trace is not None:
            span = trace.get_current_span(context)
            if span.get_span_context() != trace.INVALID_SPAN_CONTEXT:
                return False
        baggage = sys.modules.get("opentelemetry.baggage")
        return baggage is None or not baggage.get_all(context)
    except Exception:  # an opentelemetry we do not know: the real module decides
        log.debug("could not tell whether a trace context is active", exc_info=True)
        return False


def lean_anyio_names() -> None:
    """Keep the names `anyio` and `anyio.abc` load lazily in the dataclass code cache, keyed by
    their file, its size and time (see the module doc); until `anyio` is imported."""
    if ANYIO_LAZY in sys.modules or any(isinstance(f, _LazyNamesFinder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _LazyNamesFinder())


class _LazyNamesFinder:
    """Finds `anyio._lazyimport` as the path finder does, with `_build_lazy_map` cached."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != ANYIO_LAZY:
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _CachingLazyNames(spec.loader)  # type: ignore[assignment]
        return spec


class _CachingLazyNames:
    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        build = getattr(module, "_build_lazy_map", None)
        if callable(build) and list(inspect.signature(build).parameters) == ["module"]:
            module._build_lazy_map = _cached_lazy_names(build)  # type: ignore[attr-defined]
        else:
            log.debug("anyio's _build_lazy_map changed; its names are read from source")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


def _cached_lazy_names(build: Callable[[ModuleType], Any]) -> Callable[[ModuleType], Any]:
    def cached(module: ModuleType) -> Any:
        file = getattr(module, "__file__", None)
        if _dataclass_code is None or not isinstance(file, str):
            return build(module)
        try:
            stat = os.stat(file)
        except OSError:
            return build(module)
        label = f"{ANYIO_LAZY}._build_lazy_map\0{file}\0{stat.st_size}\0{stat.st_mtime_ns}"
        return _dataclass_code.memo(label, lambda: build(module), _lazy_names_shape)

    return cached


def _lazy_names_shape(value: Any) -> bool:
    """What `_build_lazy_map` returns: (name -> (module, name), alias -> target, submodules)."""
    return (
        isinstance(value, tuple)
        and len(value) == 3
        and isinstance(value[0], dict)
        and isinstance(value[1], dict)
        and isinstance(value[2], list)
    )


def reexported_names(init_file: Path) -> dict[str, tuple[str, str]]:
    """`name -> (submodule, its name there)` for every `from .sub import name` in `__init__`."""
    tree = ast.parse(init_file.read_text(encoding="utf-8"), filename=str(init_file))
    names: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = (f".{node.module}", alias.name)
    return names


def _resolver(
    package: ModuleType,
    reexports: dict[str, tuple[str, str]],
    run_init: Callable[[ModuleType], None],
) -> Callable[[str], Any]:
    completed: list[bool] = []

    def resolve(name: str) -> Any:
        where = reexports.get(name)
        if where is not None:
            value = getattr(importlib.import_module(where[0], SDK_PACKAGE), where[1])
        elif completed or name.startswith("__"):
            # Dunder probes (`__file__` is set; `__all__`, `__wrapped__`...) must not cost mcp.
            raise AttributeError(f"module {SDK_PACKAGE!r} has no attribute {name!r}")
        else:
            completed.append(True)
            run_init(package)  # the real __init__, in this same module object
            if name not in package.__dict__:
                raise AttributeError(f"module {SDK_PACKAGE!r} has no attribute {name!r}")
            value = package.__dict__[name]
        setattr(package, name, value)
        return value

    return resolve


# The dataclass code cache: see `cache_dataclass_code`.
DATACLASS_CODE_PREFIX = "dataclass-code"
_CODE_FORMAT = 1
# Bounds: a file larger than this is not ours; past this many entries, a save keeps only the
# entries this process used and compiled (code that changed leaves entries nobody asks for).
_CODE_FILE_LIMIT = 16 * 1024 * 1024
_CODE_ENTRIES_KEPT = 8_000


class DataclassCode:
    """`dataclasses`' `exec`, with the code of each generated method read from the cache
    when it has it: the same source text compiles to the same code, so a hit is exact."""

    def __init__(self, path: Path | None, stored: dict[bytes, bytes]) -> None:
        import hashlib  # here: this module runs before anything else is imported

        self._digest = hashlib.blake2b
        self.path = path
        self.stored = stored
        self.new: dict[bytes, bytes] = {}  # compiled here, not yet saved
        self.used: set[bytes] = set()  # keys of `stored` this process read
        self.hits = 0

    def exec(self, source: Any, globals: dict[str, Any] | None = None, locals: Any = None) -> None:
        if not isinstance(source, str):
            builtins.exec(source, globals, locals)
            return
        key = self._digest(source.encode("utf-8"), digest_size=16).digest()
        code = self._stored_code(key)
        if code is None:
            # What `exec(source)` compiles in `dataclasses`, which has no `__future__` import.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.new[key] = marshal.dumps(code)
        builtins.exec(code, globals, locals)

    def memo(self, label: str, make: Callable[[], Any], valid: Callable[[Any], bool]) -> Any:
        """The value kept under `label` (a text that names it exactly) if `valid` takes it,
        else `make()`, kept for the next process (when `marshal` can write it)."""
        key = self._digest(label.encode("utf-8", "surrogateescape"), digest_size=16).digest()
        blob = self.stored.get(key)
        if blob is not None:
            try:
                value = marshal.loads(blob)
            except (EOFError, ValueError, TypeError):
                value = None
            if valid(value):
                self.used.add(key)
                self.hits += 1
                return value
            del self.stored[key]
        value = make()
        with contextlib.suppress(ValueError):
            self.new[key] = marshal.dumps(value)
        return value

    def _stored_code(self, key: bytes) -> CodeType | None:
        blob = self.stored.get(key)
        if blob is None:
            return None
        try:
            code = marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            code = None
        if not isinstance(code, CodeType):
            del self.stored[key]  # unreadable: compiled again, and replaced at the next save
            return None
        self.used.add(key)
        self.hits += 1
        return code

    def save(self) -> bool:
        """Write what was compiled since the last save (atomically: a concurrent reader sees the
        old file or the new one); False when there was nothing to write or it could not be."""
        if not self.new or self.path is None or sys.dont_write_bytecode:
            return False
        import tempfile

        entries = {**self.stored, **self.new}
        if len(entries) > _CODE_ENTRIES_KEPT:
            entries = {**{k: self.stored[k] for k in self.used if k in self.stored}, **self.new}
        data = marshal.dumps((_code_header(), entries))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(temporary, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as exc:
            log.debug("could not save the dataclass code cache %s: %s", self.path, exc)
            self.path = None  # a folder we cannot write: do not try again
            return False
        self.stored, self.new = entries, {}
        return True


_dataclass_code: DataclassCode | None = None


def cache_dataclass_code(path: Path | None = None) -> DataclassCode:
    """Have `dataclasses` take each generated method's code from a cache beside the adapter's
    bytecode (`<__pycache__>/dataclass-code.<tag>.marshal`), compiling only what it lacks.

    Python 3.11 and 3.12 compile every `__init__`, `__repr__`, `__eq__`, `__hash__` and frozen
    `__setattr__`/`__delattr__` of every dataclass from source text, each time a process
    defines the class: measured with callgrind, 40% of the instructions the first session of a
    process spends importing the session side (813 methods: the SDK's types, the core's events
    and effects), and 368 methods before `initialize`. A code object read back with `marshal`
    costs about a twentieth of compiling it. The cache is keyed by a hash of the exact source,
    so it is never stale; it lives where Python keeps the adapter's bytecode (and is written
    under the same rule, not under `PYTHONDONTWRITEBYTECODE`); an unreadable or foreign file
    is ignored. `DataclassCode.save` writes what a process compiled. Idempotent.
    """
    global _dataclass_code
    if _dataclass_code is None:
        import dataclasses

        path = path if path is not None else _code_path()
        _dataclass_code = DataclassCode(path, _read_code(path))
        dataclasses.exec = _dataclass_code.exec  # type: ignore[attr-defined]
    return _dataclass_code


def dataclass_code_unsaved() -> bool:
    """Whether the dataclass code cache compiled something it has not saved yet."""
    return _dataclass_code is not None and bool(_dataclass_code.new)


def save_dataclass_code() -> bool:
    """Save what the dataclass code cache compiled since its last save (see `DataclassCode`)."""
    return _dataclass_code is not None and _dataclass_code.save()


def _code_header() -> tuple[int, bytes, str]:
    return (_CODE_FORMAT, importlib.util.MAGIC_NUMBER, sys.implementation.cache_tag or "")


def _code_path() -> Path | None:
    try:
        bytecode = importlib.util.cache_from_source(__file__)
    except (NotImplementedError, ValueError):
        return None  # no bytecode cache in this interpreter
    tag = sys.implementation.cache_tag
    return Path(bytecode).with_name(f"{DATACLASS_CODE_PREFIX}.{tag}.marshal")


def _read_code(path: Path | None) -> dict[bytes, bytes]:
    if path is None:
        return {}
    try:
        with path.open("rb") as file:
            raw = file.read(_CODE_FILE_LIMIT + 1)
        if len(raw) > _CODE_FILE_LIMIT:
            return {}
        header, entries = marshal.loads(raw)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if header != _code_header() or not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(k, bytes) and isinstance(v, bytes)}
