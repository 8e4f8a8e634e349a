"""The Bolt app factory: one App for HTTP (/slack/events) and Socket Mode, listeners per feature.

Listeners only verify (Bolt's middleware), dedupe, parse and enqueue; they ack in milliseconds.
A feature adds a module to LISTENER_MODULES with `listen(bolt: App, rt: Runtime) -> None`.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from slack_bolt import App, BoltResponse
from slack_bolt.authorization import AuthorizeResult

from bot.slack import install
from bot.slack.intake import ClaimPending
from jobs.celery_app import BROKER_DOWN
from jobs.runtime import Runtime

LISTENER_MODULES: tuple[str, ...] = (
    "bot.slack.mentions",  # app_mention and message: routes by intent (notes, forget, recall…)
    "bot.slack.commands",  # /hippo
    "bot.slack.notes",  # "Save to memory" shortcut, the :brain: reaction
    "bot.slack.forget",  # the "which one?" buttons
    "bot.slack.agent",  # the agent's "Try again" button
    "bot.slack.dream",  # the digest's Revert buttons
)

log = logging.getLogger("hippo.slack")


def make_slack_app(rt: Runtime, *, socket_mode: bool = False) -> App:
    """A Bolt App on `rt`'s Slack client; `process_before_response` so acks are deterministic."""
    config = rt.config

    def authorize(enterprise_id: str | None, team_id: str | None) -> AuthorizeResult:
        # From config, never auth.test: Bolt's token mode calls it on a process's first request,
        # so a slow Slack would miss the 3 s ack and a failing one would ack and drop the event.
        # Listeners need no Slack identity (events carry the bot's user id in `authorizations`).
        return AuthorizeResult(
            enterprise_id=enterprise_id,
            team_id=team_id,
            bot_token=config.slack_bot_token or None,  # None offline (console outbox)
        )

    # Many workspaces (OAuth): each request's own workspace token (bot/slack/install.py).
    options = install.bolt_options(rt) if config.slack_oauth else {"authorize": authorize}
    bolt = App(
        name="hippo",
        client=rt.slack,
        signing_secret=config.slack_signing_secret or "unset",
        # Socket Mode frames are authenticated by the websocket, not signed.
        request_verification_enabled=not socket_mode,
        process_before_response=True,
        logger=log,
        **options,
    )
    install.listen(bolt, rt)  # uninstalls (and, many workspaces: the request's team)
    for name in LISTENER_MODULES:
        importlib.import_module(name).listen(bolt, rt)

    @bolt.error
    def on_error(error: Exception, body: dict[str, Any]) -> BoltResponse | None:
        if isinstance(error, (*BROKER_DOWN, ClaimPending)):
            # Nothing was queued (a claim taken before the failure was released or expires):
            # 503 makes Slack redeliver events (at once, then after 1 and 5 minutes).
            log.warning("Redis unreachable, asking Slack to retry: %s", error)
            return BoltResponse(
                status=503,
                body="hippo's queue (Redis) is unreachable; retry shortly",
                headers={"Retry-After": "30", "Content-Type": "text/plain"},
            )
        log.error("Slack request failed: %s", error, exc_info=error)
        return None  # Bolt answers 500

    return bolt
