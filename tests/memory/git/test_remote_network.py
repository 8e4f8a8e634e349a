"""The memory remote on real git servers on loopback, through the `hippo` command as a person
runs it: refusals, credentials (token, GitHub App, SSH key and host key), unreachable and hanging
servers, `hippo init` on a host's empty repository, the cache built by racing processes, doctor
and maintenance. Nothing is mocked: the servers are git's own and OpenSSH's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest

from demo.worker import worker_thread
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory.errors import PushRejected, RemoteAuthError, RemoteUnreachable
from memory.git import Author, Store
from memory.git.credentials import RemoteAuth
from memory.git.maintenance import maintain
from memory.writes import AddEntry
from tests import gitservers
from tests.fakes.github import FakeGitHub
from tests.fakes.slack import SECRET as SLACK_SECRET
from tests.fakes.slack import SlackFake
from tests.integrations.test_github_client import rsa_pair
from tests.paths import ROOT
from tests.remotes import Target, target
from tests.slack_helpers import mention, post
from tests.waiting import TaskLedger, until

A = Author("a", "a@example.com")


def hippo(
    tmp_path: Path, remote: str, *args: str, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """`hippo ARGS` as a separate process, with only the environment given here."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "GITHUB_"))}
    base.update({"HIPPO_DATA_DIR": str(tmp_path / "data"), "HIPPO_MEMORY_REMOTE": remote, **env})
    return subprocess.run(
        [sys.executable, "-m", "bot.cli.main", *args],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def commits(bare: Path) -> int:
    done = subprocess.run(
        ["git", "rev-list", "--count", "main"], cwd=bare, capture_output=True, text=True
    )
    return int(done.stdout.strip() or 0) if done.returncode == 0 else 0


@pytest.fixture(params=["http", "git", "ssh"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    with target(request.param, tmp_path) as t:
        t.store(tmp_path / "init").init()
        yield t


def token_env(t: Target) -> dict[str, str]:
    """How a deployment would configure this target through the environment."""
    if t.kind == "http":
        return {"HIPPO_MEMORY_TOKEN": t.auth.token, "HIPPO_MEMORY_USERNAME": t.auth.username}
    if t.kind == "ssh":
        return {
            "HIPPO_MEMORY_SSH_KEY": t.auth.ssh_key,
            "HIPPO_MEMORY_KNOWN_HOSTS": t.auth.known_hosts,
        }
    return {}


# -- refusals --------------------------------------------------------------------------------


def test_a_hook_refusal_is_a_named_error_and_nothing_is_claimed_saved(
    server: Target, tmp_path: Path
) -> None:
    """A pre-receive hook refuses the push: `hippo note` says so in one line and exits 1, the
    branch is unchanged; the next note (the hook lets it through) lands."""
    before = commits(server.bare)
    gitservers.refuse_pushes(server.bare, "memory is frozen for the audit", count=1)
    env = token_env(server)
    done = hippo(tmp_path, server.remote, "note", "the audit starts monday", **env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "refused hippo's push" in done.stderr and "frozen for the audit" in done.stderr
    assert "saved" not in done.stdout and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert commits(server.bare) == before
    ok = hippo(tmp_path, server.remote, "note", "the audit starts tuesday", **env)
    assert ok.returncode == 0, ok.stderr
    assert commits(server.bare) == before + 1


def test_store_raises_push_rejected_for_a_hook(server: Target, tmp_path: Path) -> None:
    gitservers.refuse_pushes(server.bare, "protected branch", count=5)
    store = server.store(tmp_path / "w")
    with pytest.raises(PushRejected, match="protected branch"):
        store.write([AddEntry("inbox.md", "x")], author=A, message="x")


# -- credentials -----------------------------------------------------------------------------


def test_wrong_and_missing_token_fail_in_one_line_without_printing_it(tmp_path: Path) -> None:
    with target("http", tmp_path) as t:
        t.store(tmp_path / "init").init()
        before = commits(t.bare)
        wrong = "ghp_wrongwrongwrongwrongwrongwrong0000"
        done = hippo(tmp_path, t.remote, "note", "x", HIPPO_MEMORY_TOKEN=wrong)
        assert done.returncode == 1
        assert "refused hippo's credentials" in done.stderr and "HIPPO_MEMORY_TOKEN" in done.stderr
        assert wrong not in done.stderr + done.stdout
        assert len(done.stderr.strip().splitlines()) == 1
        missing = hippo(tmp_path, t.remote, "note", "x")
        assert missing.returncode == 1 and "set HIPPO_MEMORY_TOKEN" in missing.stderr
        # The token inside the URL: used, never printed, never stored in the cache's config.
        url = t.remote.replace("http://", f"http://{t.auth.username}:{wrong}@")
        inside = hippo(tmp_path, url, "note", "x")
        assert inside.returncode == 1 and wrong not in inside.stderr + inside.stdout
        assert commits(t.bare) == before
        good = t.remote.replace("http://", f"http://{t.auth.username}:{t.auth.token}@")
        assert hippo(tmp_path, good, "note", "with the token in the URL").returncode == 0
        config = (tmp_path / "data/workspaces/default/cache.git/config").read_text()
        assert t.auth.token not in config and wrong not in config
        assert commits(t.bare) == before + 1


def test_ssh_wrong_key_and_unknown_host_are_refused(tmp_path: Path) -> None:
    with target("ssh", tmp_path) as t:
        t.store(tmp_path / "init").init()
        ssh = t.server
        stranger = RemoteAuth(ssh_key=str(ssh.stranger_key), known_hosts=t.auth.known_hosts)
        with pytest.raises(RemoteAuthError, match="HIPPO_MEMORY_SSH_KEY"):
            Store.open(t.remote, tmp_path / "s1", auth=stranger).sync()
        empty = tmp_path / "empty_known_hosts"
        empty.write_text("")
        unknown = RemoteAuth(ssh_key=t.auth.ssh_key, known_hosts=str(empty))
        with pytest.raises(RemoteAuthError, match="host key"):
            Store.open(t.remote, tmp_path / "s2", auth=unknown).sync()
        # A key with a passphrase, through the environment as a deployment sets it.
        done = hippo(
            tmp_path,
            t.remote,
            "note",
            "deploy keys rotate yearly",
            HIPPO_MEMORY_SSH_KEY=str(ssh.client_key_passphrase_protected),
            HIPPO_MEMORY_SSH_PASSPHRASE=ssh.passphrase,
            HIPPO_MEMORY_KNOWN_HOSTS=t.auth.known_hosts,
        )
        assert done.returncode == 0, done.stderr
        # An SSH remote without a known_hosts file is refused before connecting.
        bare = hippo(tmp_path, t.remote, "note", "x", HIPPO_MEMORY_SSH_KEY=t.auth.ssh_key)
        assert bare.returncode == 2 and "HIPPO_MEMORY_KNOWN_HOSTS" in bare.stderr


def test_github_app_installation_token_pushes(tmp_path: Path) -> None:
    """With the App configured, hippo finds the installation of the memory repository, mints
    its token (JWT checked by the API server) and pushes with it as basic auth."""
    root = tmp_path / "srv"
    root.mkdir()
    bare = gitservers.bare_repo(root, "acme/memory.git")
    token = "ghs_000000000000000000000000000000000000"  # the recorded access-token answer
    private, public = rsa_pair()
    with (
        FakeGitHub() as api,
        gitservers.http_server(root, user="x-access-token", password=token) as http,
    ):
        api.enable_app("4242", public)
        api.route("GET", "/repos/acme/memory/installation", {"id": 77, "app_id": 4242})
        env = {
            "GITHUB_APP_ID": "4242",
            "GITHUB_APP_PRIVATE_KEY": private,
            "GITHUB_API_URL": api.url,
            "HIPPO_MEMORY_AUTH": "github-app",
        }
        url = http.url("acme/memory.git")
        assert hippo(tmp_path, url, "init", **env).returncode == 0
        done = hippo(tmp_path, url, "note", "the app token works", **env)
        assert done.returncode == 0, done.stderr
        assert commits(bare) == 2
        assert any(r.path == "/app/installations/77/access_tokens" for r in api.requests)


# -- unreachable -----------------------------------------------------------------------------


def test_refused_connection_fails_at_once(tmp_path: Path) -> None:
    port = gitservers.free_port()
    t0 = time.monotonic()
    done = hippo(tmp_path, f"http://127.0.0.1:{port}/memory.git", "note", "x")
    assert done.returncode == 3 and "cannot reach the memory remote" in done.stderr
    assert time.monotonic() - t0 < 30  # the interpreter's start-up is most of it


def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    with gitservers.black_hole() as port:
        t0 = time.monotonic()
        done = hippo(
            tmp_path, f"http://127.0.0.1:{port}/memory.git", "note", "x", HIPPO_MEMORY_TIMEOUT="2"
        )
        took = time.monotonic() - t0
    assert done.returncode == 3 and "cannot reach the memory remote" in done.stderr
    assert took < 40, took


def test_server_down_then_back_lands_each_write_once(tmp_path: Path) -> None:
    """Writes while the server is down fail as unreachable (nothing half-done); the same writes
    retried with their keys after it returns land exactly once."""
    with target("http", tmp_path) as t:
        t.store(tmp_path / "init").init()
        store = t.store(tmp_path / "w")
        store.write([AddEntry("inbox.md", "before")], author=A, message="m", key="k0")
        t.server.go_down()
        for i in (1, 2):
            with pytest.raises(RemoteUnreachable):
                store.write(
                    [AddEntry("inbox.md", f"during {i}")], author=A, message="m", key=f"k{i}"
                )
        t.server.come_back()
        time.sleep(store.max_age)  # the remembered failure expires
        for _ in range(2):  # a redelivery too
            for i in (1, 2):
                store.write(
                    [AddEntry("inbox.md", f"during {i}")], author=A, message="m", key=f"k{i}"
                )
        inbox = t.store(tmp_path / "r").read("inbox.md")
        assert inbox.count("during 1") == 1 and inbox.count("during 2") == 1
        assert commits(t.bare) == 4  # init, before, during 1, during 2


# -- init, cache, doctor, maintenance --------------------------------------------------------


def test_init_on_a_hosts_empty_repository_and_refusals(tmp_path: Path) -> None:
    with target("http", tmp_path) as t:
        env = token_env(t)
        done = hippo(tmp_path, t.remote, "init", **env)
        assert done.returncode == 0, done.stderr
        assert t.auth.token not in done.stdout
        assert hippo(tmp_path, t.remote, "init", **env).returncode == 0  # again: nothing new
        assert commits(t.bare) == 1
        # A repository holding something else.
        other = gitservers.bare_repo(t.bare.parent, "website.git")
        seed = tmp_path / "seed"
        subprocess.run(["git", "init", "-q", "-b", "main", str(seed)], check=True)
        (seed / "README.md").write_text("# website\n")
        for args in (
            ["add", "-A"],
            ["-c", "user.name=p", "-c", "user.email=p@x", "commit", "-qm", "site"],
            ["push", "-q", str(other), "main", "main:master"],
        ):
            subprocess.run(["git", *args], cwd=seed, check=True, capture_output=True)
        site = t.server.url("website.git")
        refused = hippo(tmp_path / "2", site, "init", **env)
        assert refused.returncode == 1 and "not a memory repository" in refused.stderr
        subprocess.run(["git", "branch", "-D", "main"], cwd=other, check=True, capture_output=True)
        only_master = hippo(tmp_path / "3", site, "init", **env)
        assert only_master.returncode == 1 and "has branches (master)" in only_master.stderr


def test_processes_racing_to_create_the_cache_all_work(tmp_path: Path) -> None:
    with target("http", tmp_path) as t:
        t.store(tmp_path / "init").init()
        env = token_env(t)
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "bot.cli.main", "search", "anything"],
                cwd=ROOT,
                env={
                    **os.environ,
                    **env,
                    "HIPPO_DATA_DIR": str(tmp_path / "shared"),
                    "HIPPO_MEMORY_REMOTE": t.remote,
                },
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
        assert all(code == 0 for code, _ in results), results
        # A cache a killed process left half-made (no remote configured) is repaired.
        cache = tmp_path / "shared/workspaces/default/cache.git"
        repo = pygit2.Repository(str(cache))
        repo.remotes.delete("origin")
        assert (
            hippo(
                tmp_path,
                t.remote,
                "note",
                "repaired",
                HIPPO_DATA_DIR=str(tmp_path / "shared"),
                **env,
            ).returncode
            == 0
        )
        # A broken one is rebuilt.
        (cache / "HEAD").write_text("garbage")
        done = hippo(
            tmp_path, t.remote, "note", "rebuilt", HIPPO_DATA_DIR=str(tmp_path / "shared"), **env
        )
        assert done.returncode == 0, done.stderr
        assert commits(t.bare) == 3


def test_doctor_reports_each_check(tmp_path: Path) -> None:
    with target("http", tmp_path) as t:
        t.store(tmp_path / "init").init()
        good = hippo(tmp_path, t.remote, "doctor", **token_env(t))
        assert good.returncode == 0 and "all good" in good.stdout, good.stdout + good.stderr
        assert "ok   push" in good.stdout
        assert not [
            r
            for r in subprocess.run(
                ["git", "for-each-ref"], cwd=t.bare, capture_output=True, text=True
            ).stdout.splitlines()
            if "check" in r
        ]
        bad = hippo(tmp_path, t.remote, "doctor", HIPPO_MEMORY_TOKEN="nope-nope-nope")
        assert (
            bad.returncode == 1
            and "FAIL reach" in bad.stdout
            and "nope-nope-nope" not in bad.stdout
        )


def test_maintenance_repacks_and_the_store_keeps_working(tmp_path: Path) -> None:
    remote = str(tmp_path / "remote.git")
    store = Store.open(remote, tmp_path / "data")
    store.init()
    for i in range(20):
        store.write([AddEntry("inbox.md", f"note {i}")], author=A, message="m")
    done = maintain(store)
    assert {Path(d.path) for d in done} == {store.cache, Path(remote)}
    assert all(d.loose_after == 0 and d.loose_before > 0 for d in done)
    store.write([AddEntry("inbox.md", "after maintenance")], author=A, message="m")
    reader = Store.open(remote, tmp_path / "reader")
    assert "after maintenance" in reader.read("inbox.md")
    subprocess.run(["git", "fsck", "--strict"], cwd=remote, check=True, capture_output=True)


# -- a queued write while the server is down -------------------------------------------------


@pytest.mark.integration
def test_slack_note_while_the_server_is_down_lands_once_when_it_returns(
    tmp_path: Path, slack_fake: SlackFake, embedded_redis_url: str, tasks: TaskLedger
) -> None:
    """A signed "save a note" is acked while the git server is down; the real Celery worker's
    task fails with RemoteUnreachable and retries with backoff; when the server is back the note
    lands once and is answered once."""
    from bot.app import create_app

    with target("http", tmp_path) as t:
        config = Config(
            redis_url=embedded_redis_url,
            data_dir=tmp_path / "data",
            memory_remote=t.remote,
            memory_token=t.auth.token,
            memory_username=t.auth.username,
            memory_timeout=5,
            slack_bot_token="xoxb-test",
            slack_signing_secret=SLACK_SECRET,
            slack_api_url=slack_fake.url,
            public_url="http://hippo.test",
        )
        rt = Runtime(config)
        rt.redis.flushall()
        rt.store.init()
        before = commits(t.bare)
        t.server.go_down()
        with worker_thread(make_celery(rt)):
            client = create_app(config, rt).test_client()
            text = "save a note: the staging database restarts at 02:00"
            assert post(client, mention(text)).status_code == 200
            until(lambda: tasks.finished >= 1)  # one attempt has run while the server is down
            assert commits(t.bare) == before
            t.server.come_back()
            [reply] = [c.form for c in slack_fake.wait_for("chat.postMessage", 1, timeout=60)]
        assert "Saved" in reply["text"], reply
        assert commits(t.bare) == before + 1
        until(tasks.settled)  # the retries sent have all run
        assert len(slack_fake.calls("chat.postMessage")) == 1
        rt.redis.close()


def test_ssh_through_the_running_agent(tmp_path: Path) -> None:
    """No key file configured: the key comes from ssh-agent (SSH_AUTH_SOCK)."""
    with target("ssh", tmp_path) as t:
        t.store(tmp_path / "init").init()
        sock = tmp_path / "agent.sock"
        agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while not sock.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            env = {**os.environ, "SSH_AUTH_SOCK": str(sock)}
            subprocess.run(["ssh-add", "-q", t.auth.ssh_key], env=env, check=True)
            done = hippo(
                tmp_path,
                t.remote,
                "note",
                "the agent holds the deploy key",
                SSH_AUTH_SOCK=str(sock),
                HIPPO_MEMORY_KNOWN_HOSTS=t.auth.known_hosts,
            )
            assert done.returncode == 0, done.stderr
            assert commits(t.bare) == 2
        finally:
            agent.terminate()
            agent.wait(timeout=10)
