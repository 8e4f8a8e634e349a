"""The console shows what others pushed: a commit or file another process (or a person's git)
pushed a moment ago opens at once, without waiting for the cache's next fetch."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import create_app
from jobs.config import Config
from jobs.runtime import Runtime
from memory import writes
from memory.git import Author
from tests.console_helpers import sign_in
from tests.remotes import Target, target

TOKEN = "laptop-token"


def _push_with_git(t: Target, work: Path) -> str:
    """A person's commit, made and pushed with the plain git CLI; its sha."""
    t.git(work.parent, "clone", "-q", "-b", "main", t.git_url, str(work))
    (work / "services").mkdir(exist_ok=True)
    (work / "services" / "billing.md").write_text("# billing\n\n- invoices go out at 06:00\n")
    t.git(work, "add", "-A")
    t.git(
        work,
        "-c",
        "user.name=Pat",
        "-c",
        "user.email=pat@example.com",
        "commit",
        "-q",
        "-m",
        "billing: when invoices go out",
    )
    t.git(work, "push", "-q", "origin", "main")
    return t.git(work, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize("kind", ["local", "http"])
def test_a_commit_pushed_elsewhere_opens_at_once(tmp_path: Path, kind: str) -> None:
    """A person pushes a commit with git right after the console read the memory (its cache
    fetched moments ago, well within max_age): /console/commit/<sha>, /console/file/<path> and
    /console/history/<path> show it on the first request, not 404 until some page fetches."""
    with target(kind, tmp_path) as t:
        config = Config(
            data_dir=tmp_path / "data",
            memory_remote=t.remote,
            memory_username=t.auth.username or "",
            memory_token=t.auth.token or "",
            console_token=TOKEN,
            secret_key="test-secret",
        )
        rt = Runtime(config)
        try:
            rt.store.init()
            rt.store.write(
                [writes.WriteFile("services/checkout.md", "# checkout\n\n- retries: 3\n")],
                author=Author("ann", "ann@example.com"),
                message="seed",
            )
            client = create_app(config, rt).test_client()
            sign_in(client, TOKEN)
            assert client.get("/console/").status_code == 200  # the cache is fresh now

            sha = _push_with_git(t, tmp_path / "work")

            commit = client.get(f"/console/commit/{sha}")
            print(f"GET /console/commit/{sha[:8]} → {commit.status_code}")
            assert commit.status_code == 200, commit.get_data(as_text=True)[:300]
            assert "billing: when invoices go out" in commit.get_data(as_text=True)
            short = client.get(f"/console/commit/{sha[:10]}")
            assert short.status_code == 200
            page = client.get("/console/file/services/billing.md")
            assert page.status_code == 200 and "invoices go out at 06:00" in page.get_data(True)
            history = client.get("/console/history/services/billing.md").get_data(as_text=True)
            assert sha[:8] in history
            # A commit no one pushed is still 404 (after one fetch to be sure); the same bad
            # link opened again at once costs the git host nothing more.
            assert client.get("/console/commit/" + "0" * 40).status_code == 404
            if t.server is not None:
                before = t.server.counts.get("requests", 0)
                assert client.get("/console/commit/" + "0" * 40).status_code == 404
                assert t.server.counts.get("requests", 0) == before
        finally:
            rt.close()
