"""The first fetch of a new cache from a local remote goes through git's own fetch when git is
on PATH (memory/git/fetch.py), and through libgit2 when it is not or when git fails; later
fetches stay in libgit2. A `git` script first on PATH logs each call and runs the real git (or
fails): the far end, not hippo, is what the test replaces."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2
import pytest

from memory import writes
from memory.git import Author, Store
from memory.git.credentials import RemoteAuth
from tests import gitservers

ALICE = Author("alice", "alice@example.com")
AUTH = RemoteAuth(username="hippo", token="s3cret")


def remote_with_history(tmp_path: Path) -> tuple[str, Store]:
    remote = str(tmp_path / "remote.git")
    writer = Store.open(remote, tmp_path / "data-writer")
    writer.init()
    writer.write(
        [writes.AddEntry("topics/a.md", "checkout returns 504 under load")],
        author=ALICE,
        message="a",
    )
    writer.publish("snapshots/1", writer.head())
    return remote, writer


def git_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, works: bool) -> Path:
    """A `git` first on PATH that logs its arguments, then runs the real git (or exits 1)."""
    real = shutil.which("git")
    assert real is not None
    folder, log = tmp_path / "bin", tmp_path / "git-calls.log"
    folder.mkdir()
    run = f'exec {real} "$@"' if works else "exit 1"
    (folder / "git").write_text(f'#!/bin/sh\necho "$@" >> {log}\n{run}\n')
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))
    return log


@pytest.mark.parametrize("works", [True, False])
def test_first_fetch_by_git_then_libgit2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, works: bool
) -> None:
    """A new cache's first fetch runs `git fetch` once (a failing git: libgit2 does it); the
    cache then holds the branch, the hippo refs and the files; the next fetch runs no git."""
    remote, writer = remote_with_history(tmp_path)
    log = git_on_path(tmp_path, monkeypatch, works=works)
    reader = Store.open(remote, tmp_path / "data-reader")
    assert reader.sync() == writer.head()
    assert ["fetch" in line.split() for line in log.read_text().splitlines()] == [True]
    assert reader.ref("snapshots/1") == writer.head()
    assert "504 under load" in reader.read("topics/a.md")
    assert [h.path for h in reader.search("checkout 504")] == ["topics/a.md"]
    writer.write([writes.AddEntry("topics/b.md", "billing ledger")], author=ALICE, message="b")
    assert reader.sync() == writer.head()
    assert len(log.read_text().splitlines()) == 1
    assert "billing ledger" in reader.read("topics/b.md")


def test_first_fetch_without_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No git on PATH: libgit2 fetches, as before."""
    remote, writer = remote_with_history(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    reader = Store.open(remote, tmp_path / "data-reader")
    assert reader.sync() == writer.head()
    assert reader.ref("snapshots/1") == writer.head()


def test_first_fetch_of_an_empty_remote(tmp_path: Path) -> None:
    """A remote without the branch yet: nothing to fetch, no error (libgit2's answer)."""
    empty = tmp_path / "empty.git"
    pygit2.init_repository(str(empty), bare=True)
    assert Store.open(str(empty), tmp_path / "data-b").sync() is None


def fetched_by_git(log: Path) -> int:
    lines = log.read_text().splitlines() if log.exists() else []
    return sum("fetch" in line.split() for line in lines)


def test_a_git_server_is_fetched_by_libgit2_even_the_first_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over the network libgit2 was as fast as git: a new cache's first fetch runs no git
    (memory/git/fetch.py chooses, whatever the caller)."""
    root = tmp_path / "srv"
    root.mkdir()
    gitservers.bare_repo(root, "memory.git")
    with gitservers.http_server(root) as http:
        url = http.url("memory.git")
        writer = Store(url, tmp_path / "writer", auth=AUTH)
        writer.init()
        writer.write([writes.AddEntry("a.md", "one")], author=ALICE, message="a")
        log = git_on_path(tmp_path, monkeypatch, works=True)
        reader = Store(url, tmp_path / "reader", auth=AUTH)
        assert reader.sync() == writer.head()
        assert reader.files(wait=False) == writer.files()
    assert fetched_by_git(log) == 0


def test_the_cold_archive_is_fetched_by_libgit2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cold archive's refspecs come through the same entry point: a few objects, libgit2."""
    from memory.git.cold import ColdStore

    remote, writer = remote_with_history(tmp_path)
    log = git_on_path(tmp_path, monkeypatch, works=True)
    reader = Store.open(remote, tmp_path / "data-reader")
    assert reader.sync() == writer.head()
    assert fetched_by_git(log) == 1  # the first fetch of the branch
    assert ColdStore(reader).fetch() is None  # no cold archive yet: not an error
    assert fetched_by_git(log) == 1
