"""The note path's read of the files never waits for a fetch (Mirror.fresh(wait=False)): a fetch
that is due runs on a thread of its own, and a tip known for too long is fetched first."""

from __future__ import annotations

import time
from pathlib import Path

from memory import notes
from memory.git import Author, Store
from memory.git.credentials import RemoteAuth
from memory.writes import operations as writes
from tests import gitservers

ALICE = Author("alice", "alice@example.com")
AUTH = RemoteAuth(username="hippo", token="s3cret")
DELAY = 0.4  # seconds the server waits before each request: a fetch takes at least two


def test_a_due_fetch_runs_behind_the_note_path(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    root.mkdir()
    gitservers.bare_repo(root, "memory.git")
    with gitservers.http_server(root) as http:
        url = http.url("memory.git")
        Store(url, tmp_path / "init", auth=AUTH).init()
        writer = Store(url, tmp_path / "writer", auth=AUTH)
        web = Store(url, tmp_path / "web", auth=AUTH, max_age=0.1)
        assert "deploys.md" not in web.files()
        writer.write([writes.AddEntry("deploys.md", "one")], author=ALICE, message="m")
        http.delay = DELAY
        time.sleep(0.2)  # web's view is now older than its max_age
        fetches = http.counts.get("upload_pack", 0)
        t0 = time.perf_counter()
        assert "deploys.md" not in web.files(wait=False)  # the known tip, at once
        assert time.perf_counter() - t0 < DELAY
        deadline = time.monotonic() + 30
        while "deploys.md" not in web.files(wait=False) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "deploys.md" in web.files(wait=False)  # the fetch behind brought it
        assert http.counts.get("upload_pack", 0) == fetches + 1  # one fetch, not one per call
        # a note names the topic the fetch behind brought; the write lands on the true tip
        saved = notes.save_note(web, "deploys freeze on fridays", today="2026-12-02", author=ALICE)
        assert saved.path == "deploys.md" and writer.sync() == saved.result.commit


def test_a_store_that_never_fetched_waits_for_its_first_fetch(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    root.mkdir()
    gitservers.bare_repo(root, "memory.git")
    with gitservers.http_server(root) as http:
        url = http.url("memory.git")
        Store(url, tmp_path / "init", auth=AUTH).init()
        Store(url, tmp_path / "w", auth=AUTH).write(
            [writes.AddEntry("deploys.md", "one")], author=ALICE, message="m"
        )
        cli = Store(url, tmp_path / "cli", auth=AUTH)  # a `hippo note` run: nothing known yet
        saved = notes.save_note(cli, "deploys freeze on fridays", today="2026-12-02", author=ALICE)
        assert saved.path == "deploys.md"
