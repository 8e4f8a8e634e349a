"""Typed task messages, and `send`: how every task is queued.

Each task has one message, a frozen dataclass declared next to the task with the task's name:

    @dataclass(frozen=True)
    class SaveNote(Message, task=SAVE_NOTE):
        text: str

    send(rt, SaveNote(text="…"), context.as_kwargs())  # a Slack front door's context

A field the task does not have, or a missing one, fails where the message is built (and in
mypy), not in the worker. The message's fields become the task's keyword arguments (JSON), beside
the front door's context (a Slack request's channel, user, key…); a field left None is not sent.
tests/jobs/test_messages.py checks that every task takes every field of its message.

`send` writes the task down in the intake journal first (jobs/journal.py) so no acked request is
lost, carries the request id in the message's headers (the task's logs and commits carry it) and,
with many workspaces, the request's team (the task's `team`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

from jobs import context, journal
from jobs.broker import BROKER_DOWN

if TYPE_CHECKING:
    from jobs.runtime import Runtime

log = logging.getLogger("hippo.tasks")


class Message:
    """A task's arguments; subclasses are frozen dataclasses naming their task (`task=`)."""

    TASK: ClassVar[str]

    def __init_subclass__(cls, *, task: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if task:
            cls.TASK = task

    def kwargs(self) -> dict[str, Any]:
        """The fields as the task's keyword arguments; an optional field left None is not sent
        (the task's own default applies), a required one is sent as it is."""
        out = {}
        for f in fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
            value = getattr(self, f.name)
            if value is not None or f.default is MISSING:
                out[f.name] = value
        return out


@dataclass(frozen=True)
class Prepared:
    """A task ready to publish: its name, keyword arguments, Celery task id and request id."""

    task: str
    kwargs: dict[str, Any]
    task_id: str
    request_id: str

    def record(self, client: Any) -> None:
        """Write it in the intake journal, on a client or a pipeline (before `publish`)."""
        journal.write(client, self.task_id, self.task, self.kwargs)


def send(rt: Runtime, message: Message, context_kwargs: Mapping[str, Any] | None = None) -> None:
    """Queue `message`'s task with its fields, beside `context_kwargs` (a front door's context;
    a name in both is a mistake in the sender, refused here)."""
    publish(rt, prepare(rt, message, context_kwargs))


def prepare(
    rt: Runtime, message: Message, context_kwargs: Mapping[str, Any] | None = None
) -> Prepared:
    """`send` up to the journal: the checked keyword arguments and the ids (the Slack ack
    writes the journal in the round trip of its claims, then `publish(..., recorded=True)`)."""
    ctx = dict(context_kwargs or {})
    both = sorted(set(ctx) & set(message.kwargs()))
    if both:
        raise ValueError(f"{type(message).__name__} and its context both set {both}")
    return _prepared(rt, message.TASK, {**ctx, **message.kwargs()})


def _prepared(rt: Runtime, task: str, kwargs: dict[str, Any]) -> Prepared:
    now = context.current()
    rid = now.request_id or context.new_id()
    # Many workspaces: the team travels with the work, the front door's (the request context's),
    # else the Runtime's own (a task of one workspace queueing another).
    team = now.team or rt.team
    if team and not kwargs.get("team"):
        kwargs["team"] = team
    return Prepared(task, kwargs, journal.new_id(), rid)


def publish(rt: Runtime, prepared: Prepared, *, recorded: bool = False) -> None:
    """Journal (unless `recorded` already) and send the task."""
    if not recorded:
        prepared.record(rt.redis)
    try:
        _send(rt, prepared.task, prepared.kwargs, prepared.task_id, prepared.request_id)
    except Exception:
        # The sender will retry; a leftover entry would only be run again, harmlessly.
        with contextlib.suppress(*BROKER_DOWN):
            journal.finished(rt.redis, prepared.task_id)
        raise
    log.info(
        "queued %s", prepared.task, extra={"request_id": prepared.request_id, "task": prepared.task}
    )


def _send(rt: Runtime, task: str, kwargs: dict[str, Any], task_id: str, rid: str) -> None:
    """Publish the task and its "task-sent" event (for Flower) in one Redis round trip: kombu's
    publish batch pipelines both, where each alone is a round trip and a new Redis client. A
    batch is never retried, so one that failed is sent again the plain way, with its retry
    policy; a task message that got through twice runs once (every task is idempotent by key)."""
    celery = rt.celery
    headers = {context.HEADER: rid}
    # What Flower and the worker's log show of the arguments, written here: Celery's own
    # (saferepr) walks them in Python, about 40 µs of each ack's CPU, where repr() takes 1.
    reprs = {"argsrepr": "()", "kwargsrepr": _shown(kwargs)}
    try:
        with celery.producer_or_acquire() as producer, producer.batch():
            celery.send_task(
                task, kwargs=kwargs, task_id=task_id, headers=headers, producer=producer, **reprs
            )
        return
    except BROKER_DOWN as exc:
        log.warning("publishing %s in a batch failed (%s); sending it again", task, exc)
    celery.send_task(task, kwargs=kwargs, task_id=task_id, headers=headers, **reprs)


def _shown(kwargs: dict[str, Any], limit: int = 1024) -> str:
    """The keyword arguments as Celery's kwargsrepr shows them, cut at `limit` characters
    (Celery's default kwargsrepr_maxsize)."""
    shown = repr(kwargs)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


# -- Slack: each also gets its front door's context (SlackContext: key, channel, user, ts…) ------


@dataclass(frozen=True)
class SaveNote(Message, task="hippo.slack.save_note"):
    text: str
    path: str | None = None  # "save a note in ops/deploys.md: …"; None: the topic it names
    memory: str | None = None  # "save a note to my memory: …" (jobs/slack/tasks.py)


@dataclass(frozen=True)
class SaveReacted(Message, task="hippo.slack.save_reacted"):
    """The reacted message is read in the task (its channel and ts are the context's)."""


@dataclass(frozen=True)
class Forget(Message, task="hippo.slack.forget"):
    query: str


@dataclass(frozen=True)
class ForgetPick(Message, task="hippo.slack.forget_pick"):
    question: str  # the key of the question asked (its matches are kept in Redis)
    pick: int  # the match chosen; -1: keep everything


@dataclass(frozen=True)
class ReminderAdd(Message, task="hippo.slack.reminder_add"):
    text: str  # "remind the team to …": the rest, its time read from it in the task


@dataclass(frozen=True)
class RemindersList(Message, task="hippo.slack.list_reminders"):
    """The open reminders, in the thread (or only to the person, for `/hippo reminders`)."""


@dataclass(frozen=True)
class ReminderClose(Message, task="hippo.slack.reminder_close"):
    reminder: str  # its id, r-1a2b3c
    reason: str = ""


@dataclass(frozen=True)
class Recall(Message, task="hippo.slack.recall"):
    query: str


@dataclass(frozen=True)
class ShowHelp(Message, task="hippo.slack.help"):
    pass


@dataclass(frozen=True)
class InstructionsAdd(Message, task="hippo.slack.instructions_add"):
    text: str
    repo: str | None = None  # owner/name; None: the channel's instructions


@dataclass(frozen=True)
class InstructionsList(Message, task="hippo.slack.instructions_list"):
    repo: str | None = None


@dataclass(frozen=True)
class InstructionsRemove(Message, task="hippo.slack.instructions_remove"):
    number: str  # as the person typed it (the task says what is wrong with it)
    repo: str | None = None


@dataclass(frozen=True)
class Home(Message, task="hippo.slack.home"):
    """Publish the person's App Home (the person is the context's user)."""


@dataclass(frozen=True)
class SlackDream(Message, task="hippo.dream.slack"):
    now_iso: str = ""  # "" for now


@dataclass(frozen=True)
class Revert(Message, task="hippo.dream.revert"):
    commit: str
    memory: str | None = None  # a digest of another memory: "org", "me.<person>" (memory_buttons)


@dataclass(frozen=True)
class ForgetFile(Message, task="hippo.dream.forget_file"):
    path: str
    memory: str | None = None


@dataclass(frozen=True)
class MergePair(Message, task="hippo.dream.merge_pair"):
    pair: list[str]  # [path, text, other path, other text]
    memory: str | None = None


@dataclass(frozen=True)
class Settle(Message, task="hippo.proposals.settle"):
    proposal: str
    accept: bool
    memory: str | None = None


@dataclass(frozen=True)
class Answer(Message, task="hippo.agent.answer"):
    """A question for the agent: from a request (the rest is its context) or, for the "Try
    again" button, the whole question as it was kept."""

    text: str
    channel: str | None = None
    user: str | None = None
    ts: str | None = None
    thread_ts: str | None = None
    team: str | None = None
    event_id: str | None = None
    response_url: str | None = None
    share: bool | None = None
    retry_of: str | None = None  # the "Try again" message to replace


# -- GitHub ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandlePullRequest(Message, task="hippo.github.handle_pull_request"):
    delivery_id: str
    installation_id: int | None
    repo_full_name: str
    number: int
    action: str
    sender: str = ""
    sender_type: str = ""


@dataclass(frozen=True)
class Installation(Message, task="hippo.github.installation"):
    action: str
    installation_id: int | None
    repos: list[str]


@dataclass(frozen=True)
class CheckPullRequest(Message, task="hippo.github.check_pull_request"):
    repo_full_name: str
    number: int
    head_sha: str
    installation_id: int | None = None


@dataclass(frozen=True)
class MemoryPushed(Message, task="hippo.memory.pushed"):
    """A push to the memory repository itself (GitHub's push event): publish its snapshot."""

    after: str = ""  # the pushed tip, for the log


# -- scheduled (beat), or queued by another task ------------------------------------------------


@dataclass(frozen=True)
class Dream(Message, task="hippo.dream.run"):
    workspace: str | None = None
    team: str | None = None  # many workspaces: that workspace's dream
    now_iso: str | None = None


@dataclass(frozen=True)
class DreamAll(Message, task="hippo.workspaces.dream_all"):
    now_iso: str | None = None


@dataclass(frozen=True)
class DreamMemories(Message, task="hippo.dream.memories"):
    """Queue tonight's dream of the org memory and of each person's own (jobs/memory_dreams.py)."""

    now_iso: str | None = None


@dataclass(frozen=True)
class DreamMemory(Message, task="hippo.dream.memory"):
    memory: str  # "org", or "me" with `person`
    person: str | None = None
    team: str | None = None  # many workspaces: a person of that workspace
    now_iso: str | None = None


@dataclass(frozen=True)
class Maintenance(Message, task="hippo.maintenance"):
    if_needed: bool = False


MESSAGES: tuple[type[Message], ...] = (
    SaveNote,
    SaveReacted,
    Forget,
    ForgetPick,
    Recall,
    ReminderAdd,
    RemindersList,
    ReminderClose,
    ShowHelp,
    InstructionsAdd,
    InstructionsList,
    InstructionsRemove,
    Home,
    SlackDream,
    Revert,
    ForgetFile,
    MergePair,
    Settle,
    Answer,
    HandlePullRequest,
    Installation,
    CheckPullRequest,
    MemoryPushed,
    Dream,
    DreamAll,
    DreamMemories,
    DreamMemory,
    Maintenance,
)
