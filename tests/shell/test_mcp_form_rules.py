"""The pure rules behind MCP servers' forms: which schema fields an ACP form can
show, what is left out, and which answer values reach the server."""

from __future__ import annotations

from typing import Any

import pytest

from adapter.controls.mcp_form import fit_answer, form_fields

_CHOICE = {"type": "string", "title": "Env", "enum": ["a", "b"], "x-private": 1}


def test_each_primitive_keeps_the_keys_acp_knows_for_its_type() -> None:
    schema = {
        "type": "object",
        "properties": {
            "env": _CHOICE,
            "size": {"type": "number", "minimum": 0.5, "maximum": True, "unit": "GB"},
            "count": {"type": "integer", "minimum": 1.5, "default": 2},
            "on": {"type": "boolean", "default": "yes"},
            "name": {"type": "string", "minLength": 1, "format": "email", "default": 3},
            "pick": {"type": "string", "oneOf": [{"const": "x"}, {"const": "y", "title": "Y"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["t"]}, "maxItems": 1},
        },
    }
    assert form_fields(schema) == (
        {
            "env": {"type": "string", "title": "Env", "enum": ["a", "b"]},
            "size": {"type": "number", "minimum": 0.5},  # `maximum: true` is not a number
            "count": {"type": "integer", "default": 2},  # 1.5 is no integer minimum
            "on": {"type": "boolean"},
            "name": {"type": "string", "minLength": 1, "format": "email"},
            "pick": {
                "type": "string",
                "oneOf": [{"const": "x", "title": "x"}, {"const": "y", "title": "Y"}],
            },
            "tags": {"type": "array", "maxItems": 1, "items": {"type": "string", "enum": ["t"]}},
        },
        [],
    )


@pytest.mark.parametrize(
    "odd",
    [
        {"type": "object", "properties": {}},
        {"type": ["string", "null"]},
        {"enum": ["a"]},  # no type
        {"type": "string", "enum": [1, 2]},
        {"type": "string", "oneOf": [{"title": "no const"}]},
        {"type": "array", "items": {"type": "string"}},  # a multi-select without options
        "string",
    ],
)
def test_a_field_acp_cannot_show_is_left_out_and_a_required_one_stops_the_form(odd: Any) -> None:
    optional = {"properties": {"env": _CHOICE, "odd": odd}}
    shown = {k: _CHOICE[k] for k in ("type", "title", "enum")}
    assert form_fields(optional) == ({"env": shown}, [])
    assert form_fields({**optional, "required": ["odd"]}) is None


@pytest.mark.parametrize("schema", [None, [], "x", {"properties": []}, {"required": "env"}])
def test_a_schema_of_no_shape_is_an_empty_form(schema: Any) -> None:
    assert form_fields(schema) == ({}, [])


def test_a_required_name_with_no_field_stops_the_form() -> None:
    assert form_fields({"properties": {}, "required": ["ghost"]}) is None


def test_only_values_that_fit_reach_the_server() -> None:
    shaped = form_fields(
        {
            "properties": {
                "env": _CHOICE,
                "n": {"type": "integer", "minimum": 1, "maximum": 3},
                "x": {"type": "number"},
                "on": {"type": "boolean"},
                "text": {"type": "string"},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "t"}, {"const": "u"}]}},
            },
            "required": ["env"],
        }
    )
    assert shaped is not None
    fields, required = shaped
    good = {"env": "a", "n": 3, "x": 1.5, "on": False, "text": "", "tags": ["u", "t"]}
    assert fit_answer(fields, required, good) == good
    bad = {"n": 4, "x": True, "on": 1, "text": None, "tags": ["v"], "more": "?"}
    assert fit_answer(fields, required, {"env": "b", **bad}) == {"env": "b"}
    assert fit_answer(fields, required, {"env": "c"}) is None  # not an option
    assert fit_answer(fields, required, {"n": 1}) is None  # the required value is missing
    assert fit_answer(fields, required, "env=a") is None
    assert fit_answer(fields, [], None) == {}
