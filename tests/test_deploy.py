"""The deploy recipe (README.md, docs/DEPLOY.md), as an operator runs it: a virtualenv from
`requirements.lock` alone (no dev extras), hippo installed with `--no-deps`, and the Procfile's
`web`, `worker` and `beat` started with the exact command lines the Procfile holds, from a folder
that holds no source (so only what the package installs is importable). A signed Slack note lands
as a commit on a memory remote served over smart HTTP with auth, and its reply reaches Slack; a
signed GitHub ping is answered; `hippo dream` runs from the same install; SIGTERM stops everything.

A runtime import that only the dev lock satisfies (greenlet for SQLAlchemy 2.1's asyncio module
was one: web and worker crashed at boot) fails here, since the dev lock is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pygit2
import pytest

from tests.conftest import ROOT
from tests.fakes.github import delivery_headers
from tests.fakes.slack import SECRET, SlackFake, signed_headers
from tests.gitservers import bare_repo, http_server
from tests.gitservers.procs import free_port
from tests.redis_proc import RedisServer
from tests.slack_helpers import mention
from tests.waiting import until

pytestmark = pytest.mark.integration
HOOK_SECRET = "deploy-hook-secret"
# What an operator's checkout holds; everything else (.venv, .git, caches) is the developer's.
SOURCE = ("pyproject.toml", "README.md", "LICENSE", "bot", "integrations", "jobs", "memory")


def _pip(venv: Path, *args: str) -> None:
    """pip (this interpreter's) installing into `venv` (pip's `--python`): the same install as
    the venv's own pip, without first installing pip into it (ensurepip: ~9 s of CPU)."""
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    done = subprocess.run(
        [*pip, "-q", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"pip {' '.join(args)}:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def deploy_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip install -r requirements.lock && pip install --no-deps .` in a new virtualenv."""
    work = tmp_path_factory.mktemp("deploy")
    src = work / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for name in SOURCE:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=skip)
        else:
            shutil.copy2(path, src / name)
    shutil.copy2(ROOT / "requirements.lock", src / "requirements.lock")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # --no-compile: no byte-compiling every installed module up front (a minute of CPU on a
    # loaded 2-core machine); the processes compile what they import, as any fresh checkout does.
    _pip(venv, "install", "--no-compile", "-r", str(src / "requirements.lock"))
    _pip(venv, "install", "--no-compile", "--no-deps", str(src))
    return venv


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().split("\n")
    return dict(line.split(": ", 1) for line in lines if line.strip())


class Procs:
    """The Procfile's processes, each `sh -c 'exec <line>'` in its own session."""

    def __init__(self, venv: Path, cwd: Path, env: dict[str, str]) -> None:
        self.venv, self.cwd, self.env = venv, cwd, env
        self.running: dict[str, subprocess.Popen[bytes]] = {}
        self.logs: dict[str, Path] = {}

    def start(self, name: str, line: str) -> None:
        self.logs[name] = log = self.cwd / f"{name}.log"
        with log.open("wb") as out:
            self.running[name] = subprocess.Popen(
                ["/bin/sh", "-c", f"exec {line}"],
                cwd=self.cwd,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def alive(self) -> None:
        for name, proc in self.running.items():
            assert proc.poll() is None, f"{name} exited:\n{self.logs[name].read_text()[-4000:]}"

    def stop(self) -> dict[str, int]:
        codes = {}
        for proc in self.running.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name, proc in self.running.items():
            try:
                codes[name] = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                codes[name] = proc.wait()
        return codes


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, Any, RedisServer, SlackFake]]:
    srv = tmp_path / "srv"
    srv.mkdir()
    bare = bare_repo(srv)
    redis_server = RedisServer(tmp_path / "redis").start()
    try:
        with http_server(srv) as git, SlackFake() as slack:
            yield bare, git, redis_server, slack
    finally:
        redis_server.stop()


def test_the_documented_deploy_boots_and_serves(
    deploy_venv: Path, served: tuple[Path, Any, RedisServer, SlackFake], tmp_path: Path
) -> None:
    bare, git, redis_server, slack = served
    run = tmp_path / "run"  # no source here: imports resolve to the installed package only
    run.mkdir()
    port = free_port()
    env = {
        "PATH": f"{deploy_venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "PORT": str(port),
        "REDIS_URL": redis_server.url,
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": git.url("memory.git"),
        "HIPPO_MEMORY_USERNAME": git.user,
        "HIPPO_MEMORY_TOKEN": git.password,
        "SLACK_BOT_TOKEN": "xoxb-deploy",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": slack.url,
        "GITHUB_WEBHOOK_SECRET": HOOK_SECRET,
        "HIPPO_PUBLIC_URL": f"http://127.0.0.1:{port}",
    }
    init = subprocess.run(
        [str(deploy_venv / "bin" / "hippo"), "init"], cwd=run, env=env, capture_output=True
    )
    assert init.returncode == 0, init.stderr.decode()
    procs = Procs(deploy_venv, run, env)
    lines = procfile()
    assert set(lines) == {"web", "worker", "beat"}
    for name in ("web", "worker", "beat"):
        procs.start(name, lines[name])
    base = f"http://127.0.0.1:{port}"
    logs = list(procs.logs.values())
    try:

        def ready() -> bool:
            procs.alive()
            with urllib.request.urlopen(base + "/healthz", timeout=5) as resp:
                return resp.status == 200

        until(ready, 90, "/healthz", logs, tolerate=(OSError,), interval=0.2)
        raw = json.dumps(mention("save a note: the deploy recipe boots from requirements.lock"))
        req = urllib.request.Request(
            base + "/slack/events", data=raw.encode(), headers=signed_headers(raw), method="POST"
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200

        def committed() -> bool:
            procs.alive()
            return "deploy recipe boots from requirements.lock" in _inbox(bare)

        until(
            committed,
            60,
            "the note's commit on the remote",
            logs,
            tolerate=(OSError,),
            interval=0.2,
        )
        replies = until(
            lambda: slack.calls("chat.postMessage"),
            30,
            "the Slack reply",
            logs,
            tolerate=(OSError,),
            interval=0.2,
        )
        assert "Saved to" in replies[0].form["text"]

        # A burst, as a team's channel sends them: the worker's threads pass the Redis writer
        # lock between them (a lock kept per thread stalled every write after it for 60 s).
        def send(i: int) -> None:
            text = f"save a note: burst fact {i} is on host {i * 7}"
            raw = json.dumps(mention(text, event_id=f"EvBurst{i}", ts=f"1700000100.{i:06d}"))
            req = urllib.request.Request(
                base + "/slack/events", data=raw.encode(), headers=signed_headers(raw)
            )
            with urllib.request.urlopen(req, timeout=10) as resp:
                assert resp.status == 200

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(send, range(24)))

        def burst_committed() -> bool:
            procs.alive()
            return _inbox(bare).count("burst fact") == 24

        until(
            burst_committed,
            30,
            "the burst's 24 commits",
            logs,
            tolerate=(OSError,),
            interval=0.2,
        )

        ping = (ROOT / "tests/data/github-webhooks/ping").glob("*.json")
        hook = next(iter(sorted(ping))).read_bytes()
        req = urllib.request.Request(
            base + "/github/webhook",
            data=hook,
            headers=delivery_headers(HOOK_SECRET, hook, "ping", "deploy-ping-1"),
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200
        dream = subprocess.run(
            [str(deploy_venv / "bin" / "hippo"), "dream"],
            cwd=run,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert dream.returncode == 0, dream.stdout + dream.stderr
        time.sleep(1.0)
        procs.alive()  # beat, too, is still running
        assert "beat: Starting" in procs.logs["beat"].read_text()
    finally:
        codes = procs.stop()
    said = {name: log.read_text(errors="replace") for name, log in procs.logs.items()}
    assert codes == {"web": 0, "worker": 0, "beat": 0}, said
    for name, text in said.items():
        assert "Traceback" not in text, f"{name}:\n{text[-4000:]}"


def _inbox(bare: Path) -> str:
    """inbox.md at the remote's HEAD, "" before the first note."""
    repo = pygit2.Repository(str(bare))
    if repo.head_is_unborn:
        return ""
    tree = repo.head.peel(pygit2.Commit).tree
    if "inbox.md" not in tree:
        return ""
    blob = repo[tree["inbox.md"].id]
    assert isinstance(blob, pygit2.Blob)
    return blob.data.decode()
