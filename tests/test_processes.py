"""hippo's processes: settings from the environment, the embedded Redis, the Procfile, `hippo dev`."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psutil
import pygit2
import pytest

from bot.cli_server import worker_argv
from jobs.config import Config
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.console_helpers import signed_in_opener
from tests.fakes.slack import SECRET, signed_headers
from tests.slack_helpers import mention


def test_slack_settings_come_from_the_environment() -> None:
    """Each variable the Slack app reads lands in Config; unset, SLACK_API_URL is Slack's own."""
    env = {
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_SIGNING_SECRET": "shh",
        "SLACK_APP_TOKEN": "xapp-1",
        "SLACK_API_URL": "https://slack-gov.com/api/",
        "REDIS_URL": "redis://cache.internal:6379/2",
        "HIPPO_MEMORY_REMOTE": "git@example.com:team/memory.git",
        "HIPPO_DATA_DIR": "/var/lib/hippo",
        "PORT": "8123",
        "HIPPO_SAVE_REACTION": ":floppy_disk:",
    }
    c = Config.from_env(env)
    got = (c.slack_bot_token, c.slack_signing_secret, c.slack_app_token, c.slack_api_url)
    assert got == ("xoxb-1", "shh", "xapp-1", "https://slack-gov.com/api/")
    assert (c.redis_url, c.remote, c.data_dir, c.port) == (
        "redis://cache.internal:6379/2",
        "git@example.com:team/memory.git",
        Path("/var/lib/hippo"),
        8123,
    )
    assert c.save_reaction == "floppy_disk"
    d = Config.from_env({})
    assert (d.slack_api_url, d.redis_url, d.port, d.save_reaction, d.slack_enabled) == (
        "https://slack.com/api/",
        "",
        3000,
        "brain",
        False,
    )
    assert d.remote == str(Path(".hippo") / "remote.git")


def test_without_redis_url_an_embedded_redis_is_the_broker(tmp_path: Path) -> None:
    """No REDIS_URL: a real redis-server starts; Celery's broker is its `redis+socket://` URL,
    which reaches the same server, and close() stops it."""
    rt = Runtime(Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "r.git")))
    try:
        url = rt.redis_url
        assert url.startswith("redis+socket://")
        assert rt.celery.conf.broker_url == url
        rt.redis.set("k", "v")
        assert Runtime(Config(redis_url=url)).redis.get("k") == b"v"  # the URL reaches the same
    finally:
        rt.close()
    assert not Path(url.removeprefix("redis+socket://")).exists()


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def test_procfile_declares_web_worker_and_beat() -> None:
    """The Procfile runs gunicorn on create_app (web), a Celery worker and Celery beat."""
    procs = procfile()
    assert set(procs) == {"web", "worker", "beat"}
    assert procs["web"].startswith("gunicorn 'bot.app:create_app()'") and "$PORT" in procs["web"]
    assert procs["worker"].startswith("celery -A jobs.worker worker")
    assert procs["beat"].startswith("celery -A jobs.worker beat")


def test_hippo_worker_runs_the_procfile_worker(tmp_path: Path) -> None:
    """`hippo worker` starts the same Celery command line as the Procfile's worker."""
    rt = Runtime(Config(data_dir=tmp_path))
    assert worker_argv(rt)[1:] == ["-m", *procfile()["worker"].split()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


def _until(cond: Any, timeout: float, what: str, log: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = cond()
        except OSError:  # the web process is not listening yet
            found = None
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{what} not seen in {timeout:.0f}s; hippo dev said:\n{log.read_text()}")


@pytest.mark.integration
def test_hippo_dev_serves_slack_offline_until_interrupted(tmp_path: Path) -> None:
    """`hippo dev` with no REDIS_URL and no bot token: a signed mention is committed and answered
    in /outbox (web, worker, embedded Redis in one terminal); Ctrl-C stops all of it."""
    port, log = _free_port(), tmp_path / "dev.log"
    remote = tmp_path / "remote.git"
    env = {
        **os.environ,
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": str(remote),
        "SLACK_SIGNING_SECRET": SECRET,
        "HIPPO_CONSOLE_TOKEN": "dev-token",
    }
    with log.open("wb") as out:
        dev = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "dev", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _until(lambda: _get(base + "/healthz"), 60, "/healthz", log)
        raw = json.dumps(mention("remember the laptop runs everything offline"))
        req = urllib.request.Request(
            base + "/slack/events", data=raw.encode(), headers=signed_headers(raw), method="POST"
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.status == 200
        console = signed_in_opener(base, "dev-token")  # the outbox is behind the sign-in

        def outbox() -> Any:
            with console.open(base + "/outbox", timeout=5) as resp:
                return json.loads(resp.read())["messages"]

        messages = _until(outbox, 60, "a reply", log)
        assert "Saved to" in messages[0]["text"] and "inbox.md" in messages[0]["text"]
        repo = pygit2.Repository(str(remote))
        assert (
            "laptop runs everything offline" in repo.revparse_single("HEAD:inbox.md").data.decode()
        )
        time.sleep(1.0)
        assert dev.poll() is None  # it keeps serving
        children = psutil.Process(dev.pid).children(recursive=True)
        assert children  # the worker (and the embedded redis-server)
    finally:
        dev.send_signal(signal.SIGINT)
        try:
            code = dev.wait(timeout=30)
        except subprocess.TimeoutExpired:
            dev.kill()
            raise
    assert code == 0
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == []
