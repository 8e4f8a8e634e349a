"""Dreaming in Slack: `/hippo dream` (workspace admins), and the digest's Revert, Forget and
Merge buttons."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

from slack_bolt import Ack, App

from bot.slack.dedupe import submit
from bot.slack.intent import Intent, SlackContext
from jobs import context, keys
from jobs.memory_buttons import memory_of
from jobs.runtime import Runtime
from jobs.task_messages import ForgetFile, MergePair, Message, Revert, Settle, SlackDream
from memory.dream.digest import (
    ACCEPT_ACTION,
    DROP_ACTION,
    FORGET_ACTION,
    MERGE_ACTION,
    REVERT_ACTION,
)

_DREAM = re.compile(r"^dream(?:\s+--now\s+(?P<now>\S+))?\s*$", re.I)


def parse(text: str) -> Intent | None:
    """ "dream" (or "dream --now 2026-11-30T03:00") → run a dream now; admins only (checked
    in the task, where Slack can be asked who the user is)."""
    m = _DREAM.match(text.strip())
    if not m:
        return None
    return Intent(SlackDream(m.group("now") or ""), ack="Dreaming… the digest follows.")


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.action(REVERT_ACTION)
    def on_revert(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        # One revert per step and message: a second click (or person) queues nothing.
        _digest_button(rt, body, action, Revert, "dream_revert", "slack:revert:{value}")

    @bolt.action(FORGET_ACTION)
    def on_forget(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        # One forget per file and message: a second click (or person) queues nothing.
        _digest_button(
            rt, body, action, ForgetFile, "dream_forget", "slack:forget-file:{ts}:{value}"
        )

    for action_id, accept in ((ACCEPT_ACTION, True), (DROP_ACTION, False)):
        _proposal_button(bolt, rt, action_id, accept)

    @bolt.action(MERGE_ACTION)
    def on_merge(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        _merge_button(rt, body, action)


def _proposal_button(bolt: App, rt: Runtime, action_id: str, accept: bool) -> None:
    @bolt.action(action_id)
    def on_click(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        # One settlement per proposal: Accept and Drop share the claim, the first click wins.
        _digest_button(
            rt, body, action, lambda value: Settle(value, accept), "proposal",
            "slack:proposal:{value}",
        )  # fmt: skip


def _merge_button(rt: Runtime, body: dict[str, Any], action: dict[str, Any]) -> None:
    """The Merge button: value `<workspace>|<JSON [path, text, other path, other text]>`; one
    merge per pair and message (a second click or person queues nothing)."""
    workspace, _, raw = str(action.get("value") or "").partition("|")
    here = context.current().team or rt.config.workspace
    memory = memory_of(here, workspace)  # the team's, the org's or a person's own
    try:
        pair = json.loads(raw)
    except ValueError:
        return
    ok = isinstance(pair, list) and len(pair) == 4 and all(isinstance(p, str) for p in pair)
    if not ok or memory is None:
        return
    here = workspace or here  # claims per memory: two memories' digests may offer one pair
    digest = hashlib.sha256(raw.encode()).hexdigest()[:24]
    container = body.get("container") or {}
    channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id") or "")
    message_ts = str(container.get("message_ts") or (body.get("message") or {}).get("ts") or "")
    submit(
        rt,
        Intent(MergePair(pair, memory=memory or None)),
        [("dream_merge", here, digest)],
        SlackContext(
            key=f"slack:merge-pair:{message_ts}:{digest}",
            channel=channel,
            thread_ts=message_ts,
            user=str((body.get("user") or {}).get("id") or ""),
            claim=keys.slack_seen("dream_merge", here, digest),
        ).sent_by(body.get("user") or {}),
    )


def _digest_button(
    rt: Runtime,
    body: dict[str, Any],
    action: dict[str, Any],
    message: Callable[[str], Message],
    claim_kind: str,
    key: str,
) -> None:
    """A digest button whose value is `workspace|value`: queue `message(value)`'s task once for
    that value."""
    workspace, _, value = str(action.get("value") or "").rpartition("|")
    here = context.current().team or rt.config.workspace
    memory = memory_of(here, workspace)  # the team's, the org's or a person's own
    if not value or memory is None:
        return
    here = workspace or here  # claims per memory: two memories' digests may offer one value
    container = body.get("container") or {}
    channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id") or "")
    message_ts = str(container.get("message_ts") or (body.get("message") or {}).get("ts") or "")
    user = str((body.get("user") or {}).get("id") or "")
    submit(
        rt,
        Intent(replace(cast(Any, message(value)), memory=memory) if memory else message(value)),
        # per workspace: two workspaces' digests may offer to forget the same path
        [(claim_kind, here, value)],
        SlackContext(
            key=key.format(value=value, ts=message_ts),
            channel=channel,
            thread_ts=message_ts,
            user=user,
            # released when the person may not do this (the claim above, as claims.submit keys it)
            claim=keys.slack_seen(claim_kind, here, value),
        ).sent_by(body.get("user") or {}),
    )
