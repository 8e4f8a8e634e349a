"""What the MCP tools do, apart from MCP: read, write, delete, search and list memory files,
brief, and read the memory's history (search over it, recent activity, a file's) and links.

Every write goes through `Store.write` (secrets, tombstones, protected `.dream/`, idempotency key,
push); every path through `memory.writes.apply.check_path`. Errors are the memory core's own, whose
messages say what to do; bot/mcp/server.py turns them into MCP tool errors.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import memory.format.tags as fmt_tags
from jobs import actors, oplog
from jobs.briefing import brief
from jobs.read_counts import HashStore, ReadBy, count_read
from memory import format as fmt
from memory import links, scopes, writes
from memory.errors import NoteRejected, NotFound
from memory.facts import tombstones
from memory.facts.contradictions import CONTRADICT, Judge
from memory.git import Author, Store, WriteResult, changes
from memory.prompts import snapshot
from memory.search import Hit
from memory.search.bounds import MAX_QUERY, MAX_WORD, MAX_WORDS, bound
from memory.trust import rules as trust
from memory.trust.actors import Kind
from memory.trust.agent_gate import Gate, Landed
from memory.trust.rules import kind_of
from memory.writes import validate

DEFAULT_FILE = "MEMORY.md"
RECENT_DAYS = 7  # recentActivity's default window


def author_for(name: str, *, person: bool = False) -> Author:
    """The commit author for an agent or person known only by name (a token's name). An MCP
    caller is an agent (memory/trust/rules.py) unless configuration declares its token a
    person's."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-") or "agent"
    who = actors.resolve(None, actors.McpRequest(name, person))  # the MCP door's one call
    role = trust.PERSON if who.kind is Kind.MCP_PERSON else trust.AGENT
    return Author(name, f"{slug}@mcp.hippo", role=role)


def _check_query(query: str) -> None:
    """Refuse an empty query, and one search would cut (memory/search/bounds.py): an agent's
    answer has no place for a note, so it is told what to send instead."""
    if not query.strip():
        raise NoteRejected("the search query is empty; give a word or phrase to look for")
    cut = bound(query).cut
    if cut:
        raise NoteRejected(
            f"the query is too long to search ({'; '.join(cut)}): send at most {MAX_QUERY:,} "
            f"characters and {MAX_WORDS} words, none longer than {MAX_WORD} characters"
        )


def parse_line(line: str) -> tuple[str, writes.Meta]:
    """An entry as given by an agent ('- text [key: value]' or plain text) → (text, meta)."""
    body = line.strip()
    entry = fmt.parse_entry(body)
    if entry is not None:
        return entry.text, entry.meta
    return fmt.split_metadata(body)


@dataclass(frozen=True)
class Replacement:
    """Replace the entry whose text is `match` with `text` (metadata brackets allowed)."""

    match: str
    text: str


@dataclass
class MemoryTools:
    """The tools over one store, for one workspace; `redis` counts recalls when given."""

    store: Store
    workspace: str = "default"
    redis: HashStore | None = None
    today: Callable[[], dt.date] = dt.date.today
    date_of: Callable[[str], dt.date] | None = None  # the caller's date (jobs/asker_time.py)
    judge: Judge | None = None  # Claude for the contradiction check, when a key is set
    people: frozenset[str] = frozenset()  # token names declared people's (HIPPO_MCP_PEOPLE)
    memories: Any = None  # bot/mcp/memories.py: the other memories open (None: the team's only)

    def author(self, by: str) -> Author:
        return author_for(by, person=by in self.people)

    def today_for(self, by: str) -> dt.date:
        """The caller's date: what "due today" means to them (`today` when no door set one)."""
        return self.date_of(by) if self.date_of is not None and by else self.today()

    def at(self, memory: str, by: str, text: str | None = None) -> MemoryTools:
        """The tools of the memory a call names (`memory`), or for a write (`text`) the one the
        router chooses; raises UnknownMemory or UnclearScope naming the choices."""
        if self.memories is None:
            if memory.strip():  # only the team's memory here: "team" works, anything else says so
                scopes.normalise(memory, (scopes.TEAM,))
            return self
        tools: MemoryTools = self.memories.tools(self, by, memory, text)
        return tools

    def search_in(
        self, memory: str, by: str, query: str, limit: int = 20, **how: Any
    ) -> list[dict[str, Any]]:
        """`search` in the memory named, else in every open one, each hit with its `memory`."""
        if memory.strip() or self.memories is None or not self.memories.several(by):
            return self.at(memory, by).search(query, limit, by=by, **how)
        _check_query(query)
        hits: list[dict[str, Any]] = self.memories.search(by, query, max(1, min(limit, 100)), **how)
        return hits

    def brief_in(
        self, memory: str, by: str, task: str, repo: str, paths: Sequence[str], budget: int
    ) -> str:
        """`brief` from the memory named, else from every open one, each line labelled."""
        if memory.strip() or self.memories is None or not self.memories.several(by):
            return self.at(memory, by).brief(task, repo, paths, budget, by=by)
        text: str = self.memories.brief(by, task, repo, paths, budget)
        return text

    def read(self, path: str = DEFAULT_FILE, *, by: str = "") -> str:
        path = writes.check_path(path or DEFAULT_FILE)
        text = self.store.read_or_none(path)
        if text is None:
            raise NotFound(f"{path} does not exist; listMemory shows the files there are")
        if self.redis is not None:
            count_read(self.redis, self.workspace, path, by=ReadBy(by, "mcp"))
        return text

    def list_files(self, prefix: str = "") -> list[str]:
        if prefix:
            writes.check_path(prefix.rstrip("/"))
        return sorted(self.store.files(prefix))

    def search(
        self,
        query: str,
        limit: int = 20,
        *,
        archive: bool = False,
        all_words: bool = False,
        by: str = "",
    ) -> list[dict[str, Any]]:
        _check_query(query)
        n = max(1, min(limit, 100))
        hits = self.store.search(query, limit=n, archive=archive, all_words=all_words)
        if self.redis is not None:
            firsts = {hit.path: hit.text for hit in reversed(hits)}  # each file's best hit
            for path in dict.fromkeys(hit.path for hit in hits):  # a recall, as in Slack
                entry = firsts[path]
                count_read(self.redis, self.workspace, path, by=ReadBy(by, "mcp"), entry=entry)
        return [_plain(hit) for hit in hits]

    def brief(
        self,
        task: str,
        repo: str = "",
        paths: Sequence[str] = (),
        budget: int = 1500,
        *,
        by: str = "",
    ) -> str:
        """The briefing's text (memory.prompts.briefing), counted in the operational log; the
        reminders due on the caller's (`by`'s) date."""
        return brief(
            self.store,
            task,
            repo=repo,
            paths=paths,
            budget=budget,
            redis=self.redis,
            workspace=self.workspace,
            today=self.today_for(by),
            by=ReadBy(by, "mcp"),
        ).text

    def search_history(
        self, query: str, since: str = "", limit: int = 20, path: str = ""
    ) -> dict[str, Any]:
        """The commits that added, changed or removed entries holding every word of `query`."""
        words = changes.needles(query)
        if not words:
            raise NoteRejected("the query is empty; give the words the entries held")
        return self._history(words, since, limit, writes.check_path(path) if path else None)

    def recent(self, since: str = "", limit: int = 30) -> dict[str, Any]:
        """Every commit since `since` (default: the last RECENT_DAYS days), newest first."""
        default = (self.today() - dt.timedelta(days=RECENT_DAYS)).isoformat()
        return self._history([], since or default, limit, None)

    def file_history(self, path: str, since: str = "", limit: int = 20) -> dict[str, Any]:
        """The commits that changed `path` (a deleted file's too), with the entries they changed."""
        return self._history([], since, limit, writes.check_path(path))

    def _history(
        self, words: list[str], since: str, limit: int, path: str | None
    ) -> dict[str, Any]:
        when = changes.parse_since(since) if since.strip() else None
        n = max(1, min(limit, 100))
        found = self.store.search_history(words, limit=n, since=when, path=path)
        return {
            "changes": [c.as_dict() for c in found.changes],
            "scanned": found.scanned,
            "complete": found.complete,  # False: more history past the commits read
        }

    def links(self, path: str, depth: int = 1) -> dict[str, Any]:
        """`path`'s [[links]] and backlinks, and the graph within `depth` steps."""
        path = writes.check_path(path)
        tree = self.store.tree() if self.store.tip() else {}
        graph = links.around(tree, path, depth)
        if path not in tree and not graph.backlinks:
            raise NotFound(f"{path} does not exist; listMemory shows the files there are")
        return graph.as_dict()

    def write(
        self,
        by: str,
        path: str,
        message: str,
        *,
        entries: Sequence[str] = (),
        replace: Sequence[Replacement] = (),
        content: str | None = None,
        title: str | None = None,
        key: str | None = None,
        kind: str = "",
        tags: Sequence[str] = (),
    ) -> dict[str, Any]:
        """An MCP client is an agent unless its token is a person's: an agent's entries pass
        the quality gate (memory.trust.agent_gate) and the write path's trust rules
        (memory.trust.rules)."""
        path = writes.check_path(path)
        if content is not None and (entries or replace):
            raise NoteRejected("give either content (a whole file) or entries/replace, not both")
        if content is None and not entries and not replace:
            raise NoteRejected("nothing to write: give entries, replace or content")
        today = self.today().isoformat()
        batch: list[writes.Operation] = []
        if content is not None:
            batch.append(writes.WriteFile(path, content))
        for line in entries:
            text, meta = parse_line(line)
            if not text:
                raise NoteRejected(f"an entry for {path} is empty")
            meta = _tagged(meta, tags)
            batch.append(writes.AddEntry(path, text, _stamp(meta, by, today), title=title))
        for r in replace:
            text, meta = parse_line(r.text)
            batch.append(writes.ReplaceEntry(path, r.match, text, meta))
        author = self.author(by)
        gate = Gate(kind=kind_of(kind), judge=self.judge, origin=f"by {by}")
        if author.agent is not None:
            batch = gate.apply(batch, self.store.read_or_none)
        result = self.store.write(batch, author=author, message=_msg(message), key=_key(by, key))
        snapshot.publish_if_index_changed(self.store, result)  # new Slack threads see the edit
        if result.created:  # a retried call (same key) counts nothing again
            self._count(gate, by)
        return {**_result(result), "landed": [_landed(x) for x in gate.landed]}

    def _count(self, gate: Gate, by: str) -> None:
        counters: Any = self.redis  # a redis.Redis: hashes and pipelines
        said = [
            oplog.Event(oplog.RECORD[oplog.CONTRADICTIONS], "mcp", by, x.path, x.text)
            for x in gate.landed
            if x.verdict == CONTRADICT
        ]
        if counters is not None and said:
            oplog.count_in(counters, self.workspace, oplog.CONTRADICTIONS, len(said), records=said)

    def delete(
        self,
        by: str,
        path: str,
        message: str,
        *,
        entries: Sequence[str] = (),
        reason: str = "",
        key: str | None = None,
    ) -> dict[str, Any]:
        """Remove entries (or the whole file when none are named), each recorded in forgotten.md."""
        path = writes.check_path(path)
        if path == tombstones.PATH:
            raise NoteRejected("forgotten.md keeps what was removed on purpose; it is not deleted")
        text = self.store.read_or_none(path)
        if text is None:
            raise NotFound(f"{path} does not exist; listMemory shows the files there are")
        doc = fmt.parse(text)
        batch: list[writes.Operation] = []
        if entries:
            gone = [_find(doc, path, parse_line(e)[0]) for e in entries]
            batch.extend(writes.RemoveEntry(path, e.text) for e in gone)
        else:
            gone = list(doc.entries)
            batch.append(writes.DeleteFile(path))
        today = self.today().isoformat()
        for entry in gone:
            stone, meta = tombstones.entry_for(
                entry, path=path, removed=today, by=by, reason=reason
            )
            batch.append(writes.AddTombstone(tombstones.PATH, stone, meta, title=tombstones.TITLE))
        result = self.store.write(
            batch, author=self.author(by), message=_msg(message), key=_key(by, key)
        )
        snapshot.publish_if_index_changed(self.store, result)  # new Slack threads see the edit
        # An agent's deletion of a person's entry is a proposal (memory/trust/rules.py), not a
        # removal.
        return {**_result(result), "proposed": max(0, len(gone) - len(result.removed))}


def _find(doc: fmt.Document, path: str, text: str) -> fmt.Entry:
    for entry in doc.entries:
        if fmt.same_fact(text, entry.text):
            return entry
    raise NotFound(f"no entry in {path} reads {text!r}; readMemory shows the entries there are")


def _key(by: str, key: str | None) -> str | None:
    """The caller's idempotency key in its own namespace (memory.writes.validate.external_key)."""
    return validate.external_key("mcp:" + author_for(by).email.split("@", 1)[0], key)


def _stamp(meta: writes.Meta, by: str, today: str) -> writes.Meta:
    """Who added an entry and when, unless the caller said so already."""
    keys = {k.lower() for k, _ in meta}
    extra = [(k, v) for k, v in (("added", today), ("by", by)) if k not in keys]
    return (*meta, *extra)


def _tagged(meta: writes.Meta, tags: Sequence[str]) -> writes.Meta:
    """`meta` with `tags` added to the entry's own `tags:` (one key; the write path checks
    their spelling, memory/format/tags.py)."""
    if not any(t.strip() for t in tags):
        return meta
    own = [v for k, v in meta if k.lower() == fmt_tags.KEY]
    rest = tuple((k, v) for k, v in meta if k.lower() != fmt_tags.KEY)
    merged = fmt_tags.join(t for v in (*own, *tags) for t in fmt_tags.split(v))
    return (*rest, (fmt_tags.KEY, merged))


def _msg(message: str) -> str:
    message = message.strip()
    if not message:
        raise NoteRejected("a commit message is required: say why the memory changes")
    return message


def _result(result: WriteResult) -> dict[str, Any]:
    return {
        "commit": result.commit,
        "created": bool(result.created),
        "paths": sorted(result.paths),
        "removed": len(result.removed),
    }


def _landed(x: Landed) -> dict[str, str]:
    """The gate's verdict as the agent reads it in the tool's result."""
    out = {"path": x.path, "text": x.text, "verdict": x.verdict}
    return {**out, "about": x.other} if x.other else out


def _plain(hit: object) -> dict[str, Any]:
    return hit.as_dict() if isinstance(hit, Hit) else {"text": str(hit)}
