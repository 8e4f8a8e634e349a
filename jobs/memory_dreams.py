"""The nightly dream of the memories beside the team's: the org memory and each person's own.

Each is its own repository (jobs/memories.py), so each is dreamt as the team's is (jobs/dream.py
`run_dream`: its own lock `hippo:dream:<workspace>.org` / `….me.<user>`, its own `.dream/`
state, every step a commit by `hippo dreaming` through that memory's write path, whose trust
rules hold there), one Celery task per memory so a long night in one delays no other. At
HIPPO_DREAM_AT beat runs `dream_memories`, which queues the org memory's dream (once per
deployment) and one per person with a memory of their own (jobs/people.py: seen by a door, or
listed in HIPPO_PERSONAL_MEMORIES), in every installed workspace.

The digest: the org memory's goes where HIPPO_ORG_DIGEST_CHANNEL says, else where the team's
goes; a person's goes to that person alone, by direct message, and never to a channel (the
poster below ignores any channel it is given). A person who is not a Slack user (a CLI name, an
MCP token's name not bound to one) gets no message: their dreams show in the console. The
digest's links open the console on that memory (`/m/<memory>/console/…`, bot/console/
memories.py); its Revert, Forget, Merge and Accept / Drop buttons name the memory and act on it
(jobs/memory_buttons.py: a person's own only for that person).
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from celery.schedules import crontab

from jobs import people
from jobs.config import Config, check_user, memory_url, scoped_config
from jobs.dream import run_dream
from jobs.memories import MemoryRuntime
from jobs.runtime import Runtime
from jobs.slack.replies import RETRY
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import DreamMemories, DreamMemory, send
from memory.scopes import ME, ORG, UnknownMemory

if TYPE_CHECKING:
    from integrations.slack_post import Blocks, Poster

log = logging.getLogger("hippo.dream")

_SLACK_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")
TITLES = {ORG: "The org memory", ME: "Your own memory"}


def beat_schedule(config: Config) -> dict[str, Any]:
    """At HIPPO_DREAM_AT, beside the team's dream, when another memory is configured."""
    if not (config.org_memory_remote or config.personal_remote_template):
        return {}
    hour, _, minute = (config.dream_at or "03:00").partition(":")
    return {
        "hippo-dream-memories": {
            "task": DreamMemories.TASK,
            "schedule": crontab(hour=int(hour or 3), minute=int(minute or 0)),
        }
    }


def console_base(config: Config, scope: str) -> str:
    """Where a digest's console links point for memory `scope`: the console on that memory
    (never a person's name: `me` is whoever signs in)."""
    return memory_url(config.public_url, scope)


class DreamRuntime(MemoryRuntime):
    """A memory's Runtime for its dream: its digest titled with the memory, buttons replaced by
    a link to its console, and sent where that memory's digest goes (`deliver`)."""

    @cached_property
    def poster(self) -> Poster:
        return _DigestPoster(self)

    def deliver(self, channel: str, text: str, blocks: Blocks | None) -> str:
        """The org memory's digest: to its channel (jobs/dream.py `post_digest` chose it from
        this Runtime's config), as the team's is posted."""
        return self.base.poster.post(channel, text, blocks=blocks)


class PersonalDreamRuntime(DreamRuntime):
    """A person's memory's Runtime for its dream: the digest goes to them alone."""

    def __init__(self, base: Runtime, config: Config, person: str) -> None:
        super().__init__(base, config, ME)
        self.person = person

    def deliver(self, channel: str, text: str, blocks: Blocks | None) -> str:
        """A direct message to the person (Slack takes a user id as the channel of an app's
        DM), or nothing: never a channel, nor the console's outbox, which others read."""
        if not (self.config.slack_bot_token and _SLACK_USER.match(self.person)):
            log.info("%s is not a Slack user: their digest stays in the console", self.person)
            return ""
        return self.base.poster.post(self.person, text, blocks=blocks)


class _DigestPoster:
    """`post_digest`'s poster for another memory: the channel it names is the team's, so it is
    ignored; the memory's runtime says where the digest goes."""

    def __init__(self, rt: DreamRuntime) -> None:
        self.rt = rt

    def post(
        self, channel: str, text: str, *, blocks: Blocks | None = None, thread_ts: str | None = None
    ) -> str:
        title = TITLES.get(self.rt.scope, "Memory")
        blocks = _retitled(blocks or [], title, self.rt)
        return self.rt.deliver(channel, f"{title}: {text}", blocks)

    def update(self, channel: str, ts: str, text: str, *, blocks: Blocks | None = None) -> None:
        raise NotImplementedError("a dream's digest is posted once, never updated")

    def permalink(self, channel: str, ts: str) -> str:
        return self.rt.base.poster.permalink(channel, ts)

    def fetch_message(self, channel: str, ts: str) -> dict[str, Any] | None:
        return self.rt.base.poster.fetch_message(channel, ts)

    def channel_name(self, channel: str) -> str:
        return self.rt.base.poster.channel_name(channel)


def _retitled(blocks: Blocks, title: str, rt: DreamRuntime) -> Blocks:
    """The digest's blocks with the memory in the header and a link to its dreams in the
    console; its buttons name the memory (jobs/memory_buttons.py)."""
    out: Blocks = []
    for block in blocks:
        if block.get("type") == "header":
            text = block["text"]["text"]
            block = {**block, "text": {**block["text"], "text": f"{title}: {text}"}}
        if block.get("type") == "context":  # the Slack agent's usage is the team's, not this one's
            block = {**block, "elements": [_no_agent(e) for e in block.get("elements", [])]}
        out.append(block)
    link = f"<{rt.config.public_url.rstrip('/')}/console/dreams|{title.lower()}'s dreams>"
    note = f"In the console: {link}."
    out.insert(1, {"type": "context", "elements": [{"type": "mrkdwn", "text": note}]})
    return out


def _no_agent(element: dict[str, Any]) -> dict[str, Any]:
    text = str(element.get("text", ""))
    return {**element, "text": text.split(" · agent: ", 1)[0]} if " · agent: " in text else element


def dream_runtime(rt: Runtime, memory: str, person: str = "") -> DreamRuntime:
    """The Runtime a dream of `memory` (org, or me with `person`) runs on."""
    config = rt.config
    if memory == ORG:
        found = scoped_config(config, ORG)
        digest = config.org_digest_channel or config.digest_channel
        found = replace(found, digest_channel=digest, public_url=console_base(config, ORG))
        return DreamRuntime(rt, found, ORG)
    if memory != ME:
        raise UnknownMemory(f"no memory {memory!r} to dream: org, or me with a person")
    found = scoped_config(config, ME, check_user(person))
    # the channel is only named so that the digest is sent at all: its poster sends it to them
    found = replace(found, digest_channel=person, public_url=console_base(config, ME))
    return PersonalDreamRuntime(rt, found, person)


@task(DreamMemories.TASK, max_retries=3, retry_backoff=30)
def dream_memories(self: HippoTask, *, now_iso: str | None = None, **ctx: Any) -> list[str]:
    """Queue tonight's dream of the org memory and of each person's own; what was queued."""
    rt = self.runtime
    queued: list[str] = []
    if rt.config.org_memory_remote:  # one org memory per deployment, dreamt once
        send(rt, DreamMemory(memory=ORG, now_iso=now_iso))
        queued.append(ORG)
    if not rt.config.personal_remote_template:
        return queued
    teams = [""]
    if rt.config.slack_oauth:
        teams += [w.team_id for w in rt.workspaces.installs.workspaces(installed_only=True)]
    for team in teams:
        for person in people.known(rt.for_team(team)):
            # a rerun queues them again: a dream that ran tonight changes nothing
            send(rt, DreamMemory(memory=ME, person=person, team=team or None, now_iso=now_iso))
            queued.append(f"{team or rt.config.workspace}.me.{person}")
    return queued


@task(DreamMemory.TASK, autoretry_for=RETRY["autoretry_for"], max_retries=3, retry_backoff=30)
def dream_memory(
    self: HippoTask, *, memory: str, person: str = "", now_iso: str | None = None, **ctx: Any
) -> str:
    """One memory's dream; a retry continues where the last attempt stopped."""
    try:
        found = dream_runtime(self.runtime, memory, person)
    except UnknownMemory as exc:  # a person listed by hand with a name no remote can hold
        log.warning("not dreamt: %s", exc)
        return "skipped"
    return run_dream(found, found.config.workspace, now_iso).status


def register(app: HippoCelery) -> None:
    app.add_tasks(dream_memories, dream_memory)
    app.add_schedule(beat_schedule(app.runtime.config))
