"""The memory remote as hippo meets it: a local path, or a real git server on loopback (smart
HTTP with basic auth, `git daemon`, sshd), with what hippo and a person's git CLI need to reach it.

tests/gitservers.py starts the servers and knows nothing of hippo; this module adds hippo's side.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memory.git import Store
from memory.git.credentials import RemoteAuth
from tests import gitservers

KINDS = ("local", "http", "git", "ssh")


@dataclass
class Target:
    kind: str
    remote: str  # what hippo is given (no credentials in it)
    auth: RemoteAuth
    bare: Path  # the bare repository on the server side
    git_url: str  # for a person's git CLI (credentials inside for HTTP)
    git_config: list[str] = field(default_factory=list)  # `-c` options for the git CLI
    server: Any = None

    def store(self, folder: Path) -> Store:
        return Store.open(self.remote, folder, auth=self.auth)

    def auth_json(self) -> str:
        """The auth for a child process (RemoteAuth(**json.loads(...)))."""
        fields = asdict(self.auth)
        fields.pop("token_provider")
        return json.dumps(fields)

    def git(self, cwd: Path, *args: str) -> str:
        extra = [x for opt in self.git_config for x in ("-c", opt)]
        return subprocess.run(
            ["git", "-c", "gc.auto=0", *extra, *args],
            cwd=cwd,
            check=True,
            capture_output=True,
            text=True,
        ).stdout


@contextmanager
def target(kind: str, tmp_path: Path) -> Iterator[Target]:
    """A fresh, empty memory remote of `kind`; its server is stopped on exit."""
    root = tmp_path / "srv"
    root.mkdir(exist_ok=True)
    if kind == "local":
        bare = root / "memory.git"
        yield Target(kind, str(bare), RemoteAuth(), bare, str(bare))
        return
    bare = gitservers.bare_repo(root)
    if kind == "http":
        with gitservers.http_server(root) as http:
            auth = RemoteAuth(username=http.user, token=http.password, timeout=10)
            url = http.url("memory.git")
            yield Target(kind, url, auth, bare, http.url_with_credentials("memory.git"), [], http)
    elif kind == "git":
        with gitservers.git_daemon(root) as daemon:
            url = daemon.url("memory.git")
            yield Target(kind, url, RemoteAuth(timeout=10), bare, url, [], daemon)
    elif kind == "ssh":
        try:
            server = gitservers.SshServer(root, tmp_path / "sshd").start()
        except gitservers.SshUnavailable as exc:
            import pytest

            pytest.skip(str(exc))
        try:
            auth = RemoteAuth(
                ssh_key=str(server.client_key), known_hosts=str(server.known_hosts), timeout=10
            )
            url = server.url("memory.git")
            ssh = f"core.sshCommand={server.git_ssh_command()}"
            yield Target(kind, url, auth, bare, url, [ssh], server)
        finally:
            server.stop()
    else:
        raise ValueError(kind)
