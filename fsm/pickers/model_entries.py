"""The model picker's entries under the settings' policy (`fsm.pickers.model_policy`), and
the names they show, as the reference adapter decides them (`applyAvailableModelsAllowlist`,
`isDeniedModel`, `resolveModelPreference`, `versionedModelDisplayName`:
docs/reference-adapter.md#model-entries).

Theory of operation: Claude Code's model list is already filtered by its own policy. Where the
settings name an allowlist (`availableModels`), the picker is rebuilt from it so that the user's
own spellings (and their `modelOverrides` targets) are the values a choice sends to Claude Code:
`default` first (always kept, even for an empty list), then each entry in the list's order, with
the names and abilities of the closest entry of Claude Code's (`resolve_model_preference`), or
its own spelling as its name when none is close; an entry the managed `deniedModels` blocks
(by its spelling, its override or the model it resolves to) is left out, and so is a repeat.
The custom model option (`ANTHROPIC_CUSTOM_MODEL_OPTION`) is exempt, as the default is. Without
an allowlist Claude Code's list stands.

Names: a terse label of one model family ("Opus", "Claude Sonnet", "Sonnet (1M context)") gets
its version from the entry's resolved id, description or value ("Opus 4.1", "Sonnet 4.5 (1M
context)"); a label that is not versionable, or a version that would make two names the same,
keeps Claude Code's label; names that are still the same get their value added ("Opus
(opus-4-1)"). Pure functions of their arguments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from fsm.pickers.model_policy import ModelPolicy
from fsm.pickers.values import canonical_model_id

__all__ = [
    "AllowedModel",
    "ModelFacts",
    "allowed_models",
    "is_denied_model",
    "model_display_names",
    "resolve_model_preference",
]

_DEFAULT = "default"
_FAMILIES = frozenset({"opus", "sonnet", "haiku", "fable"})
_CONTEXT_HINT = re.compile(r"\[(\d+m)\]$", re.IGNORECASE | re.ASCII)
_CONTEXT_HINTS = re.compile(r"\[\d+m\]", re.IGNORECASE | re.ASCII)
_CONTEXT_SUFFIX = re.compile(r"-(\d+m)$", re.IGNORECASE | re.ASCII)
_FAMILY_VERSION = re.compile(r"\b(\d+)(?:[-.](\d+))?\b", re.ASCII)
_VERSIONABLE = re.compile(
    r"(?:Claude\s+)?([a-z][a-z0-9-]*)(?:\s+\d+(?:\.\d+)?)?(?:\s+\(\d+[mk]\s+context\))?",
    re.IGNORECASE | re.ASCII,
)
_DISPLAY_CONTEXT = re.compile(r"\s+\((\d+[mk])\s+context\)$", re.IGNORECASE | re.ASCII)
_A_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b", re.ASCII)


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """What one entry of Claude Code's model list says about itself."""

    value: str
    name: str
    description: str | None = None
    resolved: str | None = None  # the full model id Claude Code resolves the entry to


@dataclass(frozen=True, slots=True)
class AllowedModel:
    """One entry of an allowlisted picker: its `value`, and the entry of Claude Code's list it
    takes its name and abilities from (`source`, an index; None: none is close, and `name` is
    the user's own spelling)."""

    value: str
    source: int | None
    name: str


def _strip_hints(value: str) -> str:
    return _CONTEXT_SUFFIX.sub("", _CONTEXT_HINTS.sub("", value))


def _hint_of(value: str) -> str | None:
    match = _CONTEXT_HINT.search(canonical_model_id(value))
    return match.group(1) if match else None


def _family_version(value: str | None) -> str | None:
    match = _FAMILY_VERSION.search(_strip_hints(value)) if value else None
    if match is None:
        return None
    return f"{match.group(1)}.{match.group(2)}" if match.group(2) else match.group(1)


def _versions_compatible(preference: str, candidate: ModelFacts) -> bool:
    preferred = _family_version(preference)
    if preferred is None:
        return True
    found = (
        _family_version(candidate.value)
        or _family_version(candidate.name)
        or _family_version(candidate.description)
    )
    return found is None or found == preferred


def _tokens(preference: str) -> tuple[list[str], str | None]:
    lower = preference.strip().lower()
    hint_match = _CONTEXT_HINT.search(lower)
    hint = hint_match.group(1).lower() if hint_match else None
    tokens = []
    for token in re.split(r"[^a-z0-9]+", _CONTEXT_HINT.sub(r" \1 ", lower)):
        token = {"opusplan": "opus", "best": "", "default": ""}.get(token, token)
        if token and token != "claude" and (re.search(r"[a-z]", token) or token.endswith("m")):
            tokens.append(token)
    return tokens, hint


def _score(model: ModelFacts, tokens: list[str], hint: str | None) -> int:
    haystack = f"{model.value} {model.name}".lower()
    score, other_matched = 0, False
    for token in tokens:
        if token not in haystack:
            continue
        if token != hint:
            other_matched = True
        score += 3 if token == hint else 1
    return 0 if hint and not other_matched else score


def resolve_model_preference(models: Sequence[ModelFacts], preference: str) -> int | None:
    """The index of the entry of `models` closest to the model a user named (an alias, a full
    id, a display name, words); None when none is close."""
    wanted = preference.strip()
    if not wanted:
        return None
    lower, canonical = wanted.lower(), canonical_model_id(wanted)
    for i, m in enumerate(models):
        if m.value == wanted or canonical_model_id(m.value) == canonical or m.name.lower() == lower:
            return i

    def resolved_is(m: ModelFacts) -> bool:
        return m.resolved is not None and canonical_model_id(m.resolved) == canonical

    for concrete_only in (True, False):
        for i, m in enumerate(models):
            if (not concrete_only or m.value != _DEFAULT) and resolved_is(m):
                return i
    hint = _hint_of(wanted)
    for i, m in enumerate(models):
        if not _versions_compatible(wanted, m) or _hint_of(m.value) != hint:
            continue
        value, name = m.value.lower(), m.name.lower()
        if lower in value or lower in name or value in lower:
            return i
    tokens, token_hint = _tokens(wanted)
    best, best_score = None, 0
    for i, m in enumerate(models):
        if not _versions_compatible(wanted, m):
            continue
        score = _score(m, tokens, token_hint)
        if score > 0 and (best is None or score > best_score):
            best, best_score = i, score
    return best


def _normalized(value: str) -> str:
    """A model id without the spellings that name the same model (provider prefixes, dates,
    version and variant suffixes, dotted versions, `-fast`, context hints)."""
    found = _strip_hints(value.strip().lower())
    prefix = found.rfind("anthropic.")
    if prefix != -1:
        found = found[prefix + len("anthropic.") :]
    found = re.sub(r"^anthropic/", "", found)
    found = re.sub(r":[a-z][a-z0-9-]*$", "", found)
    found = re.sub(r"(?<=\d)\.(?=\d)", "-", found)
    found = re.sub(r"@.*$", "", found, flags=re.DOTALL)
    found = re.sub(r"-v\d+(?::\d+)?$", "", found)
    found = re.sub(r"-fast$", "", found)
    return re.sub(r"-\d{8}$", "", found)


def is_denied_model(model_id: str, denied: Sequence[str]) -> bool:
    """Whether the managed `deniedModels` blocks `model_id`: a family alias blocks its family, a
    model id that version in every spelling and the later minor versions it prefixes."""
    found = _normalized(model_id)
    if not found:
        return False
    for entry in denied:
        blocked = _normalized(entry)
        if not blocked:
            continue
        if blocked in _FAMILIES:
            if found == blocked or f"-{blocked}" in found:
                return True
        elif found == blocked or found.startswith(f"{blocked}-"):
            return True
    return False


def allowed_models(
    models: Sequence[ModelFacts], policy: ModelPolicy, custom_option: str | None = None
) -> tuple[AllowedModel, ...] | None:
    """The picker an allowlist makes of Claude Code's `models` (None: no allowlist, Claude
    Code's list stands); `custom_option`: `ANTHROPIC_CUSTOM_MODEL_OPTION`."""
    if policy.available is None:
        return None
    default = next((i for i, m in enumerate(models) if m.value == _DEFAULT), None)
    found = [AllowedModel(_DEFAULT, default, "Default")]
    seen = {_DEFAULT}
    others = [(i, m) for i, m in enumerate(models) if m.value != _DEFAULT]
    for entry in policy.available:
        if entry in seen:
            continue
        effective = policy.overrides.get(entry, entry)
        if effective in seen:
            continue
        match = resolve_model_preference([m for _, m in others], entry)
        source = others[match][0] if match is not None else None
        resolved = models[source].resolved if source is not None else None
        if any(
            i is not None and is_denied_model(i, policy.denied)
            for i in (entry, effective, resolved)
        ):
            continue
        found.append(AllowedModel(effective, source, entry))
        seen.add(effective)
    custom = (custom_option or "").strip()
    if custom and custom not in seen:
        index = next((i for i, m in enumerate(models) if m.value == custom), None)
        if index is not None:
            found.append(AllowedModel(custom, index, models[index].name))
    return tuple(found)


def _version_for(model: ModelFacts, family: str) -> str | None:
    pattern = re.compile(rf"\b{re.escape(family)}[-\s]+(\d+)(?:[-.](\d+))?", re.I | re.ASCII)
    for source in (model.resolved, model.description, model.value):
        match = pattern.search(source) if source else None
        if match:
            return f"{match.group(1)}.{match.group(2)}" if match.group(2) else match.group(1)
    return None


def _versioned(model: ModelFacts) -> str:
    name = model.name
    versionable = _VERSIONABLE.fullmatch(name)
    if versionable is None:
        return name
    version = _version_for(model, versionable.group(1))
    if version is None:
        return name
    suffix = _DISPLAY_CONTEXT.search(name)
    kept = suffix is not None and bool(
        re.search(rf"\b{suffix.group(1)}\s+context\b", model.description or "", re.I | re.ASCII)
    )
    bare = _DISPLAY_CONTEXT.sub("", name, count=1)
    if _A_NUMBER.search(bare):
        return bare if kept else name
    if kept or suffix is None:
        return f"{bare} {version}"
    return f"{bare} {version}{suffix.group(0)}"


def model_display_names(models: Sequence[ModelFacts]) -> tuple[str, ...]:
    """The name each entry of the picker shows (see the module doc)."""
    versioned = [_versioned(m) for m in models]
    names = [
        v if versioned.count(v) == 1 else m.name for v, m in zip(versioned, models, strict=True)
    ]
    return tuple(
        n if names.count(n) == 1 else f"{n} ({m.value})" for n, m in zip(names, models, strict=True)
    )
