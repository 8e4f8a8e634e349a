"""A hippo process killed outright (SIGKILL of the process and its process group, as a crash or an
OOM kill leaves it) takes its children with it, and the embedded Redis does not outlive the last
process that used it. Checked through the process table: before jobs/lifeline.py, each killed
`hippo worker` left a Celery worker consuming tasks with no parent, and the redis-server ran on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tests.conftest import ROOT
from tests.jobs.test_processes import _free_port, _get, _hippo_env, _redis_users, _settle
from tests.waiting import until


def _start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / f"{args[0]}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", *args],
            cwd=ROOT,
            env=_hippo_env(tmp_path),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, as a process manager starts it
        )
    return proc, log


def _child_running(proc: subprocess.Popen[bytes], name: str) -> bool:
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        return False
    return any(name in _cmdline(c) for c in children)


def _cmdline(p: psutil.Process) -> str:
    try:
        return " ".join(p.cmdline())
    except psutil.Error:
        return ""  # gone, or a zombie, between the listing and the reading (CI saw a zombie)


@pytest.mark.integration
@pytest.mark.parametrize("command", ["worker", "serve", "dev"])
def test_sigkill_of_hippo_and_its_group_leaves_no_process(tmp_path: Path, command: str) -> None:
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    port = _free_port()
    args = [command] if command == "worker" else [command, "--host", "127.0.0.1"]
    args += [] if command == "worker" else ["--port", str(port)]
    proc, log = _start(tmp_path, *args)
    child = "gunicorn" if command == "serve" else "celery"
    try:
        until(
            lambda: _child_running(proc, child),
            90,
            f"the {child} child",
            [log],
            tolerate=(OSError,),
        )
        if command != "worker":
            until(
                lambda: _get(f"http://127.0.0.1:{port}/healthz"),
                90,
                "/healthz",
                [log],
                tolerate=(OSError,),
            )
        assert _redis_users(tmp_path).get("server"), "the embedded Redis runs"
        children = psutil.Process(proc.pid).children(recursive=True)
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=10) == -signal.SIGKILL
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # a failed wait above leaves nothing either
    left = _settle(tmp_path, before, timeout=45)
    assert left == [], f"{left}\n{log.read_text()}"
    assert all(not c.is_running() or c.status() == psutil.STATUS_ZOMBIE for c in children)
    assert not (tmp_path / "data" / "redis.json").exists()
