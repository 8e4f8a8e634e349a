"""The group commit across processes (memory/git/handoff.py): real hippo processes write through
one real loopback git HTTP server (git http-backend, basic auth); while one holds the writer
lock, the others hand it their writes, and each learns its own outcome."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory.errors import EntryConflict
from memory.git import Author, Store
from memory.git.credentials import RemoteAuth
from memory.git.handoff import FileHandoff
from memory.git.locks import FileWorkspaceLock, host_lock_path
from memory.writes import AddEntry
from tests.gitservers import HttpGitServer
from tests.paths import ROOT

AUTH = RemoteAuth(username="hippo", token="s3cret")

# One process: a thread per write given on the command line ("add:<text>" or "remove:<text>"),
# then one JSON line per write: its text and its own outcome.
WRITER = """
import json, sys, threading
from pathlib import Path
from memory.errors import MemoryStoreError
from memory.writes import AddEntry, RemoveEntry
from memory.git.credentials import RemoteAuth
from memory.git import Author, Store

url, data = sys.argv[1], Path(sys.argv[2])
s = Store.open(url, data, auth=RemoteAuth(username="hippo", token="s3cret"))
out = {}

def write(spec):
    kind, text = spec.split(":", 1)
    op = AddEntry("inbox.md", text) if kind == "add" else RemoveEntry("inbox.md", text)
    try:
        r = s.write([op], author=Author("p", "p@x"), message=f"{kind} {text}", key=text)
        out[spec] = {"commit": r.commit}
    except MemoryStoreError as e:
        out[spec] = {"error": type(e).__name__, "message": str(e)}

threads = [threading.Thread(target=write, args=(w,)) for w in sys.argv[3:]]
[t.start() for t in threads]
[t.join() for t in threads]
print(json.dumps(out), flush=True)
"""


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This host's temp folder, where the lock and the hand-off live, for us and the children."""
    folder = tmp_path / "host"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def url(http_git: HttpGitServer, tmp_path: Path, host: Path) -> str:
    url = http_git.url("memory.git")
    store = Store.open(url, tmp_path / "init", auth=AUTH)
    store.init()
    store.write([AddEntry("inbox.md", "seed fact")], author=Author("p", "p@x"), message="seed")
    return url


def start(url: str, data: Path, host: Path, *writes: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, url, str(data), *writes],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(host)},
        stdout=subprocess.PIPE,
        text=True,
    )


def outcome(proc: subprocess.Popen[str]) -> dict[str, dict[str, str]]:
    out, _ = proc.communicate(timeout=240)
    assert proc.returncode == 0
    return dict(json.loads(out))


@pytest.fixture
def held(url: str) -> Iterator[tuple[FileWorkspaceLock, FileHandoff]]:
    """The host's writer lock, held by the test until it lets go; and the hand-off folder."""
    path = host_lock_path(url)
    lock = FileWorkspaceLock(path)
    assert lock.acquire(5)
    try:
        yield lock, FileHandoff(path.with_name(path.name + ".handoff"))
    finally:
        if lock._lock.is_locked:
            lock.release()


def wait_for(what: str, check: object, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def pending(handoff: FileHandoff, sub: str = "pending") -> int:
    return len(os.listdir(handoff.folder / sub))


def inbox(url: str, tmp_path: Path) -> list[str]:
    text = Store.open(url, tmp_path / "reader", auth=AUTH).read("inbox.md")
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_three_processes_hand_their_writes_to_one_push_and_each_learns_its_own(
    url: str, tmp_path: Path, host: Path, http_git: HttpGitServer, held: tuple
) -> None:
    """While the lock is held elsewhere, three processes offer 9 writes (one of which fails on
    the tip: it removes an entry that is not there); the lock goes, and one of them writes all
    9 in one push. Each process gets its own outcomes: 8 commits, one EntryConflict."""
    lock, handoff = held
    procs = [
        start(url, tmp_path / "p0", host, "add:fact zero a", "add:fact zero b", "add:fact zero c"),
        start(
            url, tmp_path / "p1", host, "add:fact one a", "remove:no such fact", "add:fact one c"
        ),
        start(url, tmp_path / "p2", host, "add:fact two a", "add:fact two b", "add:fact two c"),
    ]
    # Each process's leader offers what it has; a thread that came late joins its next offer.
    wait_for("9 offers", lambda: pending(handoff) == 9)
    pushes = http_git.receive_pack_requests
    lock.release()
    results = [outcome(p) for p in procs]
    assert http_git.receive_pack_requests - pushes == 1  # one push for all nine
    commits = [r["commit"] for out in results for r in out.values() if "commit" in r]
    assert len(commits) == len(set(commits)) == 8  # each write its own commit
    assert results[1]["remove:no such fact"]["error"] == EntryConflict.__name__
    assert "no such fact" in results[1]["remove:no such fact"]["message"]
    lines = inbox(url, tmp_path)
    for out in results:
        for spec, r in out.items():
            if spec.startswith("add:"):
                assert sum(spec[4:] in line for line in lines) == 1
                msg = subprocess.run(
                    [
                        "git",
                        "--git-dir",
                        str(http_git.root / "memory.git"),
                        "log",
                        "-1",
                        "--format=%s",
                        r["commit"],
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.strip()
                assert msg == f"add {spec[4:]}"  # the commit it was told is its own
    assert pending(handoff) == pending(handoff, "claimed") == pending(handoff, "done") == 0


def flock_holder(path: Path) -> int | None:
    """The pid holding an flock on `path`, from /proc/locks."""
    inode = os.stat(path).st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "FLOCK" in fields and fields[-3].rsplit(":", 1)[-1] == str(inode):
            return int(fields[-4])
    return None


def test_a_holder_killed_mid_batch_loses_nothing(
    url: str, tmp_path: Path, host: Path, http_git: HttpGitServer, held: tuple
) -> None:
    """Two processes offer 3 writes each; one takes the lock and claims the other's, and is
    killed (SIGKILL) while its batch waits on a slow server. The other takes over: its 3 writes
    land exactly once (whether or not the dead holder's push had landed), and it learns them."""
    lock, handoff = held
    procs = [
        start(url, tmp_path / f"p{n}", host, *(f"add:fact {n} {k}" for k in "abc"))
        for n in range(2)
    ]
    wait_for("6 offers", lambda: pending(handoff) == 6)
    http_git.delay = 1.0  # every request of the holder's fetch and push waits a second
    lock.release()
    wait_for("a holder's claim", lambda: pending(handoff) == 0 and pending(handoff, "claimed"))
    holder = flock_holder(host_lock_path(url))
    assert holder in {p.pid for p in procs}
    os.kill(holder, signal.SIGKILL)
    http_git.delay = 0.0
    dead = next(p for p in procs if p.pid == holder)
    survivor = next(p for p in procs if p.pid != holder)
    assert dead.wait(timeout=30) == -signal.SIGKILL
    dead.communicate()
    out = outcome(survivor)
    assert len(out) == 3 and all("commit" in r for r in out.values()), out
    lines = inbox(url, tmp_path)
    for spec in out:
        assert sum(line.startswith(f"- {spec[4:]}") for line in lines) == 1, lines
    assert pending(handoff, "claimed") == pending(handoff, "pending") == 0
    subprocess.run(
        ["git", "--git-dir", str(http_git.root / "memory.git"), "fsck", "--strict"],
        check=True,
        capture_output=True,
    )


def test_credentials_go_with_the_first_request(url: str, http_git: HttpGitServer) -> None:
    """A fetch or push over HTTP sends its basic auth at once: none opens with a request the
    server refuses (one round trip in three of a push, 300 ms each on a slow host)."""
    assert http_git.receive_pack_requests >= 2  # init and the seed, through the fixture
    assert http_git.counts.get("unauthorized", 0) == 0


def test_writers_coming_back_ride_the_next_push_together(
    url: str, tmp_path: Path, http_git: HttpGitServer
) -> None:
    """10 writers of one process each save 5 notes, one after another. Between two pushes the
    holder waits (briefly) for the writers it just answered, so each push carries all ten:
    about 5 pushes. Started at once, a push carried the writers who had come back, and the
    ten split into two groups, each riding every other push (10 pushes)."""
    store = Store.open(url, tmp_path / "w", auth=AUTH)
    store.sync()
    pushes = http_git.receive_pack_requests

    def writer(n: int) -> None:
        for k in range(5):
            op = AddEntry("inbox.md", f"fact {n} {k}")
            store.write([op], author=Author("p", "p@x"), message=f"note {n} {k}")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(inbox(url, tmp_path)) == 51  # the seed and 50 notes
    assert http_git.receive_pack_requests - pushes <= 7, http_git.receive_pack_requests - pushes
