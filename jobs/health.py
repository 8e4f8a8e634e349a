"""Readiness (`/readyz`) and the worker heartbeat it reads.

Ready means: Redis answers, the memory remote answers a fetch, and a worker wrote its heartbeat
in the last minute. Each check gets `timeout` seconds and runs in its own thread, so one that
hangs (a remote behind a dead network) cannot hold the answer past the deadline.

The remote's answer is kept for `HIPPO_READY_CACHE` seconds (30), in Redis so every web worker
shares it (and in the process when Redis is down): a fetch is an authenticated request or two to
the git host, and probes (or anyone, /readyz needs no sign-in) must not turn into load there.
The answer says how old the remote's check is.

Workers write the heartbeat from a bootstep (`Heartbeat`): a Redis sorted set per workspace,
worker name → time of its last beat, every HEARTBEAT_EVERY seconds.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import redis
from celery import bootsteps

from integrations import metrics
from jobs import keys
from jobs.runtime import Runtime

HEARTBEAT_EVERY = 15.0
HEARTBEAT_FRESH = 60.0
FAILURE_KEPT = 5.0  # seconds a failed remote check is reused (a good one: HIPPO_READY_CACHE)
log = logging.getLogger("hippo.health")
_probes: dict[int, threading.Thread] = {}  # a store's remote check still running, by id
_probes_lock = threading.Lock()
# The remote's last answer per store when Redis cannot keep it: (time.time() of the check, why).
_remembered: dict[str, tuple[float, str]] = {}


def heartbeat_key(workspace: str) -> str:
    return keys.workers(workspace)


def beat(client: redis.Redis, workspace: str, worker: str, now: float | None = None) -> None:
    """Record that `worker` is alive now (and forget workers silent for an hour)."""
    now = time.time() if now is None else now
    pipe = client.pipeline(transaction=False)
    pipe.zadd(heartbeat_key(workspace), {worker: now})
    pipe.zremrangebyscore(heartbeat_key(workspace), 0, now - 3600)
    pipe.execute()


def last_beat(client: redis.Redis, workspace: str) -> float | None:
    """The time of the newest heartbeat of any worker of `workspace`, if any."""
    newest = client.zrevrange(heartbeat_key(workspace), 0, 0, withscores=True)
    return float(newest[0][1]) if newest else None


class Heartbeat(bootsteps.StartStopStep):  # type: ignore[misc]  # celery ships no types
    """A worker bootstep: beat on start, then every HEARTBEAT_EVERY seconds until stopped."""

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, worker: Any) -> None:
        rt = worker.app.runtime  # the HippoCelery this worker runs (jobs/task_base.py)
        name = str(getattr(worker, "hostname", "") or "worker")
        self._stop.clear()

        def run() -> None:
            while True:
                try:
                    beat(rt.redis, rt.config.workspace, name)
                except redis.RedisError as exc:  # /readyz will say so; keep trying
                    log.warning("worker heartbeat not written: %s", exc)
                if self._stop.wait(HEARTBEAT_EVERY):
                    return

        self._thread = threading.Thread(target=run, name="hippo-heartbeat", daemon=True)
        self._thread.start()

    def stop(self, worker: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    terminate = stop  # the test worker (and a terminating one) ends with terminate


class MetricsEndpoint(bootsteps.StartStopStep):  # type: ignore[misc]  # celery ships no types
    """A worker bootstep: with HIPPO_METRICS_PORT, serve this worker's /metrics on that port
    (for hosts where web and worker share no folder, e.g. separate dynos)."""

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        self._stop: Callable[[], None] | None = None

    def start(self, worker: Any) -> None:
        config = worker.app.runtime.config
        if config.metrics_port:
            self._stop = metrics.serve(config.metrics_port, config.metrics_dir)
            log.info("worker metrics on port %d", config.metrics_port)

    def stop(self, worker: Any) -> None:
        if self._stop is not None:
            self._stop()
            self._stop = None

    terminate = stop  # the test worker (and a terminating one) ends with terminate


def _probe_client(rt: Runtime, timeout: float) -> redis.Redis:
    """A client on the same Redis as `rt.redis`, but one that gives up after `timeout`."""
    pool = rt.redis.connection_pool
    kwargs = {**pool.connection_kwargs, "socket_timeout": timeout}
    kwargs["socket_connect_timeout"] = timeout
    return redis.Redis(
        connection_pool=redis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
    )


def _check_redis(client: redis.Redis) -> str:
    client.ping()
    return ""


def _check_worker(client: redis.Redis, workspace: str) -> str:
    last = last_beat(client, workspace)
    if last is None:
        return "no worker heartbeat yet: start `hippo worker` (the Procfile's worker)"
    age = time.time() - last
    if age > HEARTBEAT_FRESH:
        return f"no worker heartbeat for {age:.0f} s (expected every {HEARTBEAT_EVERY:.0f} s)"
    return ""


def remote_key(rt: Runtime) -> str:
    """The Redis key holding the remote check's last answer (per workspace and remote)."""
    remote = hashlib.sha256(rt.store.shown.encode()).hexdigest()[:16]
    return keys.remote_ready(rt.config.workspace, remote)


def _recalled(client: redis.Redis, key: str, ttl: float) -> tuple[float, str] | None:
    """The remote's answer another probe (of any web worker) got within `ttl`: (age, why)."""
    if ttl <= 0:
        return None
    kept = _remembered.get(key)
    if kept is None or time.time() - kept[0] >= _kept_for(ttl, kept[1]):  # ours first
        try:
            raw = client.get(key)
            if raw is not None:
                data = json.loads(raw)
                kept = (float(data["at"]), str(data["why"]))
        except (redis.RedisError, ValueError, KeyError, TypeError):
            pass  # Redis down (its own check says so) or an odd value: fetch
    if kept is None:
        return None
    age = max(0.0, time.time() - kept[0])
    return (age, kept[1]) if age < _kept_for(ttl, kept[1]) else None


def _kept_for(ttl: float, why: str) -> float:
    """A failure is kept only a few seconds: a remote back up turns ready soon after."""
    return min(ttl, FAILURE_KEPT) if why else ttl


def _remember(client: redis.Redis, key: str, ttl: float, why: str) -> None:
    if ttl <= 0:
        return
    at = time.time()
    _remembered[key] = (at, why)
    with contextlib.suppress(redis.RedisError):  # then kept in this process only
        kept = _kept_for(ttl, why)
        client.set(key, json.dumps({"at": at, "why": why}), px=max(1, int(kept * 1000)))


def _check_remote(rt: Runtime, client: redis.Redis, ttl: float, ages: dict[str, float]) -> str:
    """The remote's answer: a recent one when there is (its age in `ages`), else a fetch."""
    key = remote_key(rt)
    recalled = _recalled(client, key, ttl)
    if recalled is not None:
        ages["remote"] = round(recalled[0], 1)
        return recalled[1]
    try:
        rt.store.sync()
        why = ""
    except Exception as exc:
        why = str(exc) or type(exc).__name__
    _remember(client, key, ttl, why)
    ages["remote"] = 0.0
    return why


class _Check(NamedTuple):
    thread: threading.Thread
    out: list[str]  # the check's complaint ("" when fine), once it has answered


def _start(check: Callable[[], str], name: str) -> _Check:
    """Run `check` in a daemon thread; its complaint (or error) lands in the list."""
    out: list[str] = []

    def target() -> None:
        try:
            out.append(check())
        except Exception as exc:
            out.append(str(exc) or type(exc).__name__)

    thread = threading.Thread(target=target, name=f"hippo-readyz-{name}", daemon=True)
    thread.start()
    return _Check(thread, out)


def readiness(
    rt: Runtime, timeout: float, cache: float = 0.0, ages: dict[str, float] | None = None
) -> dict[str, str]:
    """Each check's complaint, "" when it is fine: redis, remote, worker. The remote's answer
    is reused for `cache` seconds; `ages` receives how old it is (seconds)."""
    ages = {} if ages is None else ages
    client = _probe_client(rt, timeout)
    started: dict[str, _Check | str] = {
        "redis": _start(lambda: _check_redis(client), "redis"),
        "worker": _start(lambda: _check_worker(client, rt.config.workspace), "worker"),
    }
    # One fetch in flight per store: a remote that hangs must not gather a thread per probe.
    with _probes_lock:
        running = _probes.get(id(rt.store))
        if running is not None and running.is_alive():
            started["remote"] = "the previous check has not answered yet"
        else:
            probe = _start(lambda: _check_remote(rt, client, cache, ages), "remote")
            started["remote"] = probe
            _probes[id(rt.store)] = probe[0]
    deadline = time.monotonic() + timeout
    results: dict[str, str] = {}
    for name in ("redis", "remote", "worker"):
        item = started[name]
        if isinstance(item, str):
            results[name] = item
            continue
        thread, out = item
        thread.join(max(0.0, deadline - time.monotonic()))
        results[name] = out[0] if out else f"no answer within {timeout:g} s"
    client.close()
    return results
