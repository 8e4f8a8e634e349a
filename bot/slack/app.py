"""The Bolt app factory: one App for HTTP (/slack/events) and Socket Mode, listeners per feature.

Listeners only verify (Bolt's middleware), dedupe, parse and enqueue; they ack in milliseconds.
A feature module has `listen(bolt: App, rt: Runtime) -> None` (the `Listen` protocol); it is
imported here and added to LISTENERS.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from slack_bolt import App, BoltContext, BoltResponse
from slack_bolt.authorization import AuthorizeResult

from bot.slack import agent, commands, dream, forget, home, install, mentions, notes, reminders
from bot.slack.dedupe import ClaimPending
from jobs import people
from jobs.broker import BROKER_DOWN
from jobs.runtime import Runtime


class Listen(Protocol):
    """A feature module's `listen`: add its listeners (events, commands, shortcuts, actions)."""

    def __call__(self, bolt: App, rt: Runtime) -> None: ...


LISTENERS: tuple[Listen, ...] = (
    install.listen,  # uninstalls (and, many workspaces: the request's team); first, as before
    mentions.listen,  # app_mention and message: routes by intent (notes, forget, recall…)
    commands.listen,  # /hippo
    notes.listen,  # "Save to memory" shortcut, the :brain: reaction
    forget.listen,  # the "which one?" buttons
    agent.listen,  # the agent's "Try again" button
    dream.listen,  # the digest's Revert and Forget buttons
    reminders.listen,  # the reminders' Done buttons
    home.listen,  # App Home: app_home_opened, its dream and console buttons
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
    for listen in LISTENERS:
        listen(bolt, rt)

    @bolt.use
    def record_person(context: BoltContext, next: Callable[[], BoltResponse]) -> BoltResponse:
        # Who used hippo, once per request: the nightly dream tends their own memory
        # (jobs/people.py); one SADD per person and process, so the ack stays milliseconds.
        people.seen(rt, context.user_id or "", team=context.team_id or "")
        return next()

    @bolt.error
    def on_error(error: Exception, body: dict[str, Any]) -> BoltResponse | None:
        if isinstance(error, (*BROKER_DOWN, ClaimPending)):
            # Nothing was queued (a claim taken before the failure was released or expires):
            # 503 makes Slack redeliver events (at once, then after 1 and 5 minutes).
            if isinstance(error, ClaimPending):  # a copy of a delivery still being queued
                log.info("asking Slack to retry a copy: %s", error)
            else:
                log.warning("Redis unreachable, asking Slack to retry: %s", error)
            return BoltResponse(
                status=503,
                body="hippo's queue (Redis) is unreachable; retry shortly",
                headers={"Retry-After": "30", "Content-Type": "text/plain"},
            )
        log.error("Slack request failed: %s", error, exc_info=error)
        return None  # Bolt answers 500

    return bolt
