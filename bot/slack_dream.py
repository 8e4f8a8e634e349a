"""Dreaming in Slack: `/hippo dream` (workspace admins), and the digest's Revert buttons."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, App

from bot.slack_intake import Intent, submit
from jobs.dream_tasks import FORGET_FILE, REVERT, SLACK_DREAM
from jobs.runtime import Runtime
from memory.dream.digest import FORGET_ACTION, REVERT_ACTION

_DREAM = re.compile(r"^dream(?:\s+--now\s+(?P<now>\S+))?\s*$", re.I)


def parse(text: str) -> Intent | None:
    """ "dream" (or "dream --now 2026-11-30T03:00") → run a dream now; admins only (checked
    in the task, where Slack can be asked who the user is)."""
    m = _DREAM.match(text.strip())
    if not m:
        return None
    return Intent(
        SLACK_DREAM, {"now_iso": m.group("now") or ""}, ack="Dreaming… the digest follows."
    )


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.action(REVERT_ACTION)
    def on_revert(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        workspace, _, commit = str(action.get("value") or "").rpartition("|")
        if not commit or (workspace and workspace != rt.config.workspace):
            return
        container = body.get("container") or {}
        channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id") or "")
        message_ts = str(container.get("message_ts") or (body.get("message") or {}).get("ts") or "")
        user = str((body.get("user") or {}).get("id") or "")
        # One revert per step and message: a second click (or person) queues nothing.
        submit(
            rt,
            Intent(REVERT, {"commit": commit}),
            [("dream_revert", commit)],
            key=f"slack:revert:{commit}",
            channel=channel,
            thread_ts=message_ts,
            user=user,
        )

    @bolt.action(FORGET_ACTION)
    def on_forget(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        workspace, _, path = str(action.get("value") or "").rpartition("|")
        if not path or (workspace and workspace != rt.config.workspace):
            return
        container = body.get("container") or {}
        channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id") or "")
        message_ts = str(container.get("message_ts") or (body.get("message") or {}).get("ts") or "")
        user = str((body.get("user") or {}).get("id") or "")
        # One forget per file and message: a second click (or person) queues nothing.
        submit(
            rt,
            Intent(FORGET_FILE, {"path": path}),
            [("dream_forget", path)],
            key=f"slack:forget-file:{message_ts}:{path}",
            channel=channel,
            thread_ts=message_ts,
            user=user,
        )
