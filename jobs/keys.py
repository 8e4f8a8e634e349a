"""Every Redis key hippo uses, in one place: what it holds, who writes it, how long it lives.

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
| hippo:slack:lessons:<conventions file> | lock | one thread lesson planned at a time per file |
| hippo:agent:{pin,briefing,last,turns,lock}:<thread>, {done,retry}:<event> | various | threads |
| hippo:usage:<role>:<day> | hash | LLM token counts per day |
| hippo:handoff:<ws>:{pending,claimed,req:<id>,done:<id>} | list, string | jobs/handoff.py |
| hippo:dream:<workspace> | lock | one dream at a time |
| hippo:dream:digest:<workspace>:<run> | string | a dream's digest was posted |
| hippo:oplog:<workspace>:<day>, hippo:oplog-lessons:<workspace> | hash | the operational log |
| hippo:recall:<workspace>, hippo:recall-at:<workspace> | hash | read counts per file, and when |
| hippo:home:viewers:<ws>, hippo:home:glance:<ws>:<head> | set, string | App Home |
| hippo:console:session:<sha256> | string | a console sign-in session |
| hippo:workers:<workspace> | hash | worker heartbeats |
| hippo:ready:remote:<workspace>:<remote> | string | /readyz's cached remote check |
| hippo:journal, hippo:journal:sweep | hash, lock | the intake journal (jobs/journal.py) |
| hippo:outbox, hippo:outbox:seq | list, counter | replies while Slack is off (Outbox) |
"""

from __future__ import annotations

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


def recall_counts(workspace: str) -> str:
    return f"hippo:recall:{workspace}"


def recall_times(workspace: str) -> str:
    return f"hippo:recall-at:{workspace}"


def home_viewers(workspace: str) -> str:
    return f"hippo:home:viewers:{workspace}"


def home_glance(workspace: str, head: str) -> str:
    return f"hippo:home:glance:{workspace}:{head}"


def console_session(digest: str) -> str:
    return f"hippo:console:session:{digest}"


def workers(workspace: str) -> str:
    return f"hippo:workers:{workspace}"


def remote_ready(workspace: str, remote: str) -> str:
    return f"hippo:ready:remote:{workspace}:{remote}"
