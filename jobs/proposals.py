"""Settling what agents proposed (memory/trust/proposals.py): one function for the console and the
digest's Accept / Drop buttons, the write by the person who clicked."""

from __future__ import annotations

from typing import Any

from jobs.config import today
from jobs.memory_buttons import pressed
from jobs.runtime import Runtime
from jobs.slack.replies import RETRY, ReplyTo, author, reply_once, write_or_refuse
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import Settle
from memory.git import Author, WriteResult
from memory.prompts import snapshot
from memory.trust import proposals


def settle(
    rt: Runtime, proposal_id: str, *, accept: bool, who: Author, key: str | None = None
) -> str:
    """Accept or drop one pending proposal as `who`; the reply to show them."""
    rt.store.sync()
    tree = {p: b.decode("utf-8", "replace") for p, b in rt.store.tree().items()}
    p = proposals.find(tree, proposal_id)
    ops = proposals.settle(tree, p, accept=accept, by=who.name, today=today(rt.config))
    verb = "accepted" if accept else "dropped"
    done: WriteResult = rt.store.write(
        ops, author=who, message=f"proposal {verb}: {p.describe()}"[:300], key=key
    )
    snapshot.publish_if_index_changed(rt.store, done)
    return f"{verb.capitalize()}: {p.describe()}."


@task(Settle.TASK, **RETRY)
def settle_task(
    self: HippoTask,
    *,
    key: str,
    proposal: str,
    accept: bool,
    user: str,
    channel: str,
    thread_ts: str,
    **ctx: Any,
) -> None:
    """The digest's Accept / Drop button, settled once. Accepting changes or removes an entry, so
    it is for the people who may press hippo's destructive buttons (jobs/slack/permissions.py);
    dropping a proposal changes nothing of the memory, and anyone may."""
    # on the digest's memory; Drop changes no entry: anyone on the team's (or org's) digest
    rt = pressed(self.runtime, ctx, user, channel, "accept an agent's proposal", admins=accept)
    if rt is None:
        return
    text = write_or_refuse(
        lambda: f"<@{user}> " + settle(rt, proposal, accept=accept, who=author(user), key=key),
        "Could not settle that proposal: {error}",
    )
    reply_once(rt, self, key, ReplyTo.of(channel, ctx, user=user, thread_ts=thread_ts), text)


def register(app: HippoCelery) -> None:
    app.add_tasks(settle_task)
