"""The Socket Mode variant of manifest.yml, made by `make manifests` (and checked by a test).

Socket Mode delivers events, commands and interactivity over a websocket (`hippo socket`), so the
variant drops every request URL and the OAuth redirect URLs (Socket Mode serves one workspace,
installed from the app's settings page) and sets `socket_mode_enabled: true`.
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import yaml

from tests.paths import ROOT

SOCKET_MODE_FILE = ROOT / "manifest.socket-mode.yml"
HEADER = """\
# The Slack app for Socket Mode (`hippo socket`: no public URL; set SLACK_APP_TOKEN, an app-level
# token with connections:write, and SLACK_BOT_TOKEN). Made from manifest.yml by `make manifests`:
# edit manifest.yml, not this file. Create it at https://api.slack.com/apps → "Create New App" →
# "From a manifest".
"""


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "manifest.yml").read_text())
    return data


def socket_mode(m: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(m)
    for command in out.get("features", {}).get("slash_commands", []):
        command.pop("url", None)
    settings = out.setdefault("settings", {})
    settings.get("event_subscriptions", {}).pop("request_url", None)
    settings.get("interactivity", {}).pop("request_url", None)
    settings["socket_mode_enabled"] = True
    out.get("oauth_config", {}).pop("redirect_urls", None)
    return out


def render(m: dict[str, Any]) -> str:
    return HEADER + yaml.safe_dump(m, sort_keys=False, allow_unicode=True, width=100)


if __name__ == "__main__":
    SOCKET_MODE_FILE.write_text(render(socket_mode(manifest())))
    sys.stdout.write(f"wrote {SOCKET_MODE_FILE.name}\n")
