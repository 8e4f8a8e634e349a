"""Each area's settings: which variable sets which Config field, its default and its check.

A new setting gets a field in jobs/config.py's Config (under its area's heading), a line in its
area's reader here, and a row in docs/CONFIGURATION.md (tests/test_docs.py checks the table
against what these readers look up). Every reader takes `get` (jobs/config.py reads the process
environment, this module never does) and returns the fields it sets.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from jobs.config_values import (
    addresses,
    boolean,
    choice,
    clock,
    env_prefix,
    items,
    mcp_tokens,
    repo_channels,
    seconds,
    slack_ids,
    team_template,
    user_template,
    whole,
    zone,
)

SLACK_API_DEFAULT = "https://slack.com/api/"
GITHUB_API_DEFAULT = "https://api.github.com"
LOG_FORMATS = ("auto", "json", "text")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
MEMORY_AUTHS = ("auto", "token", "github-app", "ssh", "none")

Get = Callable[..., str]  # get(NAME, default="", *, strip=True): one variable's value


def _port(get: Get) -> int:
    return whole("PORT", get("PORT", "3000") or "3000")


def memory(get: Get) -> dict[str, Any]:
    """Where the memories live and how hippo reaches them."""
    return dict(
        data_dir=Path(get("HIPPO_DATA_DIR", ".hippo")),
        memory_remote=get("HIPPO_MEMORY_REMOTE"),
        memory_auth=choice(
            "HIPPO_MEMORY_AUTH", get("HIPPO_MEMORY_AUTH", "auto") or "auto", MEMORY_AUTHS
        ),
        memory_token=get("HIPPO_MEMORY_TOKEN"),
        memory_username=get("HIPPO_MEMORY_USERNAME"),
        memory_ssh_key=get("HIPPO_MEMORY_SSH_KEY"),
        memory_ssh_passphrase=get("HIPPO_MEMORY_SSH_PASSPHRASE", strip=False),
        memory_known_hosts=get("HIPPO_MEMORY_KNOWN_HOSTS"),
        memory_ssh_insecure=boolean(
            "HIPPO_MEMORY_SSH_INSECURE", get("HIPPO_MEMORY_SSH_INSECURE", "")
        ),
        memory_timeout=seconds("HIPPO_MEMORY_TIMEOUT", get("HIPPO_MEMORY_TIMEOUT", "30") or "30"),
        personal_remote_template=user_template(
            "HIPPO_PERSONAL_REMOTE_TEMPLATE", get("HIPPO_PERSONAL_REMOTE_TEMPLATE")
        ),
        personal_memory_token=get("HIPPO_PERSONAL_MEMORY_TOKEN"),
        org_memory_remote=get("HIPPO_ORG_MEMORY_REMOTE"),
        org_memory_token=get("HIPPO_ORG_MEMORY_TOKEN"),
        user=get("HIPPO_USER"),
        personal_memories=items(get("HIPPO_PERSONAL_MEMORIES")),
        org_digest_channel=get("HIPPO_ORG_DIGEST_CHANNEL"),
        workspace=get("HIPPO_WORKSPACE", "default"),
    )


def slack(get: Get) -> dict[str, Any]:
    """The Slack app: one workspace's token, or many workspaces installed through OAuth."""
    return dict(
        slack_bot_token=get("SLACK_BOT_TOKEN"),
        slack_signing_secret=get("SLACK_SIGNING_SECRET"),
        slack_app_token=get("SLACK_APP_TOKEN"),
        slack_api_url=get("SLACK_API_URL", SLACK_API_DEFAULT) or SLACK_API_DEFAULT,
        slack_client_id=get("SLACK_CLIENT_ID"),
        slack_client_secret=get("SLACK_CLIENT_SECRET"),
        database_url=get("DATABASE_URL"),
        memory_remote_template=team_template(
            "HIPPO_MEMORY_REMOTE_TEMPLATE", get("HIPPO_MEMORY_REMOTE_TEMPLATE")
        ),
        save_reaction=get("HIPPO_SAVE_REACTION", "brain").strip(":") or "brain",
        slack_admins=slack_ids("HIPPO_ADMINS", get("HIPPO_ADMINS")),
    )


def github(get: Get) -> dict[str, Any]:
    """The GitHub app (or token): agent pull requests, their lessons and checks."""
    return dict(
        github_app_id=get("GITHUB_APP_ID"),
        github_app_private_key=get("GITHUB_APP_PRIVATE_KEY").replace("\\n", "\n"),
        github_token=get("GITHUB_TOKEN"),
        github_api_url=get("GITHUB_API_URL", GITHUB_API_DEFAULT) or GITHUB_API_DEFAULT,
        github_webhook_secret=get("GITHUB_WEBHOOK_SECRET"),
        agent_logins=items(get("HIPPO_AGENT_LOGINS", "hippo-agent[bot]")),
        agent_label=get("HIPPO_AGENT_LABEL", "hippo-agent"),
        repo_channels=repo_channels(get("HIPPO_REPO_CHANNELS")),
        check_conclusion=choice(
            "HIPPO_CHECK_CONCLUSION",
            get("HIPPO_CHECK_CONCLUSION") or "neutral",
            ("neutral", "failure"),
        ),
        github_comments=boolean("HIPPO_GITHUB_COMMENTS", get("HIPPO_GITHUB_COMMENTS", "on")),
    )


def anthropic(get: Get) -> dict[str, Any]:
    """Claude: without a key every answer has a deterministic fallback."""
    return dict(
        anthropic_api_key=get("ANTHROPIC_API_KEY"),
        anthropic_base_url=get("ANTHROPIC_BASE_URL"),
        model=get("HIPPO_MODEL", "claude-sonnet-5-5") or "claude-sonnet-5-5",
        small_model=get("HIPPO_SMALL_MODEL", "claude-haiku-5-5") or "claude-haiku-5-5",
        llm_timeout=seconds("HIPPO_LLM_TIMEOUT", get("HIPPO_LLM_TIMEOUT", "60") or "60"),
    )


def dreaming(get: Get) -> dict[str, Any]:
    """The nightly dream and its digest."""
    return dict(
        dream_at=clock("HIPPO_DREAM_AT", get("HIPPO_DREAM_AT", "03:00") or "03:00"),
        timezone=zone("HIPPO_TIMEZONE", get("HIPPO_TIMEZONE", "UTC") or "UTC"),
        digest_channel=get("HIPPO_DIGEST_CHANNEL"),
        verify_hosts=items(get("HIPPO_VERIFY_HOSTS")),
        verify_private=addresses("HIPPO_VERIFY_PRIVATE", get("HIPPO_VERIFY_PRIVATE")),
        check_env_prefix=env_prefix("HIPPO_CHECK_ENV_PREFIX", get("HIPPO_CHECK_ENV_PREFIX")),
    )


def console(get: Get) -> dict[str, Any]:
    """The web console and MCP: who may sign in or connect, and where people reach hippo."""
    return dict(
        console_token=get("HIPPO_CONSOLE_TOKEN"),
        secret_key=get("HIPPO_SECRET_KEY"),
        mcp_tokens=mcp_tokens(get("HIPPO_MCP_TOKENS")),
        mcp_people=frozenset(items(get("HIPPO_MCP_PEOPLE"))),
        mcp_users=repo_channels(get("HIPPO_MCP_USERS")),  # name=U…: `me` is that Slack user
        # Unset: where this web process listens, so links work on any PORT.
        public_url=get("HIPPO_PUBLIC_URL") or f"http://localhost:{_port(get)}",
    )


def operations(get: Get) -> dict[str, Any]:
    """Running the processes: Redis, the port, task leases, logs, readiness and metrics."""
    return dict(
        redis_url=get("REDIS_URL"),
        port=_port(get),
        task_lease=seconds("HIPPO_TASK_LEASE", get("HIPPO_TASK_LEASE", "60") or "60"),
        worker_nice=whole("HIPPO_WORKER_NICE", get("HIPPO_WORKER_NICE", "10") or "10"),
        log_format=choice("HIPPO_LOG_FORMAT", get("HIPPO_LOG_FORMAT") or "auto", LOG_FORMATS),
        log_level=choice("HIPPO_LOG_LEVEL", get("HIPPO_LOG_LEVEL").upper() or "INFO", LEVELS),
        metrics_port=whole("HIPPO_METRICS_PORT", get("HIPPO_METRICS_PORT") or "0"),
        metrics_dir=get("PROMETHEUS_MULTIPROC_DIR"),
        ready_timeout=seconds("HIPPO_READY_TIMEOUT", get("HIPPO_READY_TIMEOUT", "3") or "3"),
        ready_cache=seconds("HIPPO_READY_CACHE", get("HIPPO_READY_CACHE") or "30", zero=True),
    )


Area = Callable[[Get], dict[str, Any]]
AREAS: tuple[Area, ...] = (memory, slack, github, anthropic, dreaming, console, operations)
