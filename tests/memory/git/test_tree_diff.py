"""What the dream compares between its last commit and the tip, from a tree diff alone."""

from __future__ import annotations

from pathlib import Path

import pygit2

from memory.git import trees

BLOB, EXEC = pygit2.GIT_FILEMODE_BLOB, pygit2.GIT_FILEMODE_BLOB_EXECUTABLE


def commit(repo: pygit2.Repository, files: dict[str, tuple[bytes, int]], parents: list) -> str:
    index = pygit2.Index()
    for path, (data, mode) in files.items():
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), mode))
    who = pygit2.Signature("a", "a@x")
    return str(repo.create_commit(None, who, who, "m", index.write_tree(repo), parents))


def test_the_files_whose_bytes_differ_and_the_files_at_a_commit(tmp_path: Path) -> None:
    """Changed, removed, added and renamed files differ; a change of mode alone does not (the
    bytes are the same); a folder is no file; an unknown commit is None."""
    repo = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    old = commit(
        repo,
        {"a.md": (b"a\n", BLOB), "b.md": (b"b\n", BLOB), "c.md": (b"c\n", BLOB),
         "sub/d.md": (b"d\n", BLOB), "same.md": (b"s\n", BLOB)},
        [],
    )  # fmt: skip
    new = commit(
        repo,
        {"a.md": (b"a2\n", BLOB), "b.md": (b"b\n", EXEC), "e.md": (b"e\n", BLOB),
         "sub/f.md": (b"d\n", BLOB), "same.md": (b"s\n", BLOB)},
        [pygit2.Oid(hex=old)],
    )  # fmt: skip
    assert trees.differing(repo, old, new) == {"a.md", "c.md", "e.md", "sub/d.md", "sub/f.md"}
    assert trees.differing(repo, new, new) == set()
    assert trees.differing(repo, "0" * 40, new) is None
    is_file = trees.file_at(repo, old)
    assert is_file is not None
    assert [is_file(p) for p in ("sub/d.md", "c.md", "sub", "e.md", "")] == [
        True, True, False, False, False,
    ]  # fmt: skip
    assert trees.file_at(repo, "0" * 40) is None
