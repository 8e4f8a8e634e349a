"""What a setting's value may be: each check returns the value read, or raises InvalidSetting
naming the variable and what it should look like. jobs/config_areas.py applies them."""

from __future__ import annotations

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


class InvalidSetting(ValueError):
    """A value that cannot work; Config.from_env raises it again as jobs.config.ConfigError."""


def whole(name: str, value: str) -> int:
    if not value.isdigit():
        raise InvalidSetting(f"{name}={value!r} is not a whole number")
    return int(value)


def seconds(name: str, value: str, *, zero: bool = False) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not (0 < seconds < 3600 or (zero and seconds == 0)):
        raise InvalidSetting(f"{name}={value!r} is not a number of seconds between 0 and 3600")
    return seconds


def clock(name: str, value: str) -> str:
    hour, sep, minute = value.partition(":")
    if not (sep and hour.isdigit() and minute.isdigit() and int(hour) < 24 and int(minute) < 60):
        raise InvalidSetting(f"{name}={value!r} is not a time of day; write HH:MM, e.g. 03:00")
    return f"{int(hour):02d}:{int(minute):02d}"


def zone(name: str, value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidSetting(
            f"{name}={value!r} is not a time zone; use an IANA name such as Europe/Berlin"
        ) from exc
    return value


def choice(name: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InvalidSetting(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def boolean(name: str, value: str) -> bool:
    low = value.lower()
    if low in ("", "0", "false", "no", "off"):
        return False
    if low in ("1", "true", "yes", "on"):
        return True
    raise InvalidSetting(f"{name} must be true or false, not {value!r}")


def items(value: str) -> tuple[str, ...]:
    """A comma-separated list, each item stripped, empty ones dropped."""
    return tuple(v.strip() for v in value.split(",") if v.strip())


def slack_ids(name: str, value: str) -> tuple[str, ...]:
    """HIPPO_ADMINS: Slack user group ids (S…) and user ids (U…, W…), comma-separated."""
    found = items(value)
    for item in found:
        if not re.fullmatch(r"[SUW][A-Z0-9]{2,}", item):
            raise InvalidSetting(
                f"{name} item {item!r} is not a Slack user group id (S…) or user id (U…, W…); "
                "find a group's id in its Slack page's URL or with usergroups.list"
            )
    return found


def addresses(name: str, value: str) -> tuple[str, ...]:
    """HIPPO_VERIFY_PRIVATE: addresses, networks or address:port items."""
    found = items(value)
    if found:  # requests and urllib3 come with it: only when there is something to check
        from integrations.safe_http import PrivateAllowance
    for item in found:
        try:
            PrivateAllowance.parse(item)
        except ValueError as exc:
            raise InvalidSetting(
                f"{name} item {item!r} is not an address, network or address:port; "
                "write e.g. 10.0.0.0/8, 127.0.0.1:8080 or [::1]:8080"
            ) from exc
    return found


def team_template(name: str, value: str) -> str:
    """HIPPO_MEMORY_REMOTE_TEMPLATE: a remote with `{team}` where the workspace id goes."""
    if value and (value.count("{team}") != 1 or value.replace("{team}", "").count("{") > 0):
        raise InvalidSetting(
            f"{name}={value!r} must hold `{{team}}` once (and no other braces), e.g. "
            "https://github.com/acme/memory-{team}.git"
        )
    return value


def user_template(name: str, value: str) -> str:
    """HIPPO_PERSONAL_REMOTE_TEMPLATE: `{user}` once (a person's own memory), `{team}` at most."""
    rest = value.replace("{user}", "").replace("{team}", "")
    if value and (value.count("{user}") != 1 or value.count("{team}") > 1 or "{" in rest):
        raise InvalidSetting(
            f"{name}={value!r} must hold `{{user}}` once (and `{{team}}` at most once), e.g. "
            "https://github.com/acme/memory-{user}.git"
        )
    return value


def mcp_tokens(value: str) -> dict[str, str]:
    """HIPPO_MCP_TOKENS: 'name=token,name2=token2' → {token: name}."""
    out: dict[str, str] = {}
    for item in items(value):
        name, sep, token = item.partition("=")
        if sep and name.strip() and token.strip():
            out[token.strip()] = name.strip()
    return out


def repo_channels(value: str) -> dict[str, str]:
    """HIPPO_REPO_CHANNELS: 'owner/repo=channel,...' → {owner/repo: channel}."""
    channels = {}
    for item in items(value):
        repo, _, channel = item.partition("=")
        if channel:
            channels[repo.strip()] = channel.strip()
    return channels


# the prefixes of hippo's own settings, its tokens among them: never a declared check's to send
OWN_PREFIXES = ("HIPPO_", "SLACK_", "GITHUB_", "ANTHROPIC_", "REDIS_", "DATABASE_", "PROMETHEUS_")
OWN_CHECK_SETTINGS = frozenset({"HIPPO_CHECK_ENV_PREFIX", "HIPPO_CHECK_CONCLUSION"})


def env_prefix(name: str, value: str) -> str:
    """HIPPO_CHECK_ENV_PREFIX: the environment variables declared checks may send as headers;
    upper case ending in `_`, and none of hippo's own (HIPPO_CHECK_… is fine)."""
    if not value:
        return ""
    if not re.fullmatch(r"[A-Z][A-Z0-9_]{2,}_", value):
        raise InvalidSetting(
            f"{name}={value!r} must be upper case ending in _, e.g. HIPPO_CHECK_ (a check may "
            "then send HIPPO_CHECK_GRAFANA_TOKEN)"
        )
    own = [p for p in OWN_PREFIXES if p.startswith(value) or value.startswith(p)]
    if own and not value.startswith("HIPPO_CHECK_"):
        raise InvalidSetting(
            f"{name}={value!r} would let a check send hippo's own {own[0]}… settings (its tokens "
            "among them); use a prefix of its own, e.g. HIPPO_CHECK_"
        )
    return value
