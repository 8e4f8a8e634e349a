"""How this deployment authenticates to its memory remote, from the configuration.

`HIPPO_MEMORY_AUTH=auto` (the default) picks: a token when HIPPO_MEMORY_TOKEN is set; the GitHub
App's installation token when the App is configured and the remote is on github.com or on the
GitHub Enterprise host of GITHUB_API_URL; an SSH key or the ssh-agent for an SSH remote; else
none (a local path, or credentials in the URL).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from integrations.memory_token import InstallationToken, is_github_host, repo_of
from jobs.config import Config, ConfigError
from memory.git.credentials import RemoteAuth, is_ssh


def method(config: Config) -> str:
    """The auth method in force: token, github-app, ssh or none."""
    chosen = config.memory_auth
    if chosen != "auto":
        return chosen
    remote = config.remote
    if is_ssh(remote):
        return "ssh"
    if config.memory_token:
        return "token"
    app = bool(config.github_app_id and config.github_app_private_key)
    if app and is_github_host(remote, config.github_api_url):
        return "github-app"
    return "none"


def remote_auth(config: Config) -> RemoteAuth:
    """The RemoteAuth for the store; raises ConfigError naming what is missing."""
    base = RemoteAuth(
        username=config.memory_username,
        ssh_key=config.memory_ssh_key,
        ssh_passphrase=config.memory_ssh_passphrase,
        known_hosts=config.memory_known_hosts,
        ssh_insecure=config.memory_ssh_insecure,
        timeout=config.memory_timeout,
    )
    how = method(config)
    if how == "token":
        if not config.memory_token:
            raise ConfigError("HIPPO_MEMORY_AUTH=token needs HIPPO_MEMORY_TOKEN")
        return replace(base, token=config.memory_token)
    if how == "github-app":
        found = repo_of(config.remote)
        if found is None or urlsplit(config.remote).scheme not in ("http", "https"):
            raise ConfigError(
                "HIPPO_MEMORY_AUTH=github-app needs an HTTPS HIPPO_MEMORY_REMOTE of the form "
                "https://<host>/<owner>/<repo>.git"
            )
        if not (config.github_app_id and config.github_app_private_key):
            raise ConfigError(
                "HIPPO_MEMORY_AUTH=github-app needs GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY"
            )
        loopback = urlsplit(config.github_api_url).hostname in ("127.0.0.1", "localhost", "::1")
        from integrations.github_client import GitHubSettings  # PyGithub: only for the App's token

        settings = GitHubSettings(
            api_url=config.github_api_url,
            app_id=config.github_app_id,
            private_key=config.github_app_private_key,
            throttle=not loopback,  # a loopback server (tests) has no rate limit to respect
        )
        provider = InstallationToken(settings, *found)
        return replace(base, token_provider=provider)
    insecure = config.memory_ssh_insecure
    if how == "ssh" and is_ssh(config.remote) and not config.memory_known_hosts and not insecure:
        raise ConfigError(
            "an SSH HIPPO_MEMORY_REMOTE needs HIPPO_MEMORY_KNOWN_HOSTS (a known_hosts file "
            "holding the server's host key, e.g. from `ssh-keyscan HOST` checked against the "
            "host's published fingerprints); hippo never trusts a host key on first use"
        )
    return base
