"""Six concurrency cases: two hippo writers with separate caches, and a person with plain git,
against one memory remote: a local path, and real git servers on loopback (smart HTTP with
basic auth, git daemon, sshd)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory import notes, writes
from memory.errors import EntryConflict, TombstoneConflict
from memory.git import Author, Store
from tests.paths import ROOT
from tests.remotes import KINDS, Target, target

A = Author("writer a", "a@example.com")
B = Author("writer b", "b@example.com")


@pytest.fixture(params=KINDS)
def where(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    with target(request.param, tmp_path) as t:
        t.store(tmp_path / "init").init()
        yield t


@pytest.fixture
def remote(where: Target) -> str:
    return where.remote


@pytest.fixture
def two(tmp_path: Path, where: Target) -> tuple[Store, Store]:
    return where.store(tmp_path / "cache-a"), where.store(tmp_path / "cache-b")


@pytest.fixture
def person(tmp_path: Path, where: Target) -> Path:
    """A person's plain git clone of the remote."""
    clone = tmp_path / "person"
    where.git(tmp_path, "clone", "-q", where.git_url, str(clone))
    for option in where.git_config:
        name, _, value = option.partition("=")
        where.git(clone, "config", name, value)
    return clone


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "gc.auto=0", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def person_push(clone: Path, message: str) -> None:
    """Commit everything and push, pulling (merge, not rebase) when rejected, as people do."""
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", message)
    try:
        git(clone, "push", "-q", "origin", "HEAD:main")
    except subprocess.CalledProcessError:
        git(clone, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
        git(clone, "push", "-q", "origin", "HEAD:main")


def in_parallel(*fns: object) -> None:
    errors: list[BaseException] = []

    def run(fn: object) -> None:
        try:
            fn()  # type: ignore[operator]
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(f,)) for f in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def fresh(where: Target, tmp_path: Path) -> Store:
    s = where.store(tmp_path / "reader")
    s.sync()
    return s


def test_1_both_append_to_the_same_file(
    two: tuple[Store, Store], where: Target, tmp_path: Path
) -> None:
    """Two hippo writers append 20 entries each to one file at once: all 40 land, no conflict."""
    a, b = two
    in_parallel(
        *[
            (
                lambda s=s, i=i, n=n: s.write(
                    [writes.AddEntry("services/api.md", f"fact {i} from {n}")],
                    author=A,
                    message="m",
                )
            )
            for n, s in (("a", a), ("b", b))
            for i in range(20)
        ]
    )
    text = fresh(where, tmp_path).read("services/api.md")
    assert len(text.splitlines()) == 40


def test_2_both_append_to_inbox_hippo_and_person(
    two: tuple[Store, Store], person: Path, where: Target, tmp_path: Path
) -> None:
    """hippo and a person with git both append to inbox.md: union merge keeps both."""
    a, _ = two
    (person / "inbox.md").write_text((person / "inbox.md").read_text() + "- from the person\n")
    a.write([writes.AddEntry("inbox.md", "from hippo")], author=A, message="m")
    person_push(person, "person note")  # rejected first, then pull (union) and push
    inbox = fresh(where, tmp_path).read("inbox.md")
    assert "- from the person\n" in inbox and "- from hippo\n" in inbox
    assert "<<<<<<<" not in inbox


def test_3_different_files(
    two: tuple[Store, Store], person: Path, where: Target, tmp_path: Path
) -> None:
    """Writers on different files all land."""
    a, b = two
    (person / "people.md").write_text("- Priya owns pricing\n")
    in_parallel(
        lambda: a.write([writes.AddEntry("a.md", "from a")], author=A, message="m"),
        lambda: b.write([writes.AddEntry("b.md", "from b")], author=B, message="m"),
    )
    person_push(person, "people")
    files = fresh(where, tmp_path).files()
    assert {"a.md", "b.md", "people.md"} <= set(files)


def test_4_removed_entry_stays_removed(
    two: tuple[Store, Store], person: Path, where: Target, tmp_path: Path
) -> None:
    """One writer removes X; a stale person adds Y to the same file: X stays removed."""
    a, _ = two
    a.write(
        [writes.WriteFile("ops.md", "# Ops\n\n- X the old fact\n- keep me\n")],
        author=A,
        message="m",
    )
    git(person, "pull", "-q", "--no-rebase", "origin", "main")
    a.write([writes.RemoveEntry("ops.md", "X the old fact")], author=A, message="remove X")
    with (person / "ops.md").open("a") as f:
        f.write("- Y a new fact\n")
    person_push(person, "add Y")
    text = fresh(where, tmp_path).read("ops.md")
    assert "X the old fact" not in text and "- Y a new fact" in text and "- keep me" in text


def test_5_remove_versus_edit_is_a_named_conflict(two: tuple[Store, Store]) -> None:
    """One removes X, the other (stale) edits X: the second gets EntryConflict, not a resurrection."""
    a, b = two
    a.write([writes.WriteFile("ops.md", "- X the fact\n")], author=A, message="m")
    b.sync()  # b's cache now knows X, then goes stale
    a.write([writes.RemoveEntry("ops.md", "X the fact")], author=A, message="remove")
    with pytest.raises(EntryConflict, match="another writer changed or removed it"):
        b.write(
            [writes.ReplaceEntry("ops.md", "X the fact", "X the edited fact")],
            author=B,
            message="edit",
        )
    # and the other way round: an edit that landed first makes a stale removal conflict
    a.write([writes.AddEntry("ops.md", "Z fact")], author=A, message="m")
    b.write(
        [writes.ReplaceEntry("ops.md", "Z fact", "Z fact, corrected")], author=B, message="edit"
    )
    with pytest.raises(EntryConflict):
        a.write([writes.RemoveEntry("ops.md", "Z fact")], author=A, message="remove")
    assert a.read("ops.md") == "- Z fact, corrected\n"


def test_6_stale_writer_cannot_resurrect_a_forgotten_fact(two: tuple[Store, Store]) -> None:
    """A fact forgotten by one writer and written into a new file by a stale one is refused."""
    a, b = two
    a.write(
        [writes.AddEntry("inbox.md", "the nightly batch alert is expected")], author=A, message="m"
    )
    b.sync()  # b saw the fact before it was forgotten
    out = notes.forget(
        a, "nightly batch alert", today="2026-11-30", author=A, by="U1", reason="wrong"
    )
    assert out.status == "removed"
    with pytest.raises(TombstoneConflict, match=r"forgotten\.md"):
        b.write(
            [
                writes.WriteFile(
                    "ops/batch.md", "# Batch\n\n- The nightly batch alert is expected\n"
                )
            ],
            author=B,
            message="stale",
        )


WRITER = """
import json, sys, threading
from pathlib import Path
from memory.writes import AddEntry
from memory.git.credentials import RemoteAuth
from memory.git import Author, Store

remote, cache, proc, auth = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
s = Store.open(remote, cache, auth=RemoteAuth(**json.loads(auth)))

def writer(t):
    for i in range(2):
        s.write([AddEntry("inbox.md", f"p{proc} t{t} note {i}")], author=Author("p", "p@x"),
                message=f"note p{proc} t{t} {i}", key=f"p{proc}-t{t}-{i}")

threads = [threading.Thread(target=writer, args=(t,)) for t in range(10)]
[t.start() for t in threads]
[t.join() for t in threads]
"""


def test_20_writers_in_2_processes_lose_nothing(tmp_path: Path, where: Target) -> None:
    """2 OS processes (as on two hosts) × 10 threads, separate caches, 2 notes each: 40 land,
    none twice, one commit per note, and the server's repository passes `git fsck --strict`."""
    for n in range(2):
        (tmp_path / f"host{n}").mkdir()
    root = ROOT
    before = int(git(where.bare, "rev-list", "--count", "main").strip())
    auth = where.auth_json()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, where.remote, str(tmp_path / f"c{n}"), str(n), auth],
            cwd=root,
            # Two hosts: each its own temp folder, so they do not share the per-host lock
            # file and really race for the branch (the server must arbitrate).
            env={**os.environ, "TMPDIR": str(tmp_path / f"host{n}")},
        )
        for n in range(2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    inbox = fresh(where, tmp_path).read("inbox.md")
    lines = [x for x in inbox.splitlines() if x.startswith("- p")]
    assert len(lines) == 40 == len(set(lines))
    assert int(git(where.bare, "rev-list", "--count", "main").strip()) == before + 40
    git(where.bare, "fsck", "--strict", "--no-dangling")
