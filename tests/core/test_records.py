"""The failure records' secret patterns (fsm/records.py): compiled a few at a time when asked,
all of them by the first `redact` that needs them."""


def test_secret_patterns_compile_a_few_at_a_time_and_redact_finds_them_all() -> None:
    import fsm.records as records

    records._compiled.clear()
    records._secret_patterns.cache_clear()
    total = len(records._SECRET_SOURCES)
    assert records.compile_secret_patterns(2) is True
    assert len(records._compiled) == 2
    assert records.compile_secret_patterns(0) is True and len(records._compiled) == 2
    assert records.redact("key sk-ant-abc123") == "key sk-ant-***"
    assert len(records._compiled) == total
    assert records.compile_secret_patterns(5) is False and len(records._compiled) == total
