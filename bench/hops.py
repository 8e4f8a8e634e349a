"""How many of hippo's files a request passes through, from the signed HTTP request to the reply.

    .venv/bin/python bench/hops.py [--rev 598c5b5] [--list]

Two paths, each run twice in one process (the first run warms lazy clients and caches; the
second is counted):

- note: a signed Slack `app_mention` "save a note: …" POSTed to /slack/events (Flask's test
  client on `create_app`), the task it queues run in process (`Task.apply`, the worker's code
  without the broker's thread), the commit on a local bare remote, the reply to a loopback Slack.
- lesson: a signed GitHub `pull_request` "closed" delivery of an agent pull request that a
  maintainer edited (the second such, so the lesson turns active), its task, the commit, and the
  convention posted to Slack.

Method: `sys.setprofile` and `threading.setprofile` record every Python function call while the
counted run is in flight. A *file* is a module of bot/, jobs/, memory/ or integrations/ one of
whose functions ran. A *hop* is a distinct (caller file → callee file) pair between two such
modules, the caller being the nearest of our frames on the stack (library frames between them,
Flask's or Celery's, are skipped). tests/ (the fakes) and bench/ are not counted.

The baseline is the same driver run on the tree at `--rev` (the repository's own history,
exported with `git archive` into a temporary folder), in the same run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tarfile
import tempfile
import threading
import uuid
from pathlib import Path
from types import FrameType
from typing import Any

HERE = Path(__file__).resolve()
OURS = ("bot", "jobs", "memory", "integrations")
BASELINE = "598c5b5"  # main before issue 28


class Tracer:
    """Files and hops of our code, recorded from profile events."""

    def __init__(self, root: Path) -> None:
        self.root = str(root) + "/"
        self.files: set[str] = set()
        self.hops: set[tuple[str, str]] = set()

    def _ours(self, frame: FrameType) -> str:
        name = frame.f_code.co_filename
        if not name.startswith(self.root):
            return ""
        rel = name[len(self.root) :]
        return rel if rel.split("/", 1)[0] in OURS else ""

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = self._ours(frame)
        if not callee:
            return
        self.files.add(callee)
        up = frame.f_back
        while up is not None:
            caller = self._ours(up)
            if caller:
                if caller != callee:
                    self.hops.add((caller, callee))
                return
            up = up.f_back

    def start(self) -> None:
        threading.setprofile(self)
        sys.setprofile(self)

    def stop(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]  # None clears it


def drain(rt: Any, app: Any) -> int:
    """Run every queued task in process (as the worker would), until none is left."""
    # The journal's key: jobs/keys.py owns it now; before issue 28, jobs/journal.py did.
    try:
        journal = importlib.import_module("jobs.keys").JOURNAL
    except ModuleNotFoundError:
        journal = importlib.import_module("jobs.journal").JOURNAL
    ran = 0
    for _ in range(20):
        entries = rt.redis.hgetall(journal)
        if not entries:
            return ran
        for task_id, raw in entries.items():
            entry = json.loads(raw)
            app.tasks[entry["task"]].apply(kwargs=entry["kwargs"], task_id=task_id.decode())
            rt.redis.hdel(journal, task_id)
            ran += 1
    raise RuntimeError("tasks kept queueing tasks")


def note_path(tmp: Path, tracer: Tracer) -> None:
    from bot.app import create_app
    from jobs.celery_app import make_celery
    from jobs.config import Config
    from jobs.runtime import Runtime
    from tests.fakes.slack import SECRET, SlackFake, signed_headers
    from tests.slack_helpers import mention

    with SlackFake() as slack:
        config = Config(
            data_dir=tmp / "data",
            memory_remote=str(tmp / "remote.git"),
            slack_bot_token="xoxb-bench",
            slack_signing_secret=SECRET,
            slack_api_url=slack.url,
            public_url="http://hippo.test",
        )
        rt = Runtime(config)
        try:
            rt.store.init()
            client = create_app(config, rt).test_client()
            app = make_celery(rt)
            for i in (1, 2):
                body = mention(
                    f"save a note: bench fact {i} says the widget warms in {i} minutes",
                    event_id=f"EvHop{i}",
                    ts=f"1700000000.00010{i}",
                )
                raw = json.dumps(body)
                headers = signed_headers(raw, content_type="application/json")
                if i == 2:
                    tracer.start()
                try:
                    status = client.post("/slack/events", data=raw, headers=headers).status_code
                    ran = drain(rt, app)
                finally:
                    tracer.stop()
                assert status == 200 and ran == 1, (status, ran)
                slack.wait_for("chat.postMessage", i)
            assert "bench fact 2" in rt.store.read("inbox.md")
        finally:
            rt.close()


def serve_edited_pull(github: Any, repo: str, n: int) -> None:
    """Agent pull request n: the agent wrote inline mocks, alice (a maintainer) merged fixtures."""
    from tests.fakes.github import commit_body, file_body, pull_body

    agent = "hippo-agent[bot]"
    old = "import mock\n\ndef test_{n}():\n    client = mock.Mock()\n    assert client\n"
    new = "from tests.fixtures import client\n\ndef test_{n}(client):\n    assert client\n"
    path = f"tests/unit/test_{n}.py"
    commits = [commit_body(f"a{n}", agent, agent), commit_body(f"h{n}", "alice", "x")]
    pull = pull_body(repo, n, commits=2, head_sha=f"h{n}", merge_commit_sha=f"m{n}")
    github.add_pull(repo, pull, commits=commits, files=[file_body(path)])
    github.grant(repo, "alice")
    github.add_files(repo, f"a{n}", {path: old.format(n=n)})
    github.add_files(repo, f"m{n}", {path: new.format(n=n)})


def lesson_path(tmp: Path, tracer: Tracer) -> None:
    from bot.app import create_app
    from jobs.celery_app import make_celery
    from jobs.config import Config
    from jobs.runtime import Runtime
    from tests.fakes.github import FakeGitHub, delivery_headers, pull_request_payload
    from tests.fakes.slack import SlackFake

    repo, secret = "octo/app", "bench-webhook-secret"
    with FakeGitHub() as github, SlackFake() as slack:
        config = Config(
            data_dir=tmp / "data",
            memory_remote=str(tmp / "remote.git"),
            github_webhook_secret=secret,
            github_token="t",
            github_api_url=github.url,
            repo_channels={repo: "#app"},
            slack_bot_token="xoxb-bench",
            slack_api_url=slack.url,
        )
        rt = Runtime(config)
        try:
            rt.store.init()
            client = create_app(config, rt).test_client()
            app = make_celery(rt)
            for n in (1, 2):
                serve_edited_pull(github, repo, n)
                payload = pull_request_payload(
                    "closed", repo=repo, number=n, merged=True, merge_commit_sha=f"m{n}"
                )
                raw = json.dumps(payload).encode()
                headers = delivery_headers(secret, raw, "pull_request", str(uuid.uuid4()))
                if n == 2:
                    tracer.start()
                try:
                    status = client.post("/github/webhook", data=raw, headers=headers).status_code
                    ran = drain(rt, app)
                finally:
                    tracer.stop()
                assert status == 202 and ran == 1, (status, ran)
            posts = slack.posts()
            assert len(posts) == 1 and "New convention" in posts[0]["text"], posts
        finally:
            rt.close()


PATHS = {"note": note_path, "lesson": lesson_path}


def measure(root: Path) -> dict[str, dict[str, Any]]:
    """Both paths on the tree at `root` (already first on sys.path)."""
    import logging

    logging.disable(logging.CRITICAL)
    out: dict[str, dict[str, Any]] = {}
    for name, run in PATHS.items():
        tracer = Tracer(root)
        with tempfile.TemporaryDirectory() as tmp:
            run(Path(tmp), tracer)
        out[name] = {"files": sorted(tracer.files), "hops": sorted(map(list, tracer.hops))}
    return out


def run_on(root: Path) -> dict[str, dict[str, Any]]:
    """Measure in a fresh interpreter whose imports come from `root`."""
    done = subprocess.run(
        [sys.executable, str(HERE), "--measure", str(root)],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def export(rev: str, into: Path) -> Path:
    """The repository's tree at `rev`, written into `into`."""
    archive = subprocess.run(
        ["git", "-C", str(HERE.parents[1]), "archive", "--format=tar", rev],
        check=True,
        capture_output=True,
    ).stdout
    into.mkdir(parents=True)
    tar = into / "tree.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as t:
        t.extractall(into, filter="data")
    tar.unlink()
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rev", default=BASELINE, help="the baseline's git revision")
    parser.add_argument("--list", action="store_true", help="print the files of each path")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        root = Path(args.measure).resolve()
        sys.path.insert(0, str(root))
        print(json.dumps(measure(root)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        before = run_on(export(args.rev, Path(tmp) / "before"))
    after = run_on(HERE.parents[1])
    print(f"{'path':8} {'files before':>12} {'files now':>10} {'hops before':>12} {'hops now':>9}")
    for name in PATHS:
        b, a = before[name], after[name]
        print(
            f"{name:8} {len(b['files']):>12} {len(a['files']):>10}"
            f" {len(b['hops']):>12} {len(a['hops']):>9}"
        )
    if args.list:
        for name in PATHS:
            print(f"\n{name}: now / before ({args.rev})")
            gone = sorted(set(before[name]["files"]) - set(after[name]["files"]))
            print("  now:   " + " ".join(after[name]["files"]))
            print("  gone:  " + " ".join(gone))


if __name__ == "__main__":
    main()
