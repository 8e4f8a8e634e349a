"""Each installed workspace's memory on a git server, over the authenticated network path."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from jobs.runtime import Runtime
from memory import notes
from memory.git import Author
from tests.gitservers import bare_repo
from tests.gitservers.smart_http import HttpGitServer
from tests.workspaces_helpers import installed, many_config


def test_template_remotes_on_an_https_host_with_a_token(
    tmp_path: Path, http_git: HttpGitServer, embedded_redis_url: str
) -> None:
    """HIPPO_MEMORY_REMOTE_TEMPLATE on a smart-HTTP server that requires basic auth: each
    workspace's empty repository is laid out and gets its own notes, pushed with the token;
    the deployment's own remote (memory.git there) is left alone."""
    for team in ("TAAA", "TBBB"):
        bare_repo(http_git.root, f"memory-{team}.git")
    config = replace(
        many_config(tmp_path, "http://127.0.0.1:9/", embedded_redis_url),
        memory_remote=http_git.url("memory.git"),
        memory_remote_template=http_git.url("memory-{team}.git"),
        memory_auth="token",
        memory_username=http_git.user,
        memory_token=http_git.password,
    )
    rt = Runtime(config)
    for team in ("TAAA", "TBBB"):
        installed(rt, team, f"xoxb-{team.lower()}")
        store = rt.for_team(team).store
        who = Author("W1", "w1@users.slack.invalid")
        notes.save_note(
            store, f"{team} pages the on-call", today="2026-11-30", author=who, key=team
        )
    for team, other in (("TAAA", "TBBB"), ("TBBB", "TAAA")):
        repo = http_git.root / f"memory-{team}.git"
        inbox = subprocess.run(
            ["git", "--git-dir", str(repo), "show", "main:inbox.md"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert f"{team} pages the on-call" in inbox and other not in inbox
    own = subprocess.run(
        ["git", "--git-dir", str(http_git.root / "memory.git"), "rev-parse", "--verify", "main"],
        capture_output=True,
        check=False,
    )
    assert own.returncode != 0  # still empty
    assert http_git.receive_pack_requests >= 4  # two inits and two notes, pushed over HTTP
