"""How `adapter.session.load_replay` reads a transcript: backwards from its end (to find the active
usage
limit) it cuts exactly the lines a forward text-mode read cuts, at any block size,
and the replay still holds one line and one block at a time."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from adapter.claude.transcripts import line_batches, lines_newest_first
from adapter.wire.deep_json import holds_truncation, too_deep
from adapter.wire.json_codec import decode_line, encode_frame
from tests.support.replay_corpus import corpus_bytes

AWKWARD = [
    b"",
    b"\n",
    b"a",
    b"a\n",
    b"a\nb",
    b"\n\n\nx\n\n",
    b"one\r\ntwo\rthree\r\r\nfour\n\r",
    b"\r",
    b"\r\n\r\n",
    "caf\u00e9 \u2028 \U0001f600\n".encode() + b"bad \xff\xfe \xe2\x82\nend",
    b"x" * 200 + b"\n" + b"y" * 3 + b"\r\n" + b"z" * 70,
]


def _text(lines: Iterable[bytes]) -> list[str]:
    return [line.decode("utf-8", errors="replace") for line in lines]


def _forward(path: Path) -> list[str]:
    with path.open("r", encoding="utf-8", errors="replace") as lines:
        return [line.removesuffix("\n") for line in lines]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 65536])
@pytest.mark.parametrize("data", AWKWARD)
def test_backwards_lines_are_the_forward_lines_reversed(
    tmp_path: Path, data: bytes, block: int
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    assert _text(lines_newest_first(path, block)) == _forward(path)[::-1]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 65536])
@pytest.mark.parametrize("data", AWKWARD)
def test_forward_lines_are_cut_as_text_mode_cuts_them(
    tmp_path: Path, data: bytes, block: int
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    got = [line for _, batch in line_batches(path, block) for line in batch]
    assert _text(got) == _forward(path)


BIG = b'{"n": 18446744073709551617}'  # 2**64 + 1: orjson would read it as a float


@pytest.mark.parametrize("block", [4, 16, 65536])
@pytest.mark.parametrize(
    "lines",
    [
        [b'{"n": 1}', BIG, b'{"n": 2}'],
        [BIG, b'{"n": 1}', BIG, BIG, b'{"n": 2}'],
        [b'{"n": 1}'] * 3 + [BIG] * 40,  # more runs than a block is checked for at once
        [b'{"a": "x"}\r{"n": 1}', BIG],  # a lone CR: every line checked on its own
    ],
)
def test_only_lines_without_a_long_digit_run_skip_the_exact_path(
    tmp_path: Path, block: int, lines: list[bytes]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    seen: list[bytes] = []
    for short_numbers, batch in line_batches(path, block):
        for line in batch:
            seen.append(line)
            if b"18446744073709551617" in line:
                assert not short_numbers
            assert decode_line(line, short_numbers=short_numbers) == json.loads(line)
    assert b"\n".join(seen) == b"\n".join(lines).replace(b"\r", b"\n")


@pytest.mark.parametrize(
    "line",
    [b'{"a": "caf\xe9 \xff"}\n', b'{"a": "\xe2\x82"}', b"\xef\xbb\xbf{}", b'{"a": "\xc3\xa9"}'],
)
def test_bytes_that_are_not_utf8_decode_as_text_mode_read_them(line: bytes) -> None:
    text = line.decode("utf-8", errors="replace")
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            decode_line(line)
    else:
        assert decode_line(line) == expected


@pytest.mark.parametrize("block", [5, 4096, 65536])
def test_backwards_lines_of_a_generated_transcript(tmp_path: Path, block: int) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(corpus_bytes(7, 150, end_with_limit=True))  # CRLF, bad UTF-8, 70 KB lines
    assert _text(lines_newest_first(path, block)) == _forward(path)[::-1]


def test_reading_backwards_stops_where_the_caller_stops(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(b"line %d\n" % n for n in range(100_000)))
    lines = lines_newest_first(path, 1024)
    assert [next(lines) for _ in range(3)] == [b"line 99999", b"line 99998", b"line 99997"]
    lines.close()  # the file is closed with the generator


@pytest.mark.parametrize(
    "line",
    [
        '{"a": 1}\n',
        ' \t{"a": [1, 2.5, null, true]}\r\n',
        "[1]",
        '"text"\n',
        "3 ",
        "",
        "  \n",
        '{"a": 1} {"b": 2}\n',
        '{"a": 1}x',
        "\ufeff{}",
        "{torn",
        "\u00a0{}",
        "{}\x0c",
        '{"a": NaN, "b": -Infinity}',
        '{"big": 123456789012345678901234567890}',
        '{"s": "\\ud800 lone"}',
        '{"k": 1, "k": 2}',
        '{"f": 1e400, "g": 0.1, "h": -0.0}',
        "[" * 2000 + "]" * 2000,
    ],
)
def test_line_decoding_agrees_with_json_loads(line: str) -> None:
    if too_deep(line):
        # Past the nesting bound the deep levels are read as a stand-in (adapter/wire/deep_json.py)
        # on every Python, whether or not its `json` would have recursed that far (3.13 does).
        assert holds_truncation(decode_line(line.encode()))
        return
    try:
        expected: object = json.loads(line)
    except ValueError:
        with pytest.raises(ValueError):
            decode_line(line.encode("utf-8", errors="surrogatepass"))
    else:
        # repr: NaN is never equal to itself, and -0.0 == 0.0.
        assert repr(decode_line(line.encode())) == repr(expected)


@pytest.mark.parametrize(
    "value",
    [
        {"jsonrpc": "2.0", "method": "session/update", "params": {"text": "caf\u00e9 \U0001f600"}},
        {"n": 123456789012345678901234567890},
        {"s": "\ud800"},
        {1: "int key"},
        {"t": (1, 2)},
    ],
)
def test_frames_are_one_line_of_the_json_the_standard_library_reads_back(value: object) -> None:
    frame = encode_frame(value)
    assert frame.endswith(b"\n") and frame.count(b"\n") == 1
    assert repr(json.loads(frame)) == repr(json.loads(json.dumps(value)))


def test_a_nan_from_a_transcript_is_written_as_null_which_strict_readers_take() -> None:
    assert encode_frame({"f": float("nan"), "g": float("inf")}) == b'{"f":null,"g":null}\n'


@pytest.mark.parametrize("block", [3, 4, 7, 16])
def test_a_line_over_the_limit_is_skipped_without_being_held(
    tmp_path: Path, block: int, caplog: pytest.LogCaptureFixture
) -> None:
    # The limit is above the block size, as the real ones are (32 MiB over 1 MiB blocks).
    limit = 20
    lines = [b"short", b"x" * 45, b"also short", b"y" * 21, b"z" * 20, b"last"]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines))
    with caplog.at_level("WARNING"):
        got = [line for _, batch in line_batches(path, block, limit) for line in batch]
    assert got == [b"short", b"also short", b"z" * 20, b"last"]
    skipped = [r for r in caplog.records if "skipped a transcript line" in r.getMessage()]
    assert len(skipped) == 2


def test_a_file_ending_inside_a_long_line_yields_the_lines_before_it(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"first\nsecond\n" + b"w" * 100)
    got = [line for _, batch in line_batches(path, 8, 30) for line in batch]
    assert got == [b"first", b"second"]


@pytest.mark.parametrize("block", [4, 7, 16, 19])
def test_reading_backwards_skips_the_same_long_lines(
    tmp_path: Path, block: int, caplog: pytest.LogCaptureFixture
) -> None:
    limit = 20
    lines = [b"x" * 45, b"short", b"also short", b"y" * 21, b"z" * 20, b"w" * 60]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines))
    with caplog.at_level("WARNING"):
        got = list(lines_newest_first(path, block, limit))
    skipped = [r for r in caplog.records if "skipped a transcript line" in r.getMessage()]
    assert len(skipped) == 3
    forward = [line for _, batch in line_batches(path, block, limit) for line in batch]
    assert got == [b"z" * 20, b"also short", b"short"] == forward[::-1]


def test_reading_backwards_with_a_limit_agrees_with_forwards_on_a_generated_transcript(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(corpus_bytes(7, 150, end_with_limit=True))  # CRLF, bad UTF-8, 70 KB lines
    limit = 40_000  # some of the corpus's lines are over it
    forward = [line for _, batch in line_batches(path, 4096, limit) for line in batch]
    backward = list(lines_newest_first(path, 4096, limit))
    assert backward == forward[::-1]
    assert len(forward) < len(_forward(path))
