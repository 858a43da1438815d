"""The `diffPatch` preview of an Edit or Write (`adapter.controls.diff_preview`) and the final
patch of its result (`adapter.view.final_patch`): when a patch is exact, and every case where
the plain diff stays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapter.claude.patch_sources import read_patch_source
from adapter.controls.diff_preview import preview_content
from adapter.view.final_patch import final_patch


def _patch_text(content: list[dict[str, Any]] | None) -> str:
    assert content is not None and len(content) == 1
    return str(content[0]["_meta"]["jetbrains"]["air"]["diffPatch"]["text"])


def test_an_edit_that_matches_once_is_previewed(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("a = 1\nb = 2\n", encoding="utf-8")
    edit = {"file_path": str(path), "old_string": "b = 2", "new_string": "b = 3"}
    assert _patch_text(preview_content("Edit", edit)).endswith(
        "@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n"
    )
    # An empty new_string also takes the line break after old_string.
    cut = {**edit, "new_string": ""}
    assert _patch_text(preview_content("Edit", cut)).endswith("@@ -1,2 +1 @@\n a = 1\n-b = 2\n")


def test_no_preview_where_the_change_cannot_be_predicted(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("x\nx\n", encoding="utf-8")
    twice = {"file_path": str(path), "old_string": "x", "new_string": "y"}
    assert preview_content("Edit", twice) is None  # twice, without replace_all
    assert preview_content("Edit", {**twice, "old_string": "z"}) is None  # not there
    assert preview_content("Edit", {**twice, "new_string": "x"}) is None  # no change
    assert preview_content("Edit", {**twice, "file_path": "a.py"}) is None  # relative
    assert preview_content("Edit", {**twice, "file_path": str(tmp_path / "gone")}) is None
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"x\r\n")
    assert preview_content("Edit", {**twice, "file_path": str(crlf)}) is None
    assert _patch_text(preview_content("Edit", {**twice, "replace_all": True})).count("+y") == 2


def test_a_write_over_an_unreadable_file_says_so(tmp_path: Path) -> None:
    binary = tmp_path / "logo.png"
    binary.write_bytes(b"\x89PNG\x00\x00")
    content = preview_content("Write", {"file_path": str(binary), "content": "x"})
    assert content == [
        {
            "type": "content",
            "content": {
                "type": "text",
                "text": f"Overwrites the existing file `{binary}`. "
                "The adapter cannot show its current content.",
            },
        }
    ]
    created = preview_content("Write", {"file_path": str(tmp_path / "n.txt"), "content": "n\n"})
    assert "new file mode 100644" in _patch_text(created)
    # A NUL in the new text: the plain diff.
    plain = preview_content("Write", {"file_path": str(tmp_path / "n.txt"), "content": "\0"})
    assert plain == [
        {"type": "diff", "path": str(tmp_path / "n.txt"), "oldText": None, "newText": "\0"}
    ]


def test_the_final_patch_reads_the_file_as_written(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("a = 1\nb = 3\n", encoding="utf-8")

    def read(name: str) -> str | None:
        return read_patch_source(name).text

    result = {"filePath": str(path), "originalFile": "a = 1\nb = 2\n", "oldString": "b = 2"}
    done = final_patch(result, read)
    assert done is not None and done["locations"] == [{"path": str(path), "line": 1}]
    assert _patch_text(done["content"]).endswith("-b = 2\n+b = 3\n")
    filled = {"filePath": str(path), "originalFile": "", "oldString": ""}
    assert final_patch(filled, read) is None  # created or filled: cannot tell
    same = {"type": "update", "filePath": str(path), "content": "q", "originalFile": "q"}
    assert final_patch(same, read) is None
    assert final_patch({"filePath": str(tmp_path / "gone"), "originalFile": "x"}, read) is None
    assert final_patch("not a result", read) is None
