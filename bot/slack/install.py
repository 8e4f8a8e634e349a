"""Installing hippo in many Slack workspaces: Bolt's OAuth flow and per-workspace authorization.

On when SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set (else hippo serves the one workspace of
SLACK_BOT_TOKEN). `GET /slack/install` sends a person to Slack's consent page; Slack comes back to
`GET /slack/oauth_redirect`, where Bolt swaps the code for the workspace's bot token
(`oauth.v2.access`) and saves it in the installation store (integrations/slack_installs.py).
Each request is then authorized with its own workspace's token, read from the store without
calling Slack (`auth.test` on the ack path would cost the 3 s budget), and carries its team id
to the tasks it queues (jobs/workspaces.py). `app_uninstalled` and `tokens_revoked` delete the
workspace's tokens (Bolt's listeners); its memory repository stays.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, request
from slack_bolt import App, BoltContext, BoltResponse
from slack_bolt.adapter.flask import SlackRequestHandler
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.authorize import Authorize
from slack_bolt.oauth import OAuthFlow
from slack_bolt.oauth.oauth_settings import OAuthSettings

from integrations.slack_installs import Installs
from integrations.slack_post import make_web_client
from jobs import context as request_context
from jobs.runtime import Runtime

log = logging.getLogger("hippo.slack")  # one logger for the Slack front door

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
# The bot scopes hippo asks for: the same list as manifest.yml's (a test keeps them equal).
SCOPES: tuple[str, ...] = (
    "app_mentions:read",
    "channels:history",
    "groups:history",
    "im:history",  # message.im: DMs with hippo
    "channels:read",
    "groups:read",
    "chat:write",
    "commands",
    "reactions:read",
    "users:read",  # users.info: admins and owners (HIPPO_ADMINS' check)
    "usergroups:read",  # usergroups.users.list: HIPPO_ADMINS' groups
)


class InstalledAuthorize(Authorize):
    """The workspace's bot from the installation store; None (Bolt answers "reinstall") when
    hippo is not, or no longer, installed there."""

    def __init__(self, installs: Installs) -> None:
        self.installs = installs

    def __call__(
        self,
        *,
        context: BoltContext,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None,
        actor_enterprise_id: str | None = None,
        actor_team_id: str | None = None,
        actor_user_id: str | None = None,
    ) -> AuthorizeResult | None:
        bot = self.installs.ack_bot(team_id) if team_id else None
        if bot is None or not bot.bot_token:
            log.warning("a request from workspace %s, where hippo is not installed", team_id)
            return None
        return AuthorizeResult(
            enterprise_id=enterprise_id,
            team_id=team_id,
            bot_token=bot.bot_token,
            bot_id=bot.bot_id,
            bot_user_id=bot.bot_user_id,
            bot_scopes=bot.bot_scopes,
        )


def oauth_flow(rt: Runtime) -> OAuthFlow:
    config = rt.config
    installs = rt.workspaces.installs
    settings = OAuthSettings(
        client_id=config.slack_client_id,
        client_secret=config.slack_client_secret,
        scopes=list(SCOPES),
        user_scopes=[],
        redirect_uri=config.public_url.rstrip("/") + REDIRECT_PATH,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        installation_store=installs.installations,
        installation_store_bot_only=True,
        state_store=installs.states,
    )
    # oauth.v2.access goes to SLACK_API_URL like every other call (a test's loopback Slack).
    client = make_web_client(None, config.slack_api_url)
    return OAuthFlow(client=client, logger=log, settings=settings)


def bolt_options(rt: Runtime) -> dict[str, Any]:
    """Bolt App arguments for many workspaces: the OAuth flow and per-workspace tokens."""
    installs = rt.workspaces.installs
    return {
        "authorize": InstalledAuthorize(installs),
        "installation_store": installs.installations,
        "installation_store_bot_only": True,
        "oauth_flow": oauth_flow(rt),
    }


def listen(bolt: App, rt: Runtime) -> None:
    """Many workspaces: every listener runs with its workspace bound in the request context
    (jobs/context.py), and an uninstall deletes that workspace's tokens. One workspace: an
    uninstall is only logged (the token is the environment's, which hippo cannot delete)."""
    if not rt.config.slack_oauth:

        @bolt.event("app_uninstalled")
        @bolt.event("tokens_revoked")
        def on_revoked(event: dict[str, Any], context: BoltContext) -> None:
            log.warning(
                "Slack says %s in workspace %s: SLACK_BOT_TOKEN no longer works there; the "
                "memory stays. Reinstall the app and set its new token",
                event.get("type"),
                context.team_id,
            )

        return

    @bolt.use
    def for_workspace(context: BoltContext, next: Callable[[], BoltResponse]) -> BoltResponse:
        # Bolt runs the listener after every middleware has returned, so the team stays bound;
        # the web app's request hook (bot/ops.py) ends it with the request, or the next Socket
        # Mode request binds it again.
        request_context.bind(team=context.team_id or "")
        return next()

    bolt.enable_token_revocation_listeners()


def register_routes(app: Flask, handler: SlackRequestHandler) -> None:
    """The two pages of the install flow; Bolt answers both (the state cookie, the code swap)."""

    @app.get(INSTALL_PATH)
    def slack_install() -> Response:
        return handler.handle(request)

    @app.get(REDIRECT_PATH)
    def slack_oauth_redirect() -> Response:
        return handler.handle(request)
