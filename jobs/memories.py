"""Several memory repositories in one conversation: the team's, each person's own, the org's.

The team memory is the workspace's (HIPPO_MEMORY_REMOTE, or its workspace's remote). A person's
own memory (`me`) is HIPPO_PERSONAL_REMOTE_TEMPLATE with `{user}` replaced by who is asking (the
Slack user id; the MCP token's name; HIPPO_USER for the CLI and stdio MCP); the org-wide one is
HIPPO_ORG_MEMORY_REMOTE. Each is its own git repository with its own remote, credentials
(HIPPO_PERSONAL_MEMORY_TOKEN, HIPPO_ORG_MEMORY_TOKEN), cache, lock and write path, so the trust
rules (memory/trust/) hold in each. A person's memory is reached only through the caller's own
identity: no door takes another person's name, so only they, and agents acting in their turn,
read or write it.

A memory opened here is a Runtime of its own (`MemoryRuntime`: the scoped Config and Store, the
deployment's Redis, Celery and Claude), so every command and tool works on it unchanged. Its
store is opened once per process (and laid out like `hippo init` on first use), kept in the
Runtime's `stores`, as an installed workspace's is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import TYPE_CHECKING, Any

from jobs.config import Config, open_scopes, scoped_config
from jobs.runtime import Runtime, TeamRuntime
from memory import scopes
from memory.prompts import briefing
from memory.scopes import ME, ORDER, TEAM
from memory.search import Hit

if TYPE_CHECKING:  # jobs.read_counts loads redis, which `hippo note` and `hippo search` never use
    from jobs.read_counts import ReadBy


class MemoryRuntime(TeamRuntime):
    """One memory's Runtime: its Config and Store; the deployment's (or workspace's) team,
    Redis, Celery, Claude and installations."""

    def __init__(self, base: Runtime, config: Config, scope: str) -> None:
        super().__init__(base, config)
        self.scope = scope
        self.team = base.team


def runtime_for(rt: Runtime, scope: str, user: str = "") -> Runtime:
    """The Runtime of memory `scope` for `user` (`rt` itself for the team's)."""
    if scope == TEAM:
        return rt
    # writes nothing: the doors record who acted, once per request (jobs/people.py)
    return MemoryRuntime(rt, scoped_config(rt.config, scope, user), scope)


def judge(rt: Runtime) -> scopes.Judge | None:
    """Claude's verdict on whose fact the rules find unclear, with an API key; None without."""
    if rt.llm is None:
        return None
    from integrations.scope_llm import judge_for  # anthropic: only with an API key

    return judge_for(rt.llm, rt.config.small_model)


def pick(
    rt: Runtime, user: str, *, given: str = "", text: str = "", judge: scopes.Judge | None = None
) -> tuple[str, Runtime]:
    """Where a write of `text` goes: the memory named (`given`), else the router's choice;
    raises UnclearScope (naming the choices) or UnknownMemory."""
    open_ = open_scopes(rt.config, user)
    if given.strip() and scopes.normalise(given, ORDER) not in open_:
        scoped_config(rt.config, scopes.normalise(given, ORDER), user)  # says what is missing
    scope = scopes.choose(text, open_, given=given, judge=judge)
    return scope, runtime_for(rt, scope, user)


def reading(
    rt: Runtime, user: str, given: str = "", *, own: bool = True
) -> list[tuple[str, Runtime]]:
    """The memories a read covers: the one named, else every memory open for `user` (without
    their own when not `own`: an answer others read, in a Slack channel)."""
    if given.strip():
        scope, one = pick(rt, user, given=given)
        return [(scope, one)]
    return [(s, runtime_for(rt, s, user)) for s in read_scopes(rt.config, user, own=own)]


def read_scopes(config: Config, user: str, *, own: bool = True) -> tuple[str, ...]:
    """The memories a read of `user` covers, in ORDER; `me` only when `own`."""
    return tuple(s for s in open_scopes(config, user) if own or s != ME)


def own_hits(rt: Runtime, user: str, query: str, limit: int = 5) -> list[Hit]:
    """The facts (entries, not prose) the asker's own memory holds on `query`, best first;
    none without a personal memory."""
    if not query.strip() or ME not in open_scopes(rt.config, user):
        return []
    own = runtime_for(rt, ME, user).store
    own.sync()
    return [h for h in own.search(query, limit=limit * 2) if h.entry][:limit]


@dataclass(frozen=True)
class Found:
    """A search hit and the memory it came from."""

    scope: str
    hit: Hit
    workspace: str = ""  # its memory's (the Redis keys its reads are counted under)

    def as_dict(self) -> dict[str, Any]:
        return {**self.hit.as_dict(), "memory": self.scope}


def search(
    rt: Runtime,
    user: str,
    query: str,
    *,
    given: str = "",
    limit: int = 20,
    own: bool = True,
    **how: Any,
) -> list[Found]:
    """Ranked hits from every memory read (or the one named; not the person's own unless
    `own`), best first, each with its memory; ties keep ORDER (the person's own first)."""
    found: list[Found] = []
    for scope, one in reading(rt, user, given, own=own):
        one.store.sync()
        ws = one.config.workspace
        found += [Found(scope, h, ws) for h in one.store.search(query, limit=limit, **how)]
    found.sort(key=lambda f: -f.hit.score)
    return found[:limit]


def brief(
    rt: Runtime, user: str, task: str, *, labelled: bool = False, **how: Any
) -> briefing.Briefing:
    """The briefing over every memory read (or the one named): each memory's lines, labelled
    with it (`[me]`, `[team]`, `[org]`) when more than one is read (or `labelled`), section by
    section, within one budget. `how` as for `briefings`."""
    done = briefings(rt, user, task, **how)
    return merged(done, labelled=labelled)


def briefings(
    rt: Runtime,
    user: str,
    task: str,
    *,
    given: str = "",
    own: bool = True,
    repo: str = "",
    paths: Sequence[str] = (),
    budget: int = briefing.DEFAULT_BUDGET,
    channel: tuple[str, str | None] | None = None,
    redis: Any = None,
    count_team: bool = True,
    today: date | None = None,
    by: ReadBy | None = None,
) -> list[tuple[str, briefing.Briefing]]:
    """Each memory's briefing on `task`, in ORDER (the one named, else every open one; not
    the person's own unless `own`). `redis` counts each in its memory's operational log and
    its files as read (the team's unless `count_team` is False: the Slack agent's turn counts
    those with its own reads); `today` is the asker's date (the reminders due)."""
    # Imported here: the briefing's operational log loads redis (~90 ms), which `hippo search`
    # and `hippo note` (that import this module to route and read) never use.
    from jobs import briefing as jobs_briefing

    read = reading(rt, user, given, own=own)
    repo = repo or jobs_briefing.guess_repo(rt.store, task)
    return [
        (
            scope,
            jobs_briefing.brief(
                one.store,
                task,
                repo=repo,
                paths=paths,
                channel=channel if scope == TEAM else None,
                budget=budget,
                redis=redis,
                workspace=one.config.workspace,
                count_reads=count_team or scope != TEAM,
                today=today,
                by=by,
            ),
        )
        for scope, one in read
    ]


def merged(
    done: Sequence[tuple[str, briefing.Briefing]], *, labelled: bool = False
) -> briefing.Briefing:
    """One briefing of several memories' (`briefings`) within the first one's budget, each
    line labelled with its memory when there are several (or `labelled`); one memory's alone
    is returned as it is, byte for byte."""
    if len(done) == 1 and not labelled:
        return done[0][1]
    sections = list(briefing.HEADINGS)
    lines = [
        (sections.index(line.section), i, replace(line, text=f"{scopes.label(s)} {line.text}"))
        for i, (s, b) in enumerate(done)
        for line in b.lines
    ]
    lines.sort(key=lambda x: (x[0], x[1]))
    first = done[0][1]
    empty = briefing.Briefing(first.repo, first.task, first.paths, first.budget)
    return briefing.fit(empty, [line for _, _, line in lines])
