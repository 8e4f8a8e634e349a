"""The embedded Redis's processes stop whatever stops the hippo process that started them: a
command stopped at any point of its start-up (SIGTERM or SIGKILL), a watchdog killed outright, a
server that fails to start, a watchdog started from a folder with a `jobs` of its own
(jobs/embedded_redis.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from jobs.config import Config
from jobs.embedded_redis import EmbeddedRedisError
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.jobs.test_processes import _gone, _hippo_env, _redis_users, _settle
from tests.waiting import until

# Points of a command's start-up, each a file in its data folder (or none: a delay)
START_UP = {
    "importing": "",  # 0.2 s in: before anything of Redis
    "joining": "redis.lock",  # the lock taken, before the server starts
    "starting": "redis.log",  # the server starting, not yet recorded in redis.json
    "recorded": "redis.json",  # a user of a running server
}


def test_a_command_stopped_during_start_up_leaves_no_process(tmp_path: Path) -> None:
    """`hippo dream` (it joins the embedded Redis, then finds no remote) stopped by SIGTERM
    (unwound as SystemExit) or SIGKILL at each point of its start-up: nothing is left, the
    redis-server started but not yet recorded included (its watchdog kills it)."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    cases = {
        (signum, point): tmp_path / f"{signum.name}-{point}"
        for signum in (signal.SIGTERM, signal.SIGKILL)
        for point in START_UP
    }
    children = {
        case: subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", "dream"],
            cwd=ROOT,
            env=_hippo_env(tmp_path, HIPPO_DATA_DIR=str(data)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for case, data in cases.items()
    }
    started, waiting = time.monotonic(), dict(children)
    try:
        while waiting and time.monotonic() - started < 60:
            for (signum, point), child in list(waiting.items()):
                mark = START_UP[point]
                data = cases[signum, point]
                if (data / mark).exists() if mark else time.monotonic() - started > 0.2:
                    child.send_signal(signum)
                    del waiting[signum, point]
            time.sleep(0.001)
        codes = {case: child.wait(timeout=30) for case, child in children.items()}
    finally:
        for child in children.values():
            child.kill()
    assert not waiting  # each start-up reached its point
    for (signum, point), code in codes.items():
        assert code in (128 + signum, -signum), (signum.name, point, code)
        stderr = children[signum, point].stderr
        assert stderr is not None and b"Traceback" not in stderr.read(), (signum.name, point)
    assert _settle(tmp_path, before) == []


def test_the_embedded_redis_dies_with_its_watchdog(tmp_path: Path) -> None:
    """redis-server is its watchdog's child: the watchdog killed outright, the server (sent
    SIGTERM by the kernel) ends too; the user then leaves without fuss."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    rt = Runtime(Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "r.git")))
    try:
        rt.redis.ping()
        [pid, _] = _redis_users(tmp_path)["server"]
        [watchdog] = [
            p for p in psutil.Process().children() if "jobs.embedded_redis" in p.cmdline()
        ]
        assert psutil.Process(pid).ppid() == watchdog.pid
        watchdog.kill()
        until(lambda: _gone(pid), 10, "the server ending")
    finally:
        rt.close()
    assert _settle(tmp_path, before) == []


def test_an_embedded_redis_that_fails_to_start_says_why_at_once(tmp_path: Path) -> None:
    """A redis.db the server refuses: the user fails at once (not after START_TIMEOUT) with the
    server's last log line, and nothing is left, its watchdog included."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    data = tmp_path / "data"
    data.mkdir()
    (data / "redis.db").write_bytes(b"not a redis dump")
    rt = Runtime(Config(data_dir=data, memory_remote=str(tmp_path / "r.git")))
    started = time.monotonic()
    try:
        with pytest.raises(EmbeddedRedisError, match="did not start") as failed:
            rt.redis.ping()
    finally:
        rt.close()
    assert time.monotonic() - started < 5
    assert "Fatal error loading the DB" in str(failed.value), failed.value
    assert _settle(tmp_path, before) == []


def test_the_watchdog_is_hippos_own_whatever_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started in a folder with a `jobs` package of its own (which `python -m` would import
    first), the watchdog, and so the server it starts, is still hippo's."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "__init__.py").write_text("")
    (tmp_path / "jobs" / "embedded_redis.py").write_text("raise SystemExit(1)\n")
    monkeypatch.chdir(tmp_path)
    rt = Runtime(Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "r.git")))
    try:
        assert rt.redis.ping()
    finally:
        rt.close()
    assert _settle(tmp_path, before) == []
