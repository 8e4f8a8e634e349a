"""The GitHub App's installation token for pushing to the memory repository.

An installation token lives one hour. hippo mints one for the installation that covers the
memory repository (the App needs "Contents: read and write" there) and mints again five minutes
before it expires, so a long-lived worker never pushes with a dead token.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:  # PyGithub loads when a token is minted, not for every remote
    from integrations.github_client import GitHubSettings

REFRESH_MARGIN = 300.0  # seconds before expiry that a new token is minted


def repo_of(url: str) -> tuple[str, str] | None:
    """`https://host/owner/name(.git)` → (owner, name); None for anything else."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return None
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) != 2:
        return None
    return segments[0], segments[1].removesuffix(".git")


def is_github_host(url: str, api_url: str) -> bool:
    """github.com, or the host of a GitHub Enterprise Server API URL (https://host/api/v3)."""
    host = urlsplit(url).hostname or ""
    api_host = urlsplit(api_url).hostname or ""
    return host == "github.com" or (api_host not in ("", "api.github.com") and host == api_host)


class InstallationToken:
    """Callable: the current installation token for `owner/name`, minted when needed."""

    def __init__(self, settings: GitHubSettings, owner: str, name: str) -> None:
        self._settings = settings
        self._owner = owner
        self._name = name
        self._lock = threading.Lock()
        self._token = ""
        self._expires = 0.0  # time.time() when the token dies
        self._installation: int | None = None

    def __call__(self) -> str:
        with self._lock:
            if self._token and time.time() < self._expires - REFRESH_MARGIN:
                return self._token
            from integrations.github_client import integration

            app = integration(self._settings)
            if self._installation is None:
                self._installation = app.get_repo_installation(self._owner, self._name).id
            minted = app.get_access_token(self._installation)
            expires = minted.expires_at
            if expires.tzinfo is None:
                expires = expires.replace(tzinfo=UTC)
            self._token = minted.token
            self._expires = min(expires.timestamp(), datetime.now(UTC).timestamp() + 3600)
            return self._token
