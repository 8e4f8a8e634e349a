"""The Bolt app factory: one App for HTTP (/slack/events) and Socket Mode, listeners per feature.

Listeners only verify (Bolt's middleware), dedupe, parse and enqueue; they ack in milliseconds.
A feature adds a module to LISTENER_MODULES with `listen(bolt: App, rt: Runtime) -> None`.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

from slack_bolt import App
from slack_bolt.authorization import AuthorizeResult

from jobs.runtime import Runtime

LISTENER_MODULES: tuple[str, ...] = (
    "bot.slack_mentions",  # app_mention and message: routes by intent (notes, forget, recall…)
    "bot.slack_commands",  # /hippo
    "bot.slack_notes",  # "Save to memory" shortcut, the :brain: reaction
    "bot.slack_forget",  # the "which one?" buttons
    "bot.slack_agent",  # the agent's "Try again" button
    "bot.slack_dream",  # the digest's Revert buttons
)

log = logging.getLogger("hippo.slack")


def make_slack_app(rt: Runtime, *, socket_mode: bool = False) -> App:
    """A Bolt App on `rt`'s Slack client; `process_before_response` so acks are deterministic."""
    config = rt.config
    options: dict[str, Any] = {}
    if config.slack_bot_token:
        # auth.test runs on the first request (not here), so building the app needs no network.
        options.update(token=config.slack_bot_token, token_verification_enabled=False)
    else:
        # Offline (console outbox): no token to verify; events still carry the bot's user id.
        options.update(authorize=_offline_authorize)
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
    for name in LISTENER_MODULES:
        importlib.import_module(name).listen(bolt, rt)
    return bolt


def _offline_authorize(enterprise_id: str | None, team_id: str | None) -> AuthorizeResult:
    return AuthorizeResult(enterprise_id=enterprise_id, team_id=team_id)
