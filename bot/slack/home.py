"""App Home at the front door: `app_home_opened` (the Home tab) queues its publishing; the
Home's buttons: "Run a dream now" (the same task as `/hippo dream`, admins only, answered in the
person's DM with hippo) and "Open the console" (a link: Slack still sends the click, acked here).
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from bot.slack.dedupe import submit
from bot.slack.intent import Intent, SlackContext
from jobs.runtime import Runtime
from jobs.slack.home_view import CONSOLE_ACTION, DREAM_ACTION
from jobs.task_messages import Home, SlackDream


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.event("app_home_opened")
    def on_home(body: dict[str, Any], event: dict[str, Any]) -> None:
        if event.get("tab", "home") != "home":  # the Messages tab: nothing to publish
            return
        user = str(event.get("user") or "")
        event_id = str(body.get("event_id") or "")
        context = SlackContext(key=f"slack:{event_id}", channel=user, user=user)
        submit(rt, Intent(Home()), [("event", event_id)], context)

    @bolt.action(DREAM_ACTION)
    def on_dream(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        user = str((body.get("user") or {}).get("id") or "")
        interaction = str(body.get("trigger_id") or action.get("action_ts") or "")
        submit(
            rt,
            Intent(SlackDream(now_iso="")),
            [("interaction", interaction)],
            SlackContext(
                key=f"slack:{interaction}",
                channel=user,  # the answer ("already ran", a refusal) goes to their DM with hippo
                channel_name="",
                ts="",
                thread_ts="",
                user=user,
            ).sent_by(body.get("user") or {}),
        )

    @bolt.action(CONSOLE_ACTION)
    def on_console(ack: Ack) -> None:
        ack()  # a link button: Slack opens the URL; unacked, it would show a warning
