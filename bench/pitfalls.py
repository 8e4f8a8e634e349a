"""The pitfall scenario of issue 18, end to end, printed.

People teach a lesson on two agent pull requests (inline mocks → the shared fixtures); then the
agent repeats the mistake in three later pull requests and gets a fourth right. Everything goes
through the real doors: signed webhooks to the Flask app, a Celery worker on an embedded Redis,
PyGithub against the loopback GitHub of the tests (which keeps check runs and comments as GitHub
does), and the later pull requests' patches made by `git diff` on a real repository.

    .venv/bin/python bench/pitfalls.py

Prints each check run's flagged lines against the lines written down by hand in
tests/github_scenario.py (EXPECTED), the time from the push's webhook to the posted check run,
and whether a briefing for the same task (the pull request's test files) leads with the lesson.
No baseline: the issue names no figure here; this is the scenario's record.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from celery.contrib.testing.worker import start_worker

from bot.app import create_app
from jobs.briefing import brief
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory import format as fmt
from tests.fakes.github import FakeGitHub, delivery_headers, pull_request_payload
from tests.github_scenario import (
    AGENT,
    EXPECTED,
    REPO,
    Branch,
    build_branches,
    serve_later,
    serve_taught,
)

SECRET = "bench-secret"


def wait_for(check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.01)
    raise SystemExit("timed out waiting for the worker")


def post(web: Any, payload: Any) -> Any:
    raw = json.dumps(payload).encode()
    headers = delivery_headers(SECRET, raw, "pull_request", str(uuid.uuid4()))
    return web.post("/github/webhook", data=raw, headers=headers)


def lesson(rt: Runtime) -> fmt.Entry | None:
    text = rt.store.read_or_none(f"conventions/{REPO}.md")
    entries = fmt.parse(text).entries if text else []
    return entries[0] if entries else None


def teach(rt: Runtime, web: Any, fake: FakeGitHub) -> None:
    for n, status in ((1, "tentative"), (2, "active")):
        serve_taught(fake, n)
        post(
            web,
            pull_request_payload(
                "closed", repo=REPO, number=n, merged=True, merge_commit_sha=f"m{n}"
            ),
        )
        wait_for(lambda s=status: (e := lesson(rt)) is not None and e.get("status") == s)
        comment = wait_for(lambda n=n: [c for c in fake.comments if c.number == n])[0]
        print(f"#{n} closed after alice's edit → comment: {comment.body.splitlines()[1]}")
    entry = lesson(rt)
    assert entry is not None
    print(f"lesson: {entry.render()}\n")


def check(web: Any, fake: FakeGitHub, b: Branch, latencies: list[float]) -> bool:
    """Push pull request b's head; print its check run; True when it flags exactly EXPECTED."""
    serve_later(fake, b)
    start = time.perf_counter()
    post(
        web,
        pull_request_payload(
            "synchronize", repo=REPO, number=b.number, sender=AGENT, head_sha=b.head_sha
        ),
    )
    run = wait_for(lambda: [r for r in fake.check_runs if r.body["head_sha"] == b.head_sha])[0]
    latencies.append((time.perf_counter() - start) * 1000)
    flagged = [(a["path"], a["start_line"]) for a in run.annotations]
    right = flagged == EXPECTED[b.number]
    verdict = "as expected" if right else f"EXPECTED {EXPECTED[b.number]}"
    print(
        f"#{b.number} {b.head_sha[:7]}: check run {run.body['conclusion']}, {run.body['output']['title']} ({verdict})"
    )
    for a in run.annotations:
        print(f"    {a['path']}:{a['start_line']}  {a['raw_details'].strip()}")
    return right


def briefed_first(rt: Runtime, b: Branch) -> bool:
    """A briefing for the task the agent was doing on `b` (its test files), as an agent would
    ask before the next such pull request: is the lesson its first line?"""
    taught = lesson(rt)
    paths = sorted(b.patches)
    done = brief(rt.store, f"write unit tests for {', '.join(paths)}", repo=REPO, paths=paths)
    first = done.lines[0] if done.lines else None
    ok = taught is not None and first is not None and first.text == taught.text
    shown = first.render() if first is not None else "(empty)"
    print(
        f"#{b.number} briefing ({done.tokens} tokens): first line {'is' if ok else 'is NOT'} "
        f"the lesson\n    {shown[:160]}"
    )
    return ok


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="hippo-pitfalls-"))
    branches = build_branches(work / "shop")
    with FakeGitHub() as fake:
        config = Config(
            data_dir=work / "data",
            memory_remote=str(work / "remote.git"),
            github_webhook_secret=SECRET,
            github_token="t",
            github_api_url=fake.url,
            public_url="https://hippo.example.com",
        )
        server = Runtime(Config(data_dir=work / "redis"))  # an embedded Redis, kept for the run
        config = Config(**{**config.__dict__, "redis_url": server.redis_url})
        rt = Runtime(config)
        rt.store.init()
        web = create_app(config, rt).test_client()
        latencies: list[float] = []
        try:
            with start_worker(make_celery(rt), pool="solo", perform_ping_check=False):
                teach(rt, web, fake)
                ok = all([check(web, fake, b, latencies) for b in branches])
                print()
                ok = all([briefed_first(rt, b) for b in branches]) and ok
        finally:
            rt.close()
            server.close()
    print(
        f"\nwebhook → check run posted: median {statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms over {len(latencies)} pushes"
    )
    print(
        "all four check runs flag exactly the expected lines, and every briefing leads with the "
        "lesson"
        if ok
        else "MISMATCH"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
