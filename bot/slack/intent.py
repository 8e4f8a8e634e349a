"""What a Slack request asks for: an `Intent` (a task's typed message), the `Parse`
protocol every intent module implements, and the `SlackContext` a listener passes along.

Its own module so that the router (bot/slack/intake.py), the claims (bot/slack/dedupe.py) and
the feature modules all import it and none of them imports another: no cycles.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Protocol

from jobs.task_messages import Message


@dataclass(frozen=True)
class Intent:
    """A task to run: its message, with the arguments parsed from the text."""

    message: Message
    ack: str = ""  # what a slash command answers at once (ephemeral), if anything

    @property
    def task(self) -> str:
        """The task's Celery name."""
        return self.message.TASK

    @property
    def args(self) -> dict[str, Any]:
        """The arguments the message sends (besides the request's context)."""
        return self.message.kwargs()


class Parse(Protocol):
    """An intent module's `parse`: the intent of plain `text`, or None to let the next one try."""

    def __call__(self, text: str) -> Intent | None: ...


@dataclass(frozen=True)
class SlackContext:
    """Where a Slack request came from, as its task receives it (keyword arguments).

    `key` is the idempotency key (the task's reply and commit carry it). Fields left None are
    not sent at all: each listener sends exactly the fields its tasks read.
    """

    key: str
    channel: str
    user: str
    channel_name: str | None = None
    ts: str | None = None  # the message the request is about
    thread_ts: str | None = None  # where the reply goes
    message_ts: str | None = None  # the bot message whose button was pressed
    response_url: str | None = None  # a slash command's or an ephemeral button's reply URL
    share: bool | None = None  # the person asked to answer in the channel, not ephemerally
    claim: str | None = None  # a button's Redis claim, released when the presser is refused
    # who sent it, as the payload says (jobs/actors.py resolves the rest in the task)
    user_team: str | None = None  # the sender's workspace (Slack Connect: another's)
    app: str | None = None  # the app that posted it (`bot_id`, `subtype: bot_message`)

    def sent_by(self, payload: dict[str, Any]) -> SlackContext:
        """This context with what `payload` (an event, or an interaction's `user`) says of its
        sender: their workspace (`user_team`, a profile's `team`, a `team_id`) and the app that
        posted it (`bot_id`, `app_id`, `subtype: bot_message`)."""
        profile = payload.get("user_profile") or {}
        team = payload.get("user_team") or profile.get("team") or payload.get("team_id") or ""
        app = payload.get("bot_id") or payload.get("app_id") or ""
        if not app and payload.get("subtype") == "bot_message":
            app = "bot_message"
        return replace(self, user_team=str(team) or None, app=str(app) or None)

    def as_kwargs(self) -> dict[str, str | bool]:
        """The fields that were set, as the task's keyword arguments."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {name: value for name, value in values.items() if value is not None}
