"""Several memories for tests: the team's, personal ones and the org's, each a bare repository on
its own loopback smart-HTTP git server with its own password (tests/gitservers)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import pytest

from jobs.config import Config
from tests.gitservers import bare_repo, http_server

PASSWORDS = {"team": "team-pw", "me": "people-pw", "org": "org-pw"}


@pytest.fixture(name="servers")
def servers_fixture(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Bare repositories by name (team, me: ann's, bob, org); their URLs: `urls(tmp_path)`, the
    personal ones as a template with `{user}`."""
    with ExitStack() as stack:
        roots: dict[str, Path] = {}
        urls: dict[str, str] = {}
        for name, repo in (("team", "memory.git"), ("me", "memory-ann.git"), ("org", "org.git")):
            root = tmp_path / f"srv-{name}"
            root.mkdir()
            bare_repo(root, repo)
            if name == "me":  # other people's empty memories on the same server (W222: Slack's)
                roots["bob"] = bare_repo(root, "memory-bob.git")
                roots["W222"] = bare_repo(root, "memory-W222.git")
            server = stack.enter_context(http_server(root, password=PASSWORDS[name]))
            roots[name] = root / repo
            urls[name] = f"http://127.0.0.1:{server.port}/{repo}"
        (tmp_path / "urls.json").write_text(json.dumps(urls))
        yield roots


def config_for(tmp_path: Path, servers: dict[str, Path], **extra: str) -> Config:
    url = urls(tmp_path)
    base = Config(
        data_dir=tmp_path / "data",
        memory_remote=url["team"],
        memory_auth="token",
        memory_token="team-pw",
        memory_username="hippo",
        personal_remote_template=url["template"],
        personal_memory_token="people-pw",
        org_memory_remote=url["org"],
        org_memory_token="org-pw",
        user="ann",
    )
    return replace(base, **extra)  # type: ignore[arg-type]


def urls(tmp_path: Path) -> dict[str, str]:
    found: dict[str, str] = json.loads((tmp_path / "urls.json").read_text())
    found["template"] = found["me"].replace("memory-ann", "memory-{user}")
    return found


def on_server(bare: Path, path: str) -> str:
    """A file as the server holds it (empty when missing)."""
    done = subprocess.run(
        ["git", "--git-dir", str(bare), "show", f"main:{path}"], capture_output=True, text=True
    )
    return done.stdout
