"""`adapter.scripted_claude.values`: the dataclass semantics the scripted Claude relies on."""

from __future__ import annotations

import pytest

from adapter.scripted_claude.steps import Reply, Scenario, Text
from adapter.scripted_claude.values import field, frozen_value, record


@record
class _Tally:
    name: str
    count: int = 0
    seen: list[str] = field(default_factory=list)


def test_frozen_values_compare_hash_and_show_like_dataclasses() -> None:
    text = Text(text="hi", repeat=2)
    assert text == Text(text="hi", repeat=2) and hash(text) == hash(Text(text="hi", repeat=2))
    other: object = Reply()
    fields: object = ("hi",)
    assert text != Text(text="hi") and text != other and text != fields
    assert repr(text) == "Text(text='hi', model=None, deltas=None, pace=0.0, parent=None, repeat=2)"
    assert Scenario(name="s", description="d").before_handshake == ()
    assert not hasattr(text, "__dict__") and Text.__match_args__ == ()
    with pytest.raises(AttributeError):
        text.text = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del text.text
    assert text.text == "hi"


def test_fields_are_keyword_only_and_required_without_a_default() -> None:
    with pytest.raises(TypeError, match="missing required keyword-only argument: 'text'"):
        Text()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'txt'"):
        Text(text="a", txt="b")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Text("a")  # type: ignore[call-arg]


def test_records_are_mutable_unhashable_with_fresh_factory_defaults() -> None:
    one, two = _Tally(name="a"), _Tally(name="a")
    assert one == two and one.seen is not two.seen
    one.seen.append("x")
    one.count += 1
    assert (one.count, one.seen, two.seen) == (1, ["x"], [])
    assert one != two
    with pytest.raises(TypeError):
        hash(one)


def test_value_classes_do_not_inherit() -> None:
    class Base:
        pass

    with pytest.raises(TypeError, match="do not inherit"):

        @frozen_value
        class Child(Base):
            name: str
