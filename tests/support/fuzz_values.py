"""Hypothesis strategies for what a peer the adapter does not control may send: any JSON value,
dicts shaped like a frame with keys dropped or of the wrong type, and capability declarations
near the opt-in. Shared by the in-process fuzzing (`tests/shell/test_fuzz_inputs.py`) and the
fuzzing of one real adapter's `initialize` (`tests/e2e/test_initialize_fuzz.py`).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.support.harness import OPT_IN

# Derandomized: the same examples every run, so a failure here is a failure everywhere.
FAST = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    derandomize=True,
)

# --- JSON values --------------------------------------------------------------------------

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["", "sessionFailure", "idle", "api_retry", "text", "<synthetic>"])
)
JSON: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)


def maybe(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right type, sometimes any JSON at all."""
    return st.one_of(good, good, JSON)


def frame(
    required: dict[str, st.SearchStrategy[Any]], optional: dict[str, st.SearchStrategy[Any]]
) -> st.SearchStrategy[dict[str, Any]]:
    """A dict with the required keys (each sometimes dropped) and some of the optional ones."""
    dropped = st.sets(st.sampled_from(sorted(required)), max_size=1)

    def build(parts: tuple[dict[str, Any], dict[str, Any], set[str]]) -> dict[str, Any]:
        base, extra, drop = parts
        return {k: v for k, v in {**base, **extra}.items() if k not in drop}

    return st.tuples(
        st.fixed_dictionaries(required),
        st.fixed_dictionaries({}, optional=optional),
        st.one_of(st.just(set()), st.just(set()), dropped),
    ).map(build)


NEAR_OPT_IN = st.fixed_dictionaries(
    {
        "jetbrains": maybe(
            st.fixed_dictionaries(
                {
                    "air": maybe(
                        st.fixed_dictionaries(
                            {},
                            optional={
                                "version": st.one_of(
                                    st.sampled_from([1, 2, 0, -1, 1.0, 1.5, True, "1", None]),
                                    st.integers(),
                                    # JSON has no NaN or infinity: json.dumps would write
                                    # `Infinity`, a parse error, not a declaration.
                                    st.floats(allow_nan=False, allow_infinity=False),
                                ),
                                "capabilities": maybe(
                                    st.lists(
                                        st.sampled_from(
                                            [
                                                "sessionFailure",
                                                "sessionfailure",
                                                "sessionIndex",
                                                "other",
                                                1,
                                                None,
                                            ]
                                        ),
                                        max_size=3,
                                    )
                                ),
                            },
                        )
                    )
                },
                optional={"other": JSON},
            )
        )
    },
    optional={"agentError": maybe(st.fixed_dictionaries({"version": JSON}))},
)
CAPABILITY_META = st.one_of(JSON, NEAR_OPT_IN, st.just(OPT_IN))
