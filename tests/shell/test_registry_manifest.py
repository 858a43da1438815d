"""The ACP registry manifest (`agent.json`): valid against the registry's published schema, and
in step with `pyproject.toml`, so an editor that installs claude-acp from the registry gets the
release this checkout describes."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema

from tests.support.harness import ROOT

SCHEMA = ROOT / "tests" / "data" / "acp_registry" / "agent.schema.json"


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _project() -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    return project


def test_the_manifest_is_valid_against_the_registry_schema() -> None:
    schema = _json(SCHEMA)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(_json(ROOT / "agent.json")), key=str)
    assert errors == []


def test_the_schema_copy_is_the_registry_one_and_rejects_what_it_should() -> None:
    # A stub schema would pass anything: this one refuses an unknown distribution kind and an
    # id with capitals, as the registry's does.
    schema = _json(SCHEMA)
    assert (
        schema["$id"] == "https://cdn.agentclientprotocol.com/registry/v1/latest/agent.schema.json"
    )
    manifest = _json(ROOT / "agent.json")
    validator = jsonschema.Draft7Validator(schema)
    assert not validator.is_valid({**manifest, "id": "Claude-ACP"})
    assert not validator.is_valid({**manifest, "distribution": {"pip": {"package": "x"}}})
    assert not validator.is_valid({k: v for k, v in manifest.items() if k != "description"})
    source = (SCHEMA.parent / "SOURCE.md").read_text("utf-8")
    assert "agentclientprotocol/registry" in source and "commit: `" in source


def test_the_manifest_version_and_package_pin_are_pyproject_s() -> None:
    manifest = _json(ROOT / "agent.json")
    project = _project()
    assert manifest["version"] == project["version"]
    assert manifest["distribution"]["uvx"]["package"] == f"{project['name']}=={project['version']}"
    # The registry runs `uvx <package> [args]`: the package's console script serves ACP.
    assert project["name"] in project["scripts"]
    assert manifest["distribution"]["uvx"].get("args", []) == []


def test_the_manifest_says_what_pyproject_says_about_licence_and_authors() -> None:
    manifest = _json(ROOT / "agent.json")
    project = _project()
    assert manifest["license"] == project["license"] == "Apache-2.0"
    assert manifest["license_url"] == project["urls"]["License"]
    assert manifest["authors"] == [a["name"] for a in project["authors"]]
    assert manifest["description"].strip() and "3.11" in manifest["description"]
