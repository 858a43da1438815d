"""An MCP server's elicitation as an ACP form, and the client's answer as the server takes it.

Pure functions. An MCP server asks through Claude Code's `Elicitation` hook (see
`adapter.controls.mcp_elicitation`) with a `message` and a `requested_schema`, a flat JSON
object schema of primitive fields. ACP's form schema (`acp.schema.ElicitationSchema`) takes the
same primitives, so each field is carried over with only the keys ACP knows for its type:

| MCP field                                    | ACP field                                   |
|----------------------------------------------|---------------------------------------------|
| `string` (+ `enum` / `oneOf`, `format`, ...) | the same `string` field                     |
| `number`, `integer` (+ `minimum`, `maximum`) | the same field                              |
| `boolean`                                    | the same field                              |
| `array` of `enum` strings or `anyOf` consts   | the same multi-select field                 |
| anything else (objects, nested arrays, ...)  | left out; the form cannot be shown at all   |
|                                              | when a required field was left out          |

The answer (`fit_answer`) keeps what fits the form: known fields only, each value of its
field's type and among its options; a value that does not fit is dropped, and an answer that
then lacks a required field is no answer (None).
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["FormFields", "fit_answer", "form_fields"]

log = logging.getLogger(__name__)

FormFields = dict[str, dict[str, Any]]

_COMMON = ("title", "description")
# The keys ACP's form schema keeps for each field type, and the JSON type of each key's value.
_KEYS: dict[str, dict[str, tuple[type, ...]]] = {
    "string": {
        "minLength": (int,),
        "maxLength": (int,),
        "pattern": (str,),
        "format": (str,),
        "default": (str,),
    },
    "number": {"minimum": (int, float), "maximum": (int, float), "default": (int, float)},
    "integer": {"minimum": (int,), "maximum": (int,), "default": (int,)},
    "boolean": {"default": (bool,)},
    "array": {"minItems": (int,), "maxItems": (int,)},
}


def form_fields(schema: Any) -> tuple[FormFields, list[str]] | None:
    """(the ACP fields, the required names) for an MCP `requested_schema`; None when a
    required field has a shape ACP's form cannot show (the server would get no valid answer)."""
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    fields: FormFields = {}
    for name, spec in properties.items():
        field = _field(spec)
        if isinstance(name, str) and field is not None:
            fields[name] = field
        else:
            log.info("an MCP form field of a shape ACP forms lack was left out")
    required = schema.get("required")
    names = [n for n in required if isinstance(n, str)] if isinstance(required, list) else []
    if any(n not in fields for n in names):
        return None
    return fields, names


def _field(spec: Any) -> dict[str, Any] | None:
    kind = spec.get("type") if isinstance(spec, dict) else None
    if not isinstance(kind, str) or kind not in _KEYS:
        return None
    assert isinstance(spec, dict)
    field: dict[str, Any] = {"type": kind}
    for key in _COMMON:
        if isinstance(spec.get(key), str):
            field[key] = spec[key]
    for key, types in _KEYS[kind].items():
        value = spec.get(key)
        if isinstance(value, types) and not (bool not in types and isinstance(value, bool)):
            field[key] = value
    if kind == "string":
        return _choices(spec, field)
    if kind == "array":
        return _multi(spec, field)
    return field


def _choices(spec: dict[str, Any], field: dict[str, Any]) -> dict[str, Any] | None:
    if "enum" in spec:
        enum = spec["enum"]
        if not isinstance(enum, list) or not enum or not all(isinstance(e, str) for e in enum):
            return None
        field["enum"] = enum
    if "oneOf" in spec:
        entries = _entries(spec["oneOf"])
        if entries is None:
            return None
        field["oneOf"] = entries
    return field


def _multi(spec: dict[str, Any], field: dict[str, Any]) -> dict[str, Any] | None:
    items = spec.get("items")
    items = items if isinstance(items, dict) else {}
    if "anyOf" in items:
        entries = _entries(items["anyOf"])
        if entries is None:
            return None
        field["items"] = {"anyOf": entries}
    else:
        enum = items.get("enum")
        if not isinstance(enum, list) or not enum or not all(isinstance(e, str) for e in enum):
            return None  # a multi-select needs its options
        field["items"] = {"type": "string", "enum": enum}
    default = spec.get("default")
    if isinstance(default, list) and all(isinstance(d, str) for d in default):
        field["default"] = default
    return field


def _entries(raw: Any) -> list[dict[str, str]] | None:
    """`{const, title}` options, or None when any is not one."""
    if not isinstance(raw, list) or not raw:
        return None
    entries = []
    for entry in raw:
        const = entry.get("const") if isinstance(entry, dict) else None
        if not isinstance(const, str):
            return None
        title = entry.get("title")
        entries.append({"const": const, "title": title if isinstance(title, str) else const})
    return entries


def fit_answer(fields: FormFields, required: list[str], content: Any) -> dict[str, Any] | None:
    """The part of an accepted form's `content` that fits `fields`; None when a required
    field is missing once the misfits are dropped."""
    content = content if isinstance(content, dict) else {}
    fitting = {
        name: value
        for name, value in content.items()
        if name in fields and _fits(fields[name], value)
    }
    dropped = len(content) - len(fitting)
    if dropped:
        log.warning("an MCP form answer: %d value(s) that do not fit the form, dropped", dropped)
    if any(name not in fitting for name in required):
        return None
    return fitting


def _fits(field: dict[str, Any], value: Any) -> bool:
    kind = field["type"]
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # JSON booleans are not numbers here, though Python's are
    if kind == "integer":
        return isinstance(value, int) and _within(field, value)
    if kind == "number":
        return isinstance(value, int | float) and _within(field, value)
    options = _options(field)
    if kind == "string":
        return isinstance(value, str) and (options is None or value in options)
    picks = value if isinstance(value, list) else None
    return picks is not None and all(isinstance(p, str) and p in (options or ()) for p in picks)


def _within(field: dict[str, Any], value: float) -> bool:
    low, high = field.get("minimum"), field.get("maximum")
    return (low is None or value >= low) and (high is None or value <= high)


def _options(field: dict[str, Any]) -> list[str] | None:
    """The values a choice field allows; None for free text."""
    source = field.get("items", field) if field["type"] == "array" else field
    if "oneOf" in source or "anyOf" in source:
        return [e["const"] for e in source.get("oneOf", source.get("anyOf", []))]
    enum = source.get("enum")
    return list(enum) if isinstance(enum, list) else None
