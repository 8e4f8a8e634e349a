"""GitHub through PyGithub: App or token auth, GitHub Enterprise base URLs, webhook signatures.

A GitHub App (GITHUB_APP_ID + GITHUB_APP_PRIVATE_KEY) gets one installation token per
installation, minted and refreshed by PyGithub's `AppInstallationAuth`; a plain GITHUB_TOKEN
works for a single account. GITHUB_API_URL is `https://<host>/api/v3` on GitHub Enterprise Server.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # PyGithub (about 35 MB) loads when a client is made, not with the webhook
    from github import Auth, Github, GithubIntegration

GITHUB_API = "https://api.github.com"


class GitHubNotConfigured(RuntimeError):
    """Neither App credentials nor a token: say which settings to add."""

    def __init__(self) -> None:
        super().__init__(
            "GitHub is not configured: set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY "
            "(a GitHub App), or GITHUB_TOKEN"
        )


@dataclass(frozen=True)
class GitHubSettings:
    """What a client needs; built from jobs.config.Config by the caller."""

    api_url: str = GITHUB_API
    app_id: str = ""
    private_key: str = ""  # PEM
    token: str = ""
    # Production keeps PyGithub's rate-limit retries and request spacing; tests switch them off.
    retry: bool = True
    throttle: bool = True

    @property
    def is_app(self) -> bool:
        return bool(self.app_id and self.private_key)

    @property
    def configured(self) -> bool:
        return self.is_app or bool(self.token)


def base_url(api_url: str) -> str:
    """The REST base without a trailing slash: api.github.com, or https://host/api/v3 for GHES."""
    return (api_url or GITHUB_API).rstrip("/")


def _options(settings: GitHubSettings) -> dict[str, object]:
    opts: dict[str, object] = {"base_url": base_url(settings.api_url)}
    if not settings.retry:
        opts["retry"] = None
    if not settings.throttle:
        opts["seconds_between_requests"] = None
        opts["seconds_between_writes"] = None
    return opts


def app_auth(settings: GitHubSettings) -> Auth.AppAuth:
    from github import Auth

    return Auth.AppAuth(settings.app_id, settings.private_key)


def integration(settings: GitHubSettings) -> GithubIntegration:
    """The App-level client (JWT auth): installations and access tokens."""
    if not settings.is_app:
        raise GitHubNotConfigured()
    from github import GithubIntegration

    return GithubIntegration(auth=app_auth(settings), **_options(settings))  # type: ignore[arg-type]


def repo_installation(settings: GitHubSettings, repo: str) -> int:
    """The App installation that covers `owner/name` (GET /repos/{owner}/{repo}/installation)."""
    owner, _, name = repo.partition("/")
    return int(integration(settings).get_repo_installation(owner, name).id)


def client(settings: GitHubSettings, installation_id: int | None = None) -> Github:
    """A REST client acting as the App's installation (when an id is given) or with the token."""
    from github import Auth, Github

    auth: Auth.Auth
    if settings.is_app and installation_id:
        auth = app_auth(settings).get_installation_auth(int(installation_id))
    elif settings.token:
        auth = Auth.Token(settings.token)
    else:
        raise GitHubNotConfigured()
    return Github(auth=auth, **_options(settings))  # type: ignore[arg-type]


def sign(secret: str, body: bytes) -> str:
    """The X-Hub-Signature-256 value GitHub sends for `body`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes, header: str | None) -> bool:
    """True only for a `sha256=` HMAC of the raw body with `secret`; constant-time compare.

    No secret configured, no header, or a malformed one: False (the route answers 401).
    """
    if not secret or not header or not header.startswith("sha256="):
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode())
