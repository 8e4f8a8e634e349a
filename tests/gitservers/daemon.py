"""`git daemon` on 127.0.0.1 with receive-pack enabled (git://, no auth)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.gitservers.procs import accepts, free_port, git_env, stop_tree


class GitDaemon:
    """`git daemon` with receive-pack on 127.0.0.1:port, serving the bare repositories in root."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.port = 0
        self.counts: dict[str, int] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def receive_pack_requests(self) -> int:
        return self.counts.get("receive_pack", 0)

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def _spawn(self, port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                "git",
                "daemon",
                "--reuseaddr",
                "--verbose",  # logs each request to stderr: how pushes are counted
                f"--base-path={self.root}",
                "--export-all",
                "--enable=receive-pack",
                "--informative-errors",
                "--listen=127.0.0.1",
                f"--port={port}",
                str(self.root),
            ],
            env=git_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def start(self) -> GitDaemon:
        """Start on a free port (or on the same port after go_down()); wait until it accepts."""
        for _ in range(5):
            port = self.port or free_port()
            proc = self._spawn(port)
            deadline = time.monotonic() + 10
            while proc.poll() is None and not accepts(port) and time.monotonic() < deadline:
                time.sleep(0.02)
            if proc.poll() is None and accepts(port):
                self._proc, self.port = proc, port
                self._reader = threading.Thread(target=self._read_log, args=(proc,), daemon=True)
                self._reader.start()
                return self
            stop_tree(proc)
            if proc.stderr is not None:
                proc.stderr.close()
        raise RuntimeError(f"git daemon did not start on 127.0.0.1 (last port {port})")

    def _read_log(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if b"Request receive-pack" in line:
                with self._lock:
                    self.counts["receive_pack"] = self.counts.get("receive_pack", 0) + 1

    def go_down(self) -> None:
        """Stop the daemon (and the connections it serves); come_back() restarts on the port."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        stop_tree(proc)
        if self._reader is not None:
            self._reader.join(5)
        if proc.stderr is not None:
            proc.stderr.close()

    def come_back(self) -> None:
        self.start()

    def stop(self) -> None:
        self.go_down()

    def __enter__(self) -> GitDaemon:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def git_daemon(root: Path) -> Iterator[GitDaemon]:
    """git:// over the bare repositories in root, receive-pack enabled; stopped on exit."""
    with GitDaemon(root) as daemon:
        yield daemon
