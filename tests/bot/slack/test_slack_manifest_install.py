"""manifest.yml for installs into many workspaces, and its Socket Mode variant."""

from __future__ import annotations

import json

import jsonschema

from bot.slack.install import INSTALL_PATH, REDIRECT_PATH, SCOPES
from tests.manifests import SOCKET_MODE_FILE, manifest, render, socket_mode
from tests.paths import DATA

SCHEMA = DATA / "slack-manifest" / "manifest.schema.1.0.0.json"


def test_oauth_asks_for_the_scopes_the_manifest_declares() -> None:
    """The OAuth flow asks for exactly manifest.yml's bot scopes (add a scope to both)."""
    assert sorted(SCOPES) == sorted(manifest()["oauth_config"]["scopes"]["bot"])


def test_redirect_urls_are_hippos_routes() -> None:
    """The manifest's redirect URLs are the install flow's and the console sign-in's."""
    paths = {
        u.split("hippo.example.com", 1)[1] for u in manifest()["oauth_config"]["redirect_urls"]
    }
    assert paths == {REDIRECT_PATH, "/console/login/slack/callback"}
    assert INSTALL_PATH == "/slack/install"


def test_socket_mode_variant_is_current_and_valid() -> None:
    """manifest.socket-mode.yml is what `make manifests` makes from manifest.yml today, it
    validates against Slack's schema, and it has no request URL left."""
    variant = socket_mode(manifest())
    assert SOCKET_MODE_FILE.read_text() == render(variant), "run `make manifests`"
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).validate(variant)
    assert variant["settings"]["socket_mode_enabled"] is True
    assert "https://" not in json.dumps(variant["features"]) + json.dumps(variant["settings"])
