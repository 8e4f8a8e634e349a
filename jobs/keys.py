"""Every Redis key hippo uses, in one place: what it holds, who writes it, how long it lives;
and the one claim helper (`Claim`) for the keys that make work happen once (below the table).

A key that names a workspace keeps workspaces apart on a shared Redis (many workspaces: one
deployment). Nothing else in bot/, jobs/ or integrations/ spells a key (tests/test_redis_keys.py);
integrations/ (below jobs/) is handed its key (the outbox's). The one key not here is the memory
write lock, `hippo:lock:<workspace>` in memory/git/store.py: memory/ imports nothing of ours and
owns its lock, so it spells its own name.

| key | type | what |
| --- | --- | --- |
| hippo:slack:seen:<parts> | string | a Slack request's claim (bot/slack/dedupe.py) |
| hippo:slack:replied:<key> | string | a reply's claim: posted once per idempotency key |
| hippo:slack:question:<key> | string | forget's "which one?" question, until answered |
| hippo:slack:channel-names:<team> | hash | channel id → name, from requests that carried it |
| hippo:github:delivery:<guid> | string | a webhook delivery's claim |
| hippo:github:check:<repo>@<sha> | string | a pitfall check's claim, then its check run id |
| hippo:github:installations | hash | owner/repo (or *) → GitHub App installation id |
| hippo:github:agent-pushes:<repo>#<n> | list | the head SHAs the agent pushed |
| hippo:github:lessons:<repo> | lock | one lesson learned at a time per repository |
| hippo:github:sweep:<workspace> | string | when the last whole nightly pull-request sweep began |
| hippo:slack:lessons:<conventions file> | lock | one thread lesson planned at a time per file |
| hippo:agent:{pin,briefing,last,turns,lock}:<thread>, {done,retry}:<event> | various | threads |
| hippo:usage:<role>:<day> | hash | LLM token counts per day |
| hippo:handoff:<ws>:{pending,claimed,req:<id>,done:<id>} | list, string | jobs/handoff.py |
| hippo:dream:<workspace> | lock | one dream at a time |
| hippo:dream:digest:<workspace>:<run> | string | a dream's digest was posted |
| hippo:oplog:<workspace>:<day>, hippo:oplog-lessons:<workspace> | hash | the operational log |
| hippo:oplog-events:<workspace> | stream | the operational log's records (jobs/oplog.py) |
| hippo:health:<workspace> | hash | the memory's health per night (jobs/memory_health.py) |
| hippo:recall:<workspace>, hippo:recall-at:<workspace> | hash | read counts per file, and when |
| hippo:home:viewers:<ws>, hippo:home:glance:<ws>:<head> | set, string | App Home |
| hippo:people:<workspace> | set | people whose own memory a door opened (jobs/people.py) |
| hippo:slack:tz:<team>:<user> | string | a Slack user's time zone, from users.info, for a day |
| hippo:slack:user:<team>:<user> | string | users.info's answer for a user (jobs/actors.py) |
| hippo:console:session:<sha256> | string | a console sign-in session |
| hippo:workers:<workspace> | hash | worker heartbeats |
| hippo:ready:remote:<workspace>:<remote> | string | /readyz's cached remote check |
| hippo:journal, hippo:journal:sweep | hash, lock | the intake journal (jobs/journal.py) |
| hippo:outbox, hippo:outbox:seq | list, counter | replies while Slack is off (Outbox) |

Claims: `SET key holder NX EX pending` (`Claim`), for work that must happen once.

A claim is taken before the work (a short `pending` lifetime, so a holder that died frees it by
itself), turned into a long-lived `done` marker when the work is done (so a repeat is known),
and released when the work failed (so a retry can take it). Every use names its timeouts:

| use | key | pending | done |
| --- | --- | --- | --- |
| a Slack request (event id, message, button) | slack_seen | 30 s | 3 days |
| a GitHub webhook delivery (its GUID) | github_delivery | 60 s | 7 days |
| a pitfall check run per pull request head | github_check | 10 min | 30 days |
| a Slack reply per idempotency key | slack_replied | 10 min | 3 days |
| the intake journal's sweep (one worker at a time) | JOURNAL_SWEEP | the grace period | – |

Why those: Slack retries an unanswered request after 1 minute, so a dead enqueue must free its
claim before that (30 s); GitHub never retries by itself (60 s only bounds a Redis outage). A
check run or a reply can take minutes (GitHub's diff, Slack rate limits); 10 minutes is longer
than any of them and shorter than Celery's redelivery of a dead worker's task. The `done` times
outlast each sender's redelivery window (Slack: minutes; GitHub: 3 days by hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

JOURNAL = "hippo:journal"
JOURNAL_SWEEP = "hippo:journal:sweep"
OUTBOX = "hippo:outbox"
GITHUB_INSTALLATIONS = "hippo:github:installations"
_SLACK = "hippo:slack:"
_AGENT = "hippo:agent:"


def slack_seen(*parts: str) -> str:
    return _SLACK + "seen:" + ":".join(parts)


def slack_replied(key: str) -> str:
    return f"{_SLACK}replied:{key}"


def slack_question(key: str) -> str:
    return f"{_SLACK}question:{key}"


def channel_names(team: str) -> str:
    return f"{_SLACK}channel-names:{team}"


def github_delivery(guid: str) -> str:
    return f"hippo:github:delivery:{guid}"


def github_check(repo: str, head_sha: str) -> str:
    return f"hippo:github:check:{repo}@{head_sha}"


def github_agent_pushes(repo: str, number: int) -> str:
    return f"hippo:github:agent-pushes:{repo}#{number}"


def github_lessons_lock(repo: str) -> str:
    return f"hippo:github:lessons:{repo}"


def github_sweep(workspace: str) -> str:
    """The nightly pull-request sweep's cursor (jobs/github/sweep.py)."""
    return f"hippo:github:sweep:{workspace}"


def thread_lessons_lock(path: str) -> str:
    """One planner per conventions file for lessons taught in Slack threads."""
    return f"hippo:slack:lessons:{path}"


def agent_briefing(thread: str) -> str:
    """A thread's briefing, pinned at its first turn (jobs/agent/question_briefing.py)."""
    return f"{_AGENT}briefing:{thread}"


def agent_pin(thread: str) -> str:
    return f"{_AGENT}pin:{thread}"


def agent_turns(thread: str) -> str:
    return f"{_AGENT}turns:{thread}"


def agent_last(thread: str) -> str:
    return f"{_AGENT}last:{thread}"


def agent_done(event_id: str) -> str:
    return f"{_AGENT}done:{event_id}"


def agent_lock(thread: str) -> str:
    return f"{_AGENT}lock:{thread}"


def agent_retry(event_id: str) -> str:
    return f"{_AGENT}retry:{event_id}"


def usage(role: str, day: str) -> str:
    return f"hippo:usage:{role}:{day}"


def handoff_pending(workspace: str) -> str:
    return f"hippo:handoff:{workspace}:pending"


def handoff_claimed(workspace: str) -> str:
    return f"hippo:handoff:{workspace}:claimed"


def handoff_request(workspace: str, ticket: str) -> str:
    return f"hippo:handoff:{workspace}:req:{ticket}"


def handoff_done(workspace: str, ticket: str) -> str:
    return f"hippo:handoff:{workspace}:done:{ticket}"


def dream_lock(workspace: str) -> str:
    return f"hippo:dream:{workspace}"


def dream_digest(workspace: str, run_id: str) -> str:
    return f"hippo:dream:digest:{workspace}:{run_id}"


def oplog_day(workspace: str, day: str) -> str:
    return f"hippo:oplog:{workspace}:{day}"


def oplog_lessons(workspace: str) -> str:
    return f"hippo:oplog-lessons:{workspace}"


def oplog_events(workspace: str) -> str:
    return f"hippo:oplog-events:{workspace}"


def memory_health(workspace: str) -> str:
    return f"hippo:health:{workspace}"


def recall_counts(workspace: str) -> str:
    return f"hippo:recall:{workspace}"


def recall_times(workspace: str) -> str:
    return f"hippo:recall-at:{workspace}"


def home_viewers(workspace: str) -> str:
    return f"hippo:home:viewers:{workspace}"


def home_glance(workspace: str, head: str) -> str:
    return f"hippo:home:glance:{workspace}:{head}"


def people(workspace: str) -> str:
    return f"hippo:people:{workspace}"


def slack_timezone(team: str, user: str) -> str:
    return f"hippo:slack:tz:{team}:{user}"


def slack_user(team: str, user: str) -> str:
    return f"hippo:slack:user:{team}:{user}"


def console_session(digest: str) -> str:
    return f"hippo:console:session:{digest}"


def workers(workspace: str) -> str:
    return f"hippo:workers:{workspace}"


def remote_ready(workspace: str, remote: str) -> str:
    return f"hippo:ready:remote:{workspace}:{remote}"


# Claims: one Redis key taken once (see the module's docstring).
PENDING = "pending"


@dataclass(frozen=True)
class Claim:
    """A claim on one Redis key, with its two lifetimes (seconds)."""

    redis: Any  # redis.Redis or a pipeline-capable client
    key: str
    pending: int  # how long a taken claim lives if its holder never finishes
    done: int = 0  # how long `finish` keeps it (0: `finish` is not used)

    def take(self, holder: str = PENDING) -> bool:
        """True when this call took the claim."""
        return bool(self.redis.set(self.key, holder, nx=True, ex=self.pending))

    def take_or_hold(self, holder: str) -> bool:
        """True when this call took the claim, or `holder` holds it already (the same work run
        again, e.g. a task redelivered after its worker died)."""
        return self.take(holder) or self.holder() == holder

    def holder(self) -> str:
        """What the claim holds ("" when nobody holds it)."""
        held = self.redis.get(self.key)
        return held.decode() if isinstance(held, bytes) else str(held or "")

    def finish(self, value: str, *, if_held: bool = False) -> None:
        """The work is done: keep `value` for `done` seconds. `if_held`: only if the claim is
        still there (the work may have released it on purpose meanwhile)."""
        self.redis.set(self.key, value, ex=self.done, xx=if_held)

    def release(self) -> None:
        """The work failed or was refused: let the next attempt take the claim."""
        self.redis.delete(self.key)


def take_all(claims: Sequence[Claim], holder: str = PENDING, *, pipe: Any = None) -> list[Claim]:
    """Take every claim in one round trip; returns those this call took. `pipe`: a pipeline
    with commands of the caller's queued already, run in the same round trip (before the
    claims)."""
    if not claims:
        if pipe is not None:
            pipe.execute()
        return []
    pipe = pipe if pipe is not None else claims[0].redis.pipeline(transaction=False)
    for c in claims:
        pipe.set(c.key, holder, nx=True, ex=c.pending)
    taken = pipe.execute()[-len(claims) :]
    return [c for c, ok in zip(claims, taken, strict=True) if ok]


def finish_all(claims: Sequence[Claim], value: str, *, if_held: bool = False) -> None:
    """`finish` each claim, in one round trip."""
    if not claims:
        return
    pipe = claims[0].redis.pipeline(transaction=False)
    for c in claims:
        pipe.set(c.key, value, ex=c.done, xx=if_held)
    pipe.execute()


def release_all(claims: Sequence[Claim]) -> None:
    if claims:
        claims[0].redis.delete(*[c.key for c in claims])
