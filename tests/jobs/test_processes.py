"""hippo's processes: settings from the environment, the embedded Redis, the Procfile, `hippo dev`."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
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

from bot.cli.server import worker_argv
from jobs.config import Config
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.console_helpers import signed_in_opener
from tests.fakes.slack import SECRET, signed_headers
from tests.slack_helpers import mention
from tests.waiting import until


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


def test_the_embedded_redis_keeps_its_data_private(tmp_path: Path) -> None:
    """The embedded server's redis.db (queued tasks, Slack state) and its log are 0600 in a 0700
    data folder, whatever the umask; a redis.db an older hippo left 0644 in a 0755 folder is
    tightened on start (issue 24, item 9)."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    config = Config(data_dir=data, memory_remote=str(tmp_path / "r.git"))

    def modes() -> dict[str, int]:
        found = {p.name: stat.S_IMODE(p.stat().st_mode) for p in data.glob("redis.*")}
        return {**found, "data": stat.S_IMODE(data.stat().st_mode)}

    rt = Runtime(config)
    try:
        rt.redis.set("hippo:slack:token", "xoxb-secret")
        rt.redis.save()  # redis.db, written by the server itself
    finally:
        rt.close()
    assert modes()["redis.db"] == modes()["redis.log"] == 0o600 and modes()["data"] == 0o700
    # As an older hippo left them: readable by everyone. The next start tightens them.
    data.chmod(0o755)
    (data / "redis.db").chmod(0o644)
    rt = Runtime(config)
    try:
        assert rt.redis.get("hippo:slack:token") == b"xoxb-secret"
        assert modes()["redis.db"] == 0o600 and modes()["data"] == 0o700
    finally:
        rt.close()


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


# -- every process hippo starts, hippo stops ------------------------------------------------------


def _under(proc: psutil.Process, folder: Path) -> bool:
    """A process working in, or naming, `folder` (redis-server runs in its data folder)."""
    try:
        return proc.cwd().startswith(str(folder)) or str(folder) in " ".join(proc.cmdline())
    except psutil.Error:
        return False


def leftovers(folder: Path, before: set[int]) -> list[str]:
    """Processes still alive that this test started (descendants, orphans included: the test
    process is a subreaper) or that work in its folder."""
    mine = {p.pid for p in psutil.Process().children(recursive=True)} - before
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.status() == psutil.STATUS_ZOMBIE or proc.pid == os.getpid():
                continue
            if proc.pid in mine or _under(proc, folder):
                found.append(f"{proc.pid} {' '.join(proc.cmdline())}")
        except psutil.Error:
            pass
    return found


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # exited, not yet reaped
    except psutil.NoSuchProcess:
        return True


def _settle(folder: Path, before: set[int], timeout: float = 10) -> list[str]:
    deadline = time.monotonic() + timeout
    while (found := leftovers(folder, before)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _hippo_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # the embedded Redis
    env |= {
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": str(tmp_path / "r.git"),
    }
    return env | extra


def _hippo(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli.main", *args],
        cwd=ROOT,
        env=_hippo_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _redis_users(tmp_path: Path) -> dict[str, Any]:
    try:
        state: dict[str, Any] = json.loads((tmp_path / "data" / "redis.json").read_text())
        return state
    except (OSError, ValueError):
        return {}


def test_the_embedded_redis_stops_when_the_last_user_leaves(tmp_path: Path) -> None:
    """Two Runtimes in this process and a `hippo` child share one server; it stops only when the
    last of them has left, and its socket folder goes with it."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    config = Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "r.git"))
    one, two = Runtime(config), Runtime(config)
    url = one.redis_url
    assert url == two.redis_url
    one.redis.set("k", "v")
    [pid, _] = _redis_users(tmp_path)["server"]
    child = subprocess.Popen(
        [sys.executable, "-m", "bot.cli.main", "mcp"],
        cwd=ROOT,
        env=_hippo_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    until(lambda: len(_redis_users(tmp_path).get("users", {})) == 2, 60, "mcp joining")
    assert _redis_users(tmp_path)["server"][0] == pid  # joined the running server
    one.close()
    assert two.redis.get("k") == b"v"
    two.close()
    assert psutil.pid_exists(pid)  # the child still uses it
    assert child.stdin is not None
    child.stdin.close()  # the stdio client went away: a normal exit
    assert child.wait(timeout=30) == 0
    assert _settle(tmp_path, before) == []
    assert _gone(pid) and not Path(url.removeprefix("redis+socket://")).exists()
    assert not (tmp_path / "data" / "redis.json").exists()


def test_a_user_killed_outright_is_pruned_by_the_next(tmp_path: Path) -> None:
    """SIGKILL leaves no chance to leave: the next user prunes the dead one, and stops the server
    when it leaves itself."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    child = subprocess.Popen(
        [sys.executable, "-m", "bot.cli.main", "mcp"],
        cwd=ROOT,
        env=_hippo_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    until(lambda: _redis_users(tmp_path).get("users"), 60, "mcp joining")
    child.kill()
    child.wait()
    rt = Runtime(Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "r.git")))
    rt.redis.ping()
    assert list(_redis_users(tmp_path)["users"]) == [str(os.getpid())]
    rt.close()
    assert _settle(tmp_path, before) == []


def test_cli_commands_leave_no_process(tmp_path: Path) -> None:
    """`hippo note` and `hippo dream` (which uses the embedded Redis for its lock) leave nothing
    running; nor does a dream that fails (no remote yet), with a one-line error."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    broken = _hippo(tmp_path, "dream")
    assert broken.returncode == 3 and broken.stderr.startswith("hippo: ")
    assert "Traceback" not in broken.stderr
    assert _settle(tmp_path, before) == []
    assert _hippo(tmp_path, "init").returncode == 0
    for args in (["note", "processes end"], ["dream"]):
        done = _hippo(tmp_path, *args)
        assert done.returncode == 0, done.stderr
        assert _settle(tmp_path, before) == [], args


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_hippo_mcp_stopped_by_a_signal_leaves_no_process(tmp_path: Path, signum: int) -> None:
    """The MCP stdio server, stopped by SIGTERM (a process manager) or SIGINT, leaves nothing."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    child = subprocess.Popen(
        [sys.executable, "-m", "bot.cli.main", "mcp"],
        cwd=ROOT,
        env=_hippo_env(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    until(lambda: _redis_users(tmp_path).get("users"), 60, "mcp joining")
    child.send_signal(signum)
    try:
        code = child.wait(timeout=30)
    finally:
        child.kill()
    assert code in (0, 128 + signum, -signum)
    assert child.stderr is not None and b"Traceback" not in child.stderr.read()
    assert _settle(tmp_path, before) == []


@pytest.mark.integration
def test_hippo_dev_serves_slack_offline_until_interrupted(tmp_path: Path) -> None:
    """`hippo dev` with no REDIS_URL and no bot token: a signed mention is committed and answered
    in /outbox (web, worker, embedded Redis in one terminal); Ctrl-C (SIGINT) stops its worker
    (with beat) and the embedded Redis, waits for them, and leaves no process and no traceback.
    (SIGTERM: test_hippo_dev_forwards_sigterm_and_leaves_no_process.)"""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    port, log = _free_port(), tmp_path / "dev.log"
    env = _hippo_env(tmp_path, SLACK_SIGNING_SECRET=SECRET, HIPPO_CONSOLE_TOKEN="dev-token")
    with log.open("wb") as out:
        dev = subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", "dev", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        until(lambda: _get(base + "/healthz"), 60, "/healthz", [log], tolerate=(OSError,))
        children = psutil.Process(dev.pid).children(recursive=True)
        assert any("celery" in " ".join(c.cmdline()) for c in children)
        assert _redis_users(tmp_path)["users"] == {
            str(dev.pid): psutil.Process(dev.pid).create_time()
        }
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

        messages = until(outbox, 60, "a reply", [log], tolerate=(OSError,))
        assert "Saved to" in messages[0]["text"] and "inbox.md" in messages[0]["text"]
        # the worker's link points at the port dev serves on (no HIPPO_PUBLIC_URL, no PORT)
        assert f"<http://localhost:{port}/console/file/inbox.md|" in messages[0]["text"]
        repo = pygit2.Repository(str(tmp_path / "r.git"))
        assert (
            "laptop runs everything offline" in repo.revparse_single("HEAD:inbox.md").data.decode()
        )
        time.sleep(1.0)
        assert dev.poll() is None  # it keeps serving
        children = psutil.Process(dev.pid).children(recursive=True)
        assert children  # the worker (and the embedded redis-server)
        dev.send_signal(signal.SIGINT)
        code = dev.wait(timeout=60)
    finally:
        dev.kill()
    assert code == 0, log.read_text()
    _, alive = psutil.wait_procs(children, timeout=10)
    assert alive == []
    assert _settle(tmp_path, before) == [], log.read_text()
    assert "Traceback" not in log.read_text()


@pytest.mark.integration
def test_hippo_dev_forwards_sigterm_and_leaves_no_process(tmp_path: Path) -> None:
    """`hippo dev` stopped by SIGTERM (a process manager) stops its worker (with beat) and the
    embedded Redis, and waits for them; while it runs, a second `hippo dev` on its folder
    refuses. (SIGINT: test_hippo_dev_serves_slack_offline_until_interrupted.)"""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    port, log = _free_port(), tmp_path / "dev.log"
    with log.open("wb") as out:
        dev = subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", "dev", "--port", str(port)],
            cwd=ROOT,
            env=_hippo_env(tmp_path),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        until(
            lambda: _get(f"http://127.0.0.1:{port}/healthz"),
            60,
            "/healthz",
            [log],
            tolerate=(OSError,),
        )
        children = psutil.Process(dev.pid).children(recursive=True)
        assert any("celery" in " ".join(c.cmdline()) for c in children)
        assert _redis_users(tmp_path)["users"] == {
            str(dev.pid): psutil.Process(dev.pid).create_time()
        }
        second = _hippo(tmp_path, "dev", "--port", str(_free_port()))
        assert second.returncode == 1
        assert (
            f"hippo dev is already running on {tmp_path / 'data'} (pid {dev.pid})" in second.stderr
        )
        dev.send_signal(signal.SIGTERM)
        code = dev.wait(timeout=60)
    finally:
        dev.kill()
    assert code == 0, log.read_text()
    assert _settle(tmp_path, before) == [], log.read_text()
    assert "Traceback" not in log.read_text()


def test_hippo_serve_passes_sigterm_to_gunicorn_and_leaves_no_process(tmp_path: Path) -> None:
    """`hippo serve` (gunicorn, a master and its workers) stopped by SIGTERM stops gunicorn,
    waits for it, and leaves the embedded Redis; nothing survives."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    port, log = _free_port(), tmp_path / "serve.log"
    with log.open("wb") as out:
        serve = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bot.cli.main",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            cwd=ROOT,
            env=_hippo_env(tmp_path),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        until(
            lambda: _get(f"http://127.0.0.1:{port}/healthz"),
            90,
            "/healthz",
            [log],
            tolerate=(OSError,),
        )
        assert any(
            "gunicorn" in " ".join(c.cmdline()) for c in psutil.Process(serve.pid).children()
        )
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=60)
    finally:
        serve.kill()
    assert code == 128 + signal.SIGTERM, log.read_text()
    assert _settle(tmp_path, before) == [], log.read_text()
    assert "Traceback" not in log.read_text()


# `hippo mcp` with its stop's bound (CLOSE_WAIT, 5 s) raised to a minute: a stop that ends fast
# was not cut short by the bound
MCP_UNBOUNDED = (
    "import bot.cli.mcp as m; m.CLOSE_WAIT = 60.0\n"
    "from bot.cli.main import main\n"
    "raise SystemExit(main(['mcp']))\n"
)


def test_hippo_mcp_stopped_while_joining_the_embedded_redis_ends_at_once(tmp_path: Path) -> None:
    """SIGTERM just as `hippo mcp` joins the embedded Redis (redis.lock appears: the Runtime's
    lock held on the main thread, where the handler runs): the stop waits for the join, not
    for a lock its own thread holds, then leaves; no bound needed, nothing left behind."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    for delay in (0.0, 0.02, 0.1):
        data = tmp_path / f"d{delay}"
        env = _hippo_env(tmp_path, HIPPO_DATA_DIR=str(data))
        child = subprocess.Popen(
            [sys.executable, "-c", MCP_UNBOUNDED],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            until((data / "redis.lock").exists, 60, "the join", interval=0.001)
            time.sleep(delay)
            child.send_signal(signal.SIGTERM)
            started = time.monotonic()
            code = child.wait(timeout=50)
            took = time.monotonic() - started
        finally:
            child.kill()
        assert code == 128 + signal.SIGTERM and took < 30, (delay, took)
        assert child.stderr is not None and b"Traceback" not in child.stderr.read()
        assert not (data / "redis.json").exists(), delay  # left, and the server stopped by it
    assert _settle(tmp_path, before) == []


def test_hippo_mcp_stopped_during_start_up_leaves_no_process(tmp_path: Path) -> None:
    """SIGTERM while `hippo mcp` still starts (importing the SDK, joining the embedded Redis):
    it ends at once all the same, without a traceback, and leaves nothing."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    for delay in (0.3, 0.6, 0.9):
        child = subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", "mcp"],
            cwd=ROOT,
            env=_hippo_env(tmp_path),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(delay)
        child.send_signal(signal.SIGTERM)
        try:
            code = child.wait(timeout=30)
        finally:
            child.kill()
        assert code in (0, 128 + signal.SIGTERM, -signal.SIGTERM), delay
        assert child.stderr is not None and b"Traceback" not in child.stderr.read()
    assert _settle(tmp_path, before) == []
