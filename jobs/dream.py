"""Dreaming tasks: the nightly dream (beat), `/hippo dream`, and the digest's Revert button.

Thin: a Redis lock (one dream per workspace at a time), the verifiers and Claude wired from the
Runtime, memory.dream.run.dream, then a new prompt snapshot and the digest via `rt.poster`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal
from zoneinfo import ZoneInfo

from celery.schedules import crontab

from integrations import github_client as gh
from integrations import metrics
from jobs import keys, memory_health, oplog
from jobs.archive import roll_archive
from jobs.config import Config, today
from jobs.github.sweep import sweep
from jobs.memory_buttons import pressed
from jobs.read_counts import last_reads, read_counts
from jobs.runtime import Runtime
from jobs.slack import replies, speaker
from jobs.slack.home import refresh_homes
from jobs.slack.replies import RETRY, author, reply_once, write_or_refuse
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import Dream, ForgetFile, MergePair, Revert, SlackDream
from memory import notes
from memory.dream import digest, merge
from memory.dream.checkable_claims import Claim
from memory.dream.report import Report
from memory.dream.run import dream
from memory.dream.verifiers import Verdict, Verifier, Verifiers
from memory.errors import MemoryStoreError
from memory.git.maintenance import maintain
from memory.markup import slack
from memory.prompts import snapshot
from memory.trust.actors import Action, may

# The verifiers (PyGithub, requests), Claude (anthropic) and the agent's counters load when a
# dream runs: the web process imports this module for its task names.
if TYPE_CHECKING:
    from github import Github

log = logging.getLogger("hippo.dream")

LOCK_TTL = 3600  # a dream takes seconds to minutes; the lock outlives a crashed worker this long
OUTBOX_CHANNEL = "digest"
DIGEST_TTL = 3 * 24 * 3600  # "this night's digest was posted": a rerun within days posts nothing


# busy: another dream of the workspace runs; skipped: tonight's already ran; done: it ran now.
DreamStatus = Literal["busy", "skipped", "done"]


@dataclass
class Outcome:
    """What a dream request came to: busy (another one runs), skipped (done tonight), or a run."""

    status: DreamStatus
    report: Report | None = None
    snapshot: int = 0
    digest_ts: str = ""


def beat_schedule(config: Config) -> dict[str, Any]:
    """Nightly at HIPPO_DREAM_AT in the app's timezone (HIPPO_TIMEZONE, set by make_celery)."""
    hour, _, minute = (config.dream_at or "03:00").partition(":")
    return {
        "hippo-dream-nightly": {
            "task": Dream.TASK,
            "schedule": crontab(hour=int(hour or 3), minute=int(minute or 0)),
            "kwargs": {"workspace": config.workspace},
        }
    }


def parse_now(config: Config, now_iso: str | None) -> datetime:
    """`now_iso` (a naive time is in HIPPO_TIMEZONE), or the current time there."""
    zone = ZoneInfo(config.timezone or "UTC")
    if not now_iso:
        return datetime.now(zone)
    when = datetime.fromisoformat(now_iso)
    return when.replace(tzinfo=zone) if when.tzinfo is None else when.astimezone(zone)


class CountedVerifiers(Verifiers):
    """Verifiers whose calls are counted in Prometheus, by verifier and result."""

    def check(self, claim: Claim) -> Verdict:
        verdict = super().check(claim)
        metrics.VERIFIER_CALLS.labels(verdict.verifier or "none", verdict.status).inc()
        return verdict


def make_verifiers(rt: Runtime) -> Verifiers:
    """GitHub when configured, Slack when a bot token is set, HTTP for HIPPO_VERIFY_HOSTS, and
    the checks a team declares (.hippo/checks.yml; not checkable without what they ask)."""
    from integrations.declared_checks import Credentials, DeclaredVerifier
    from integrations.live_verifiers import GitHubVerifier, HttpVerifier, SlackVerifier

    config = rt.config
    found: list[Verifier] = []
    settings = gh.GitHubSettings(
        api_url=config.github_api_url,
        app_id=config.github_app_id,
        private_key=config.github_app_private_key,
        token=config.github_token,
    )
    client_for = _client_for(settings) if settings.configured else None
    if client_for is not None:
        found.append(GitHubVerifier(client_for))
    if config.slack_bot_token:
        found.append(SlackVerifier(rt.slack))
    if config.verify_hosts:
        found.append(HttpVerifier(config.verify_hosts, private=config.verify_private))
    hosts, private = config.verify_hosts, config.verify_private
    credentials = Credentials(config.check_env_prefix, config.check_env)
    found.append(
        DeclaredVerifier(
            hosts=hosts, private=private, client_for=client_for, credentials=credentials
        )
    )
    return CountedVerifiers(found)


def _client_for(settings: gh.GitHubSettings) -> Any:
    clients: dict[str, Github] = {}

    def client_for(owner: str) -> Github:
        if owner not in clients:
            installation: int | None = None
            if settings.is_app:
                app = gh.integration(settings)
                try:
                    installation = app.get_org_installation(owner).id
                except Exception:  # not an organisation: a user account's installation
                    installation = app.get_user_installation(owner).id
            clients[owner] = gh.client(settings, installation)
        return clients[owner]

    return client_for


def run_dream(
    rt: Runtime,
    workspace: str = "",
    now_iso: str | None = None,
    on_step: Callable[[str], None] | None = None,
) -> Outcome:
    """One dream under the workspace lock, then the snapshot and the digest. `on_step(name)`
    follows each step (the CLI's progress bar)."""
    workspace = workspace or rt.config.workspace
    lock = rt.redis.lock(keys.dream_lock(workspace), timeout=LOCK_TTL, blocking_timeout=0)
    if not lock.acquire(blocking=False):
        log.info("a dream of %s is already running; this one stops", workspace)
        return Outcome("busy")
    try:
        return _dream_locked(rt, workspace, parse_now(rt.config, now_iso), lock, on_step)
    finally:
        try:
            lock.release()
        except Exception:  # expired meanwhile: nothing to release
            log.warning("the dream lock of %s expired before the dream ended", workspace)


def _dream_locked(
    rt: Runtime,
    workspace: str,
    now: datetime,
    lock: Any,
    on_step: Callable[[str], None] | None,
) -> Outcome:
    started = time.monotonic()
    verifiers = make_verifiers(rt)
    claude = None
    if rt.llm is not None:
        from integrations.dream_llm import ClaudeDreamer

        claude = ClaudeDreamer(
            rt.llm, verifiers, model=rt.config.model, allowed_hosts=rt.config.verify_hosts
        )
    swept = sweep(rt, workspace, now)  # before the steps: tonight's daily note has its lessons
    report = dream(
        rt.store,
        now=now,
        verifiers=verifiers,
        checker=claude,
        writer=claude,
        learner=claude,
        titler=claude,
        confirm=claude.same if claude is not None else None,
        recall=read_counts(rt.redis, workspace),
        last_read=last_reads(rt.redis, workspace),
        allowed_hosts=rt.config.verify_hosts,
        after_step=lambda step: _after_step(lock, step, on_step),  # each step renews the lock
    )
    report.extra["sweep"] = swept.as_dict() if swept is not None else None
    if not report.skipped:  # old months of archive/ to the cold ref, one commit each
        report.extra["archive"] = roll_archive(rt.store, now.date())
    metrics.DREAM_SECONDS.observe(time.monotonic() - started)
    for step in report.steps:
        metrics.DREAM_STEPS.labels("yes" if step.commit else "no").inc()
    posted = keys.dream_digest(workspace, report.run_id)
    oplog.count_night(rt.redis, workspace, {} if report.skipped else report.extra.get("outcomes"))
    if not report.skipped:
        memory_health.record(rt.redis, workspace, rt.store, report, now.date())
    if report.skipped and (rt.redis.exists(posted) or not report.steps):
        return Outcome("skipped", report)
    # a dream that died after its state commit still owes the snapshot and the digest
    if claude is not None:
        report.extra["usage"] = claude.usage()
    return _publish(rt, report, workspace, now, posted)


def _publish(rt: Runtime, report: Report, workspace: str, now: datetime, posted: str) -> Outcome:
    """The dream's snapshot and digest, then a repack when it left many loose objects."""
    from jobs.agent.turn import agent_usage

    # The agent's cache hits of the day before (its counters are per UTC day).
    yesterday = (now.astimezone(UTC) - timedelta(days=1)).date().isoformat()
    report.extra["agent_usage"] = agent_usage(rt.redis, yesterday)
    report.extra.update(activity(rt, workspace, yesterday))
    snap = snapshot.publish(rt.store, report.head)
    ts = post_digest(rt, report, workspace)
    if report.steps:  # a big dream leaves many loose objects: repack past git's gc.auto
        try:
            maintain(rt.store, only_if_needed=True)
        except MemoryStoreError as exc:  # the weekly run catches up; the dream succeeded
            log.warning("maintenance after the dream failed: %s", exc)
    index_search(rt)
    rt.redis.set(posted, ts or "-", ex=DIGEST_TTL)
    refresh_homes(rt)  # App Home shows the last dream: republish it for recent viewers
    return Outcome("skipped" if report.skipped else "done", report, snap.version, ts)


def index_search(rt: Runtime) -> None:
    """Bring the search index on disk (beside this process's cache of the workspace, shared by
    every process with the same HIPPO_DATA_DIR) to the tip the night left: a dream that changed
    over an eighth of the files made the next search rebuild it (24.5 s of CPU at 100,000
    files), the morning's first person's. A search applies any new commit first, so one with
    no query is that and nothing more."""
    import sqlite3  # with a dream, not with every process importing the task names

    try:
        rt.store.search("", limit=1)
    except (MemoryStoreError, sqlite3.Error) as exc:  # the next search catches up instead
        log.warning("the search index after the dream was not updated: %s", exc)


def activity(rt: Runtime, workspace: str, day: str) -> dict[str, Any]:
    """The digest's operational log: `day`'s counts and the lessons briefed most."""
    return {
        "oplog": {"day": day, **oplog.day(rt.redis, workspace, day)},
        "lessons_used": oplog.lesson_uses(rt.redis, workspace, limit=5),
    }


def _after_step(lock: Any, step: str, on_step: Callable[[str], None] | None) -> None:
    lock.extend(LOCK_TTL, replace_ttl=True)  # a dream with Claude can take a while
    if on_step is not None:
        on_step(step)


def post_digest(rt: Runtime, report: Report, workspace: str) -> str:
    channel = rt.config.digest_channel or (OUTBOX_CHANNEL if not rt.config.slack_bot_token else "")
    if not channel:
        log.warning(
            "HIPPO_DIGEST_CHANNEL is not set: the digest of %s is not posted", report.run_id
        )
        return ""
    blocks = digest.blocks(report, console_url=rt.config.public_url, workspace=workspace)
    return rt.poster.post(channel, digest.text(report), blocks=blocks)


@task(Dream.TASK, autoretry_for=RETRY["autoretry_for"], max_retries=3, retry_backoff=30)
def dream_task(
    self: HippoTask, *, workspace: str = "", now_iso: str | None = None, **ctx: Any
) -> DreamStatus:
    """The nightly (and on-demand) dream; a retry continues where the last attempt stopped."""
    return run_dream(self.runtime, workspace, now_iso).status


@task(SlackDream.TASK, **RETRY)
def slack_dream(
    self: HippoTask, *, key: str, channel: str, user: str = "", now_iso: str = "", **ctx: Any
) -> None:
    """`/hippo dream` or App Home's button: admins of this workspace only (jobs/actors.py);
    the digest is the answer."""
    rt = self.runtime
    to = replies.ReplyTo.of(channel, ctx, user=user)
    who = speaker.actor(rt, user, ctx, admin=True)
    if not may(who, Action.ADMIN):
        reply_once(rt, self, key, to, speaker.refused(rt, who, Action.ADMIN, "start a dream"))
        return
    outcome = run_dream(rt, rt.config.workspace, now_iso or None)
    if outcome.status == "busy":
        reply_once(rt, self, key, to, "A dream is already running; its digest will follow.")
    elif outcome.status == "skipped":
        reply_once(rt, self, key, to, "Tonight's dream already ran; nothing changed.")


@task(Revert.TASK, **RETRY)
def revert_step(
    self: HippoTask, *, key: str, commit: str, user: str, channel: str, thread_ts: str, **ctx: Any
) -> None:
    """The digest's Revert button: undo one step as a commit by the person, answer in thread."""
    rt = pressed(self.runtime, ctx, user, channel, "revert a dream step")  # on the digest's memory
    if rt is None:
        return

    def write() -> str:
        done = rt.store.revert(commit, author(user))
        what = slack(rt.store.diff(commit).commit.summary)  # subjects quote entries
        if not done.created:
            return f"“{what}” was already reverted (commit {done.commit[:8]})."
        return f"<@{user}> reverted “{what}” (commit {done.commit[:8]})."

    text = write_or_refuse(write, f"Could not revert {commit[:8]}: {{error}}")
    reply_once(
        rt, self, key, replies.ReplyTo.of(channel, ctx, user=user, thread_ts=thread_ts), text
    )


@task(ForgetFile.TASK, **RETRY)
def forget_file(
    self: HippoTask, *, key: str, path: str, user: str, channel: str, thread_ts: str, **ctx: Any
) -> None:
    """The digest's Forget button on a file nobody used: the person removes it (tombstoned)."""
    rt = pressed(self.runtime, ctx, user, channel, "forget files from the digest")
    if rt is None:
        return
    why = "nobody used it in 60 days and nothing could check it (the dream's digest)"

    def write() -> str:
        done = notes.forget_file(
            rt.store,
            path,
            by=user,
            reason=why,
            key=key,
            today=today(rt.config),
            author=author(user),
        )
        if done is None:
            return f"`{slack(path)}` is already gone."
        snapshot.publish_if_index_changed(rt.store, done)
        return f"<@{user}> forgot `{slack(path)}`."

    text = write_or_refuse(write, f"Could not forget `{slack(path)}`: {{error}}")
    reply_once(
        rt, self, key, replies.ReplyTo.of(channel, ctx, user=user, thread_ts=thread_ts), text
    )


@task(MergePair.TASK, **RETRY)
def merge_pair(
    self: HippoTask,
    *,
    key: str,
    pair: list[str],
    user: str,
    channel: str,
    thread_ts: str,
    **ctx: Any,
) -> None:
    """The digest's Merge button on a possible duplicate: the person merges the two entries."""
    rt = pressed(self.runtime, ctx, user, channel, "merge entries from the digest")
    if rt is None:
        return

    def write() -> str:
        done = merge.merge_pair(
            rt.store,
            (pair[0], pair[1], pair[2], pair[3]),
            by=user,
            today=today(rt.config),
            author=author(user),
            key=key,
        )
        if done is None:
            return "Nothing merged: one of the two entries is gone or was edited since."
        snapshot.publish_if_index_changed(rt.store, done)
        return f"<@{user}> merged “{pair[3]}” into “{pair[1]}” (commit {done.commit[:8]})."

    text = write_or_refuse(write, "Could not merge: {error}")
    reply_once(
        rt, self, key, replies.ReplyTo.of(channel, ctx, user=user, thread_ts=thread_ts), text
    )


def register(app: HippoCelery) -> None:
    app.add_tasks(dream_task, slack_dream, revert_step, forget_file, merge_pair)
    app.add_schedule(beat_schedule(app.runtime.config))
