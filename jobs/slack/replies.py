"""What a Slack task does on someone's behalf: their git author, the source link, the reply.

`reply_once` posts a task's answer once per key; `write_or_refuse` is the ladder every task that
writes for a person climbs: the write's own reply, or a refusal naming memory's reason, while a
transient failure (remote, lock) propagates so the task runs again with the same key.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis.exceptions
from slack_sdk.errors import SlackApiError

from integrations.slack import Blocks
from jobs import keys
from jobs.claims import Claim
from jobs.runtime import Runtime
from jobs.slack import delivery
from jobs.task_base import HippoTask, retrying
from memory.errors import LockTimeout, MemoryStoreError, RemoteError
from memory.git.store import Author
from memory.markup import slack

REPLIED_TTL = 3 * 24 * 3600
SENDING_TTL = 600  # a reply being sent by a task that died: another may send it after this
# Slack errors no retry can fix (the bot was removed, the channel archived…).
PERMANENT = frozenset(
    [
        "not_in_channel",
        "channel_not_found",
        "is_archived",
        "thread_not_found",
        "msg_too_long",
        "invalid_blocks",
        "no_text",
        "account_inactive",
        "invalid_auth",
        "not_authed",
    ]
)
# Transient failures (the remote, the lock, Redis, Slack): the task runs again with the same key.
RETRY = retrying(SlackApiError)
log = logging.getLogger("hippo.slack")


def author(user: str) -> Author:
    """The git author for a Slack user (their id: names change, ids do not)."""
    return Author(user or "slack", f"{(user or 'slack').lower()}@users.slack.invalid")


def source_for(rt: Runtime, channel: str, ts: str) -> str:
    """The message's permalink; for a slash command (no message) the channel's."""
    return rt.poster.permalink(channel, ts) if ts else f"https://slack.com/archives/{channel}"


def write_or_refuse(write: Callable[[], str], refusal: str) -> str:
    """`write()`'s reply, or `refusal` (a format with `{error}`) when memory refuses the write
    (a secret, a conflict, a bad path). Not for transient failures: those are raised again."""
    try:
        return write()
    except (RemoteError, LockTimeout):
        raise
    except MemoryStoreError as exc:
        return refusal.format(error=slack(str(exc)))  # errors quote what was written


def reply_once(
    rt: Runtime,
    task: HippoTask,
    key: str,
    to: delivery.ReplyTo,
    text: str,
    *,
    blocks: Blocks | None = None,
) -> str | None:
    """Post once per key. A rerun of this very task (worker died mid-post) posts again rather
    than lose the reply; any other task with the same key stays silent."""
    claim = Claim(rt.redis, keys.slack_replied(key), pending=SENDING_TTL, done=REPLIED_TTL)
    if not claim.take_or_hold(f"sending:{task.request.id}"):
        return None
    try:
        # A slash command answers through its response_url; a channel hippo is not in, in a DM.
        ts = delivery.deliver(rt, to, text, blocks=blocks)
    except SlackApiError as exc:
        if exc.response.get("error") in PERMANENT:  # retrying cannot help; the write stands
            log.warning("reply for %s not posted in %s: %s", key, to.channel, exc.response["error"])
            claim.finish(f"failed:{exc.response['error']}")
            return None
        claim.release()  # the retry must be able to send it
        raise
    except Exception:
        claim.release()
        raise
    _record_sent(claim, f"sent:{ts}")
    return ts


def _record_sent(claim: Claim, value: str) -> None:
    """The reply is posted: record it, waiting out a Redis restart (seconds) rather than fail
    the task, whose retry would post the reply a second time (seen in bench/faults.py)."""
    for pause in (0.5, 1, 2, 4, 8, 15, 0):
        try:
            claim.finish(value)
            return
        except redis.exceptions.RedisError as exc:
            if not pause:
                log.warning("reply posted but not recorded (%s): a rerun may post it again", exc)
                return
            time.sleep(pause)
