"""The group commit across hosts (jobs/handoff.py): stores with their own caches (as on two
hosts) share one Redis writer lock and hand their writes to its holder over a real Redis, and
push through a real loopback git HTTP server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from jobs import keys
from jobs.handoff import RedisHandoff
from memory.errors import EntryConflict, MemoryStoreError
from memory.git import Author, Store, WriteResult
from memory.git.credentials import RemoteAuth
from memory.git.locks import RedisWorkspaceLock
from memory.writes import AddEntry, RemoveEntry, operations
from tests.gitservers import HttpGitServer

AUTH = RemoteAuth(username="hippo", token="s3cret")
P = Author("p", "p@x")
LOCK = "hippo:lock:default"


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    with redis.Redis(unix_socket_path=redis_url.removeprefix("redis+socket://")) as r:
        yield r


@pytest.fixture
def url(http_git: HttpGitServer, tmp_path: Path) -> str:
    url = http_git.url("memory.git")
    store = Store.open(url, tmp_path / "init", auth=AUTH)
    store.init()
    store.write([AddEntry("inbox.md", "seed fact")], author=P, message="seed")
    return url


def host(url: str, folder: Path, client: redis.Redis) -> Store:
    """A store as jobs/runtime.py opens it with a shared REDIS_URL."""
    return Store.open(url, folder, redis=client, auth=AUTH, handoff=RedisHandoff(client, "default"))


def writing(store: Store, op: operations.Operation, out: dict[str, object]) -> threading.Thread:
    def run() -> None:
        try:
            out[repr(op)] = store.write([op], author=P, message=f"write {op}")
        except MemoryStoreError as exc:
            out[repr(op)] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def wait_for(what: str, check: Callable[[], bool], timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_two_hosts_hand_writes_to_one_push_each_learning_its_own(
    url: str, tmp_path: Path, client: redis.Redis, http_git: HttpGitServer
) -> None:
    held = RedisWorkspaceLock(client, LOCK)
    assert held.acquire(5)
    a, b = host(url, tmp_path / "a", client), host(url, tmp_path / "b", client)
    out: dict[str, object] = {}
    ops = [AddEntry("inbox.md", "fact from a"), AddEntry("inbox.md", "fact from b")]
    bad = RemoveEntry("inbox.md", "a fact nobody saved")
    threads = [writing(a, ops[0], out), writing(b, ops[1], out), writing(b, bad, out)]
    wait_for("3 offers", lambda: client.llen(keys.handoff_pending("default")) == 3)
    pushes = http_git.receive_pack_requests
    held.release()
    for t in threads:
        t.join(timeout=120)
    assert http_git.receive_pack_requests - pushes == 1
    good = [out[repr(op)] for op in ops]
    assert all(isinstance(r, WriteResult) and r.created for r in good)
    assert len({r.commit for r in good if isinstance(r, WriteResult)}) == 2
    assert isinstance(out[repr(bad)], EntryConflict)
    text = Store.open(url, tmp_path / "reader", auth=AUTH).read("inbox.md")
    assert text.count("fact from a") == text.count("fact from b") == 1
    assert not client.keys("hippo:handoff:*")  # nothing left behind


def test_what_a_dead_holder_claimed_is_written_by_the_next(
    url: str, tmp_path: Path, client: redis.Redis
) -> None:
    """A holder claims an offer and dies without answering (its lock freed, as its TTL would):
    the offering host takes the lock, finds its own write in `claimed`, writes it once."""
    held = RedisWorkspaceLock(client, LOCK)
    assert held.acquire(5)
    a = host(url, tmp_path / "a", client)
    out: dict[str, object] = {}
    op = AddEntry("inbox.md", "fact the dead holder took")
    thread = writing(a, op, out)
    wait_for("the offer", lambda: client.llen(keys.handoff_pending("default")) == 1)
    dead = RedisHandoff(client, "default").claim(10)
    assert len(dead) == 1 and dead[0][1].key == f"handoff:{dead[0][0]}"
    held.release()  # the holder is gone without an answer
    thread.join(timeout=120)
    result = out[repr(op)]
    assert isinstance(result, WriteResult) and result.created
    text = Store.open(url, tmp_path / "reader", auth=AUTH).read("inbox.md")
    assert text.count("fact the dead holder took") == 1
    assert not client.keys("hippo:handoff:*")


def test_a_hand_off_store_that_went_away_loses_no_write(url: str, tmp_path: Path) -> None:
    """The holder's Redis for hand-offs is gone (nothing listens on its port any more): the
    writers this process took for the round are written all the same, each told its own
    commit; none is dropped, none is told it failed."""
    with socket.socket() as s:  # a port nothing listens on: a Redis that went away
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    gone = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.2)
    store = Store.open(url, tmp_path / "a", auth=AUTH, handoff=RedisHandoff(gone, "default"))
    store.sync()
    out: dict[str, object] = {}
    ops = [AddEntry("inbox.md", f"fact {n} while redis is gone") for n in range(8)]
    for t in [writing(store, op, out) for op in ops]:
        t.join(120)
    assert all(isinstance(r, WriteResult) for r in out.values()), out
    assert len(out) == 8
    text = Store.open(url, tmp_path / "reader", auth=AUTH).read("inbox.md")
    assert all(f"fact {n} while redis is gone" in text for n in range(8))


def test_the_lock_passes_between_one_hosts_threads_without_stalling(
    client: redis.Redis, tmp_path: Path
) -> None:
    """A worker's threads (a Celery thread pool) write one after another, overlapping: the lock a
    leader keeps for the next thread of its process is released by that thread. redis-py's Lock
    keeps its token per thread by default, so that release failed silently and every write after
    it waited out the lock's 60 s (bench/slack.py: 60 notes took 120 s)."""
    from concurrent.futures import ThreadPoolExecutor

    remote = tmp_path / "memory.git"
    store = Store.open(str(remote), tmp_path / "host", redis=client)
    store.writer.handoff = RedisHandoff(client, "default")
    store.lock.wait = 3.0
    store.init()

    def write(i: int) -> float:
        time.sleep((i % 5) * 0.004)  # arrivals overlap, as tasks taken off a queue do
        started = time.monotonic()
        store.write([AddEntry("inbox.md", f"fact {i} about widget {i * 7}")], author=P, message="m")
        return time.monotonic() - started

    with ThreadPoolExecutor(8) as pool:
        took = list(pool.map(write, range(120)))
    assert sum(line.startswith("- ") for line in store.read("inbox.md").splitlines()) == 120
    assert max(took) < 2.0
    assert not client.exists(LOCK)  # let go once nobody writes
    store.write([AddEntry("inbox.md", "a later fact")], author=P, message="m")  # not LockTimeout
