"""The one place that turns a Config into live things: Redis, the memory store, outside clients.

Built lazily and once per process (web, worker, CLI). Tests build a Runtime from their own Config.
Each client's library is imported when the client is first built, not with this module: `hippo
note` needs the store only, and importing anthropic, Celery and slack_sdk cost it two seconds.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jobs import context
from jobs.config import Config

if TYPE_CHECKING:
    import anthropic
    import redis
    from celery import Celery
    from slack_sdk import WebClient

    from integrations.slack_post import Outbox, Poster
    from jobs import embedded_redis
    from jobs.workspaces import Workspaces
    from memory.git import Store


def redis_options() -> dict[str, Any]:
    """Fail fast when Redis is down or half-open: the front doors must answer Slack within 3 s
    (a 503 that Slack retries), and a task's error lets Celery retry it later. One quick retry
    rides over a dropped connection (Redis restarted); a timeout is not retried, and redis-py's
    default (3 retries of either, backing off) could take many seconds."""
    import redis
    from redis.backoff import ConstantBackoff
    from redis.retry import Retry

    return {
        "socket_connect_timeout": 1.0,
        "socket_timeout": 2.0,
        "retry": Retry(ConstantBackoff(0.05), 1, supported_errors=(redis.ConnectionError,)),
    }


class StoreCache:
    """The stores one process opened beside its own, by (workspace, remote): each installed
    workspace's (jobs/workspaces.py) and each person's or the org's memory (jobs/memories.py).
    Opened, and laid out like `hippo init` when new, once per process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[tuple[str, str], Store] = {}

    def get(self, config: Config, build: Callable[[], Store]) -> Store:
        """The store of `config`'s memory, built by `build` the first time."""
        key = (config.workspace, config.remote)
        with self._lock:
            found = self._open.get(key)
        if found is not None:
            return found
        store = build()
        store.init()  # an unreachable remote raises here: the task retries later
        with self._lock:
            return self._open.setdefault(key, store)


class Runtime:
    """Lazy accessors for everything a request or task needs. Nothing connects at construction."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.team = ""  # the Slack workspace this Runtime is for ("": the deployment's own)
        self.stores = StoreCache()  # the other memories' stores this process opened
        self._lock = threading.Lock()
        self._embedded: embedded_redis.Server | None = None
        self._holding = threading.local()  # per thread: inside `_locked` (see `after_lock`)
        self._after: list[Callable[[], None]] = []

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The Runtime's lock, marked held by this thread from before it is taken until after
        it is let go, so a signal handler running on this thread meanwhile knows (`after_lock`);
        what it deferred runs once the lock is let go."""
        depth = getattr(self._holding, "depth", 0)
        self._holding.depth = depth + 1
        try:
            with self._lock:
                yield
        finally:
            self._holding.depth = depth
            while depth == 0 and self._after:  # also when the body failed: a stop still stops
                self._after.pop(0)()

    def after_lock(self, fn: Callable[[], None]) -> bool:
        """For a signal handler, which Python runs on the main thread between two of its
        bytecodes: True when that thread was interrupted inside this Runtime's lock (joining
        the embedded Redis: starting redis-server, for seconds at most), and `fn` will run as
        soon as it lets go. Run now, `fn` would wait for a lock its own thread holds, forever
        (close() needs it). False: nothing held here, run `fn` now."""
        if not getattr(self._holding, "depth", 0):
            return False
        self._after.append(fn)
        return True

    @property
    def redis_url(self) -> str:
        """REDIS_URL, or the embedded server's `redis+socket://` URL (started on first use)."""
        if self.config.redis_url:
            return self.config.redis_url
        return "redis+socket://" + str(self._embedded_server().socket_file)

    def _embedded_server(self) -> embedded_redis.Server:
        with self._locked():
            if self._embedded is None:
                from jobs import embedded_redis

                # A real redis-server on a socket, shared with the other hippo processes on this
                # data folder and stopped by the last of them to leave (jobs/embedded_redis.py).
                self._embedded = embedded_redis.acquire(Path(self.config.data_dir))
            server = self._embedded
        return server

    @cached_property
    def redis(self) -> redis.Redis:
        import redis

        url = self.config.redis_url
        if url.startswith("redis+socket://"):  # kombu's spelling; `hippo dev` hands it down
            return redis.Redis(
                unix_socket_path=url.removeprefix("redis+socket://"), **redis_options()
            )
        if url:
            return redis.Redis.from_url(url, **redis_options())
        server = self._embedded_server()
        return redis.Redis(unix_socket_path=server.socket_file, **redis_options())

    @cached_property
    def store(self) -> Store:
        # With a shared REDIS_URL the lock is a Redis lock (writers on several hosts); an
        # embedded Redis serves one host only, where a file lock does the same without it.
        from jobs.handoff import RedisHandoff
        from jobs.memory_auth import remote_auth
        from memory.git import Store  # git: not for a search the index answers (on_disk.py)

        shared = self.redis if self.config.redis_url else None
        store = Store.open(
            self.config.remote,
            self.config.data_dir,
            workspace=self.config.workspace,
            redis=shared,
            auth=remote_auth(self.config),
            # writers on every host hand their writes to the lock's holder (jobs/handoff.py)
            handoff=RedisHandoff(shared, self.config.workspace) if shared is not None else None,
        )
        store.observer = _observe_write  # write latency, refusals, push retries
        store.writer.context_trailers = context.trailers  # the request id, in every commit
        return store

    @cached_property
    def llm(self) -> anthropic.Anthropic | None:
        """The Claude client, or None without ANTHROPIC_API_KEY (deterministic fallbacks)."""
        if not self.config.anthropic_api_key:
            return None
        from integrations.llm import make_client

        return make_client(
            self.config.anthropic_api_key,
            self.config.anthropic_base_url or None,
            timeout=self.config.llm_timeout,
        )

    @cached_property
    def slack(self) -> WebClient:
        """The Slack Web API client (429 and 5xx retried), at SLACK_API_URL."""
        from integrations.slack_post import make_web_client

        return make_web_client(self.config.slack_bot_token, self.config.slack_api_url)

    @cached_property
    def poster(self) -> Poster:
        """Slack when SLACK_BOT_TOKEN is set, else the console outbox (listed at /outbox)."""
        from integrations.slack_post import SlackPoster

        if self.config.slack_bot_token:
            return SlackPoster(self.slack)
        return self.outbox

    @cached_property
    def outbox(self) -> Outbox:
        """The console outbox: hippo's replies while it has no Slack token (listed at /outbox)."""
        from integrations.slack_post import Outbox
        from jobs import keys

        return Outbox(self.redis, keys.OUTBOX)

    @cached_property
    def celery(self) -> Celery:
        """The Celery app this process sends tasks through, by name (`jobs.task_messages.send`).
        Tasks run in the app `jobs.celery_app.make_celery(runtime)` builds, which carries its
        Runtime to them; this one holds no tasks and never becomes Celery's current app."""
        from celery import Celery

        from jobs import broker

        app = Celery("hippo", set_as_current=False)
        app.conf.update(broker.settings(self.config, self.redis_url))
        return app

    @cached_property
    def workspaces(self) -> Workspaces:
        """The deployment's installed Slack workspaces (many workspaces, through OAuth)."""
        from jobs.workspaces import Workspaces  # slack_sdk's stores: only with many workspaces

        return Workspaces(self.config)

    def for_team(self, team: str) -> Runtime:
        """`team`'s Runtime when hippo is installed through OAuth; else this one."""
        if not team or not self.config.slack_oauth or self.team:
            return self
        return TeamRuntime(self, self.workspaces.config_for(team))

    def close(self) -> None:
        """Leave the embedded Redis, if this Runtime used it; the last process to leave stops it.
        (Exiting without close() leaves it too, from atexit.)"""
        with self._locked():
            server, self._embedded = self._embedded, None
        if "redis" in self.__dict__ and server is not None:
            self.redis.close()
        if server is not None:
            from jobs import embedded_redis

            embedded_redis.release(server)


class TeamRuntime(Runtime):
    """One workspace's (or one memory's) Runtime: its own Config and Store, kept in the
    deployment's StoreCache; the deployment's Redis, Celery, Claude and installed workspaces."""

    def __init__(self, base: Runtime, config: Config) -> None:
        super().__init__(config)
        self.base = base
        self.team = config.workspace
        self.stores = base.stores

    @property
    def redis_url(self) -> str:
        return self.base.redis_url

    @cached_property
    def redis(self) -> redis.Redis:
        return self.base.redis

    @cached_property
    def celery(self) -> Celery:
        return self.base.celery

    @cached_property
    def llm(self) -> anthropic.Anthropic | None:
        return self.base.llm

    @cached_property
    def workspaces(self) -> Workspaces:
        return self.base.workspaces

    @cached_property
    def store(self) -> Store:
        return self.stores.get(self.config, lambda: super(TeamRuntime, self).store)

    def close(self) -> None:
        """Nothing of its own to close: Redis belongs to the deployment's Runtime."""


# prometheus_client is imported by the first write, not by opening the store: `hippo search`
# never writes, and it costs a CLI command ~15 ms.
def _observe_write(event: str, seconds: float) -> None:
    from integrations import metrics

    metrics.observe_write(event, seconds)
