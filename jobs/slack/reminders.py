"""Celery tasks behind Slack's reminders: add one ("remind the team to … on Friday"), list the
open ones (with a **Done** button each), close one (a command or a button), each close its own
commit by the person, with the reason. Thin: the rules are memory/reminders/."""

from __future__ import annotations

from datetime import date
from typing import Any

from jobs import asker_time
from jobs.config import today
from jobs.runtime import Runtime
from jobs.slack import speaker
from jobs.slack.messages import short
from jobs.slack.replies import RETRY, ReplyTo, author, reply_once, source_for, write_or_refuse
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import ReminderAdd, ReminderClose, RemindersList
from memory.markup import slack
from memory.reminders import model, show, write
from memory.trust.actors import Action

DONE_ACTION = (
    "reminder_done"  # the Done buttons' ids are DONE_ACTION_<n> (memory/reminders/show.py)
)


def added(done: write.Done) -> str:
    r = done.reminder
    verb = "Saved reminder" if done.result is not None else "Already reminding"
    return (
        f"{verb} `{r.id}`: “{short(r.text)}” ({slack(r.when_said())}). It shows in briefings "
        f"while due; close it with `/hippo reminders done {r.id}`."
    )


def closed(done: write.Done, user: str) -> str:
    r = done.reminder
    if done.result is None:
        return f"`{r.id}` was already closed on {r.done} ({slack(r.reason)})."
    return f"Closed `{r.id}`: “{short(r.text)}” (<@{user}>: {slack(r.reason)})."


def list_blocks(text: str, reminders: list[model.Reminder], day: date) -> list[dict[str, Any]]:
    """The listing, then a **Done** button for each of the first open reminders."""
    section: dict[str, Any] = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    return [section, *show.done_buttons([r.as_dict(day) for r in model.open_on(reminders, day)])]


def _to(channel: str, ctx: dict[str, Any], user: str = "") -> ReplyTo:
    return ReplyTo.of(channel, ctx, user=user, thread_ts=ctx.get("thread_ts"))


@task(ReminderAdd.TASK, **RETRY)
def reminder_add(
    self: HippoTask, *, key: str, channel: str, ts: str, user: str, text: str, **ctx: Any
) -> None:
    """A reminder from a mention or `/hippo remind …`: save it, say when it is due."""
    rt: Runtime = self.runtime
    if not speaker.allowed(self, key, _to(channel, ctx, user), ctx, Action.REMIND):
        return

    def save() -> str:
        done = write.add(
            rt.store,
            text,
            today=today(rt.config),
            author=author(user),
            by=user,
            source=source_for(rt, channel, ts),
            key=key,
        )
        return added(done)

    reply = write_or_refuse(save, "Not saved: {error}.")
    reply_once(rt, self, key, _to(channel, ctx, user), reply)


@task(RemindersList.TASK, **RETRY)
def list_reminders(self: HippoTask, *, key: str, channel: str, **ctx: Any) -> None:
    """The open reminders, overdue first, each with a Done button; due on the asker's date."""
    rt: Runtime = self.runtime
    if not speaker.allowed(self, key, _to(channel, ctx), ctx, Action.ASK):
        return
    day = asker_time.asker_date(rt, str(ctx.get("user") or ""))  # "due today" is the asker's
    found = write.read(rt.store)
    text = show.slack_listing(found, day)
    reply_once(rt, self, key, _to(channel, ctx), text, blocks=list_blocks(text, found, day))


@task(ReminderClose.TASK, **RETRY)
def reminder_close(
    self: HippoTask,
    *,
    key: str,
    channel: str,
    user: str,
    reminder: str,
    reason: str = "",
    **ctx: Any,
) -> None:
    """A person closes a reminder (a command or a Done button): one commit with the reason."""
    rt: Runtime = self.runtime
    if not speaker.allowed(self, key, _to(channel, ctx, user), ctx, Action.REMIND):
        return

    def close() -> str:
        done = write.close(
            rt.store,
            reminder,
            today=today(rt.config),
            author=author(user),
            reason=reason or f"done, said {user} in Slack",
            key=key,
        )
        return closed(done, user)

    reply = write_or_refuse(close, "Not closed: {error}.")
    reply_once(rt, self, key, _to(channel, ctx, user), reply)


def register(app: HippoCelery) -> None:
    app.add_tasks(reminder_add, list_reminders, reminder_close)
