"""Who may write what: the trust model, enforced by the write path for every door.

People's entries change only by people. An agent (the Slack agent, an MCP client) adds tentative
entries and proposes; it never sets `status`, `verified`, `evidence` or `by`, never changes
another writer's `source`, and never writes `preferences/` or `conventions/` (the instructions
agents follow are people's). Whatever door an agent's write came through,
memory/writes/apply.py runs every operation of it through `Rules.rewrite` on the newest tip,
inside the write path:

- an added entry is stamped: `by:` is the writer hippo knows (the MCP token's name, "hippo for
  <user>" in Slack), `status: tentative`, a kind; status, verified and evidence are dropped;
  one that says when it stops being true ("staging is down this afternoon", a date ahead of its
  `added:`) gets `scope: short-lived`, as a person's note does, so the dream's tidy expires it;
- an edit of an agent's tentative entry keeps that entry's status, verified, evidence and `by`
  (and another writer's sources); the only evidence an agent adds is its own origin (`origin`:
  the Slack thread, or `by <token>`), and only once: hippo's record, never the agent's words;
- an edit of anyone else's entry (a person's, or one already active) lands beside it as a
  tentative entry that `contradicts:` it: a proposal, never an overwrite;
- a deletion of such an entry becomes a proposal in `proposals.md`, which a person accepts or
  drops (memory/trust/proposals.py); a whole-file write or delete keeps every line of a
  person's or proposes it (memory/trust/whole_file.py).

Pure: operations and file texts in, operations out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Final

import memory.trust.episodes as episodes
import memory.trust.whole_file as whole_file
from memory import format as fmt
from memory.errors import ProtectedPath
from memory.facts.timebound import SHORT_LIVED, why_time_bound
from memory.trust.standing import is_agents
from memory.writes.operations import (
    AddEntry,
    AddTombstone,
    AppendLine,
    Meta,
    MoveFile,
    Operation,
    RemoveEntry,
    ReplaceEntry,
    WriteFile,
)

PERSON: Final = "person"
AGENT: Final = "agent"
# Written by people only: the instructions agents follow (a channel's preferences are the Slack
# agent's system prompt; conventions are handed to every agent in briefings and annotations), and
# the team's settings for hippo (.hippo/tags.md: the aliases the dream merges everyone's tags by).
PEOPLE_ONLY: Final = ("preferences/", "conventions/", ".hippo/")
PROPOSALS: Final = "proposals.md"
PROPOSALS_TITLE: Final = "Proposals: agents' deletions waiting for a person"
# Keys only hippo writes on an agent's entry (the gate, the dream): an agent's values are dropped.
HIPPO_KEYS: Final = frozenset({"status", "verified", "evidence", "by"})
NOT_ENTRIES: Final = ("archive/",)  # append-only JSON lines, not entries
TENTATIVE: Final = "tentative"
DEFAULT_KIND: Final = "fact"
MAX_QUOTE: Final = 120
LINKS: Final = ("contradicts", "refines")  # an agent's line naming the entry it disputes

Reader = Callable[[str], str | None]


@dataclass(frozen=True)
class Agent:
    """An agent writing, as hippo's own records know it: `name` is stamped as `by:`, `origin`
    is what its confirmation counts as (a Slack thread's permalink; `by <name>` when empty)."""

    name: str
    origin: str = ""

    @property
    def evidence(self) -> str:
        return self.origin or f"by {self.name}"


def people_only(path: str) -> bool:
    return path.startswith(PEOPLE_ONLY)


def check_path(path: str) -> None:
    """ProtectedPath when an agent may not write `path` at all."""
    if people_only(path):
        raise ProtectedPath(
            path,
            f"{path} is written by people only (Slack commands, the console, git): "
            "preferences, conventions and .hippo/ settings are the instructions agents and "
            "dreaming follow",
        )
    if path == PROPOSALS:
        raise ProtectedPath(path, f"{PROPOSALS} is kept by hippo: delete the entry to propose")


def check_paths(op: Operation) -> None:
    """ProtectedPath when an agent's operation touches a path it may not write."""
    for path in [op.src, op.dst] if isinstance(op, MoveFile) else [op.path]:
        check_path(path)
    if isinstance(op, MoveFile):
        raise ProtectedPath(op.src, "agents do not move files: write the new file instead")


def kind_of(value: str | None, default: str = DEFAULT_KIND) -> str:
    """A kind hippo knows (case and spaces forgiven: 'Stack note' → stack-note), else `default`."""
    word = "-".join((value or "").lower().split()).replace("_", "-")
    return word if word in fmt.KINDS else default


def quote(text: str) -> str:
    """An entry's text as a metadata value: one line, cut at MAX_QUOTE characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_QUOTE else flat[: MAX_QUOTE - 1].rstrip() + "…"


def stamp(meta: Meta, by: str, kind: str = DEFAULT_KIND) -> Meta:
    """An agent's new entry: its own keys but hippo's, then `by`, a known kind, tentative."""
    keys = [k.lower() for k, _ in meta]
    values = {k.lower(): v for k, v in meta}
    wanted = {"by": by, "kind": kind_of(values.get("kind"), kind), "status": TENTATIVE}
    if all(keys.count(k) == 1 and values[k] == v for k, v in wanted.items()) and not (
        {"verified", "evidence"} & set(keys)
    ):
        return meta  # stamped already (by the gate at the door): its order is kept
    kept = [(k, v) for k, v in meta if k.lower() not in HIPPO_KEYS | {"kind"}]
    return (*kept, *wanted.items())


LIFETIME_KEYS: Final = frozenset({"scope", "ttl", "lifetime"})  # tidy reads these (expire)


def bounded(text: str, meta: Meta) -> Meta:
    """An agent's entry that says when it stops being true ("today", "until the migration", a
    date ahead: memory/facts/timebound.py) with `scope: short-lived`, as memory/notes.py marks
    a person's note, so the dream's tidy expires it a week after its `added:` (the day the
    entry is read against). One that already says its lifetime, or has no date, is left as is."""
    if any(k.lower() in LIFETIME_KEYS for k, _ in meta):
        return meta
    added = next((v for k, v in meta if k.lower() == "added"), "")
    try:
        day = date.fromisoformat(added.strip())
    except ValueError:
        return meta  # no day to read it against (and nothing tidy could expire)
    return (*meta, ("scope", SHORT_LIVED)) if why_time_bound(text, day) else meta


def seen(entry: fmt.Entry) -> set[str]:
    """Every place an entry already cites or was confirmed from (sources too): a confirmation
    from one of them adds nothing. Wider than `origins`, so it can only hold evidence back."""
    out = set(origins(entry))
    out.update(origin_of(v) for v in entry.get_all("source"))
    return out


def origins(entry: fmt.Entry) -> list[str]:
    """The independent writers hippo recorded for an entry: its `by` and its `evidence` (both
    written by hippo, never by an agent), one Slack thread counted once. Sources an agent cites
    are not among them: a writer naming two URLs is still one writer."""
    out: dict[str, None] = {}
    if entry.get("by"):
        out[f"by {entry.get('by')}"] = None
    for value in entry.get_all("evidence"):
        out[origin_of(fmt.unescape_value(value))] = None
    return list(out)


def origin_of(value: str) -> str:
    """A Slack permalink's thread (`…/p<ts>?thread_ts=<thread>` is a reply in <thread>)."""
    base, _, query = value.strip().partition("?")
    for part in query.split("&"):
        if part.startswith("thread_ts=") and "/archives/" in base:
            channel = base.split("/archives/", 1)[1].split("/", 1)[0]
            return f"slack {channel} {part.split('=', 1)[1]}"
    if "/archives/" in base and "/p" in base:
        channel, _, ts = base.split("/archives/", 1)[1].partition("/p")
        return f"slack {channel} {ts[:10]}.{ts[10:16]}"
    return base


@dataclass
class Rules:
    """One agent's write, operation by operation, on the tree `current` gives (the newest tip
    as the batch has changed it so far)."""

    agent: Agent
    current: Reader
    # (path, entry text) → the entry of that fact as the batch has it now; the write path gives
    # its own index (memory/writes/edited_file.py), kept up to date as operations apply
    find: Callable[[str, str], fmt.Entry | None] | None = None
    _parsed: dict[str, tuple[str, dict[str, fmt.Entry]]] = field(default_factory=dict)

    def rewrite(self, op: Operation) -> list[Operation]:
        """What `op` may become when this agent asks for it (ProtectedPath when nothing)."""
        check_paths(op)
        assert not isinstance(op, MoveFile)
        if isinstance(op, AddTombstone):
            return [op]
        if op.path.startswith(NOT_ENTRIES):
            return [self._episodes(op)]
        if isinstance(op, AppendLine):  # a raw line in a file of entries would skip every rule
            raise ProtectedPath(op.path, "agents append raw lines only to archive/: add entries")
        if isinstance(op, AddEntry):
            return [self._add(op)]
        if isinstance(op, ReplaceEntry):
            return self._replace(op)
        if isinstance(op, RemoveEntry):
            return self._remove(op)
        if isinstance(op, WriteFile):
            return whole_file.write(self, op)
        return whole_file.delete(self, op)

    def _episodes(self, op: Operation) -> Operation:
        """An agent's lines appended to archive/, each stamped with its name (the dream's daily
        note then knows them for an agent's words: memory/trust/episodes.py); any other
        operation there is left for the write path to refuse (append only)."""
        if isinstance(op, AppendLine):
            return AppendLine(op.path, episodes.stamp(op.path, op.line, self.agent.name))
        if isinstance(op, WriteFile):
            before = self.current(op.path) or ""
            if op.content.startswith(before) and before.endswith("\n" if before else ""):
                added = episodes.stamp_lines(op.path, op.content[len(before) :], self.agent.name)
                return WriteFile(op.path, before + added)
        return op

    def _entry(self, path: str, match: str) -> fmt.Entry | None:
        """The entry `match` names in `path` as the batch has it now (one parse per version
        of the file, however many operations name its entries)."""
        if self.find is not None:
            return self.find(path, match)
        text = self.current(path) or ""
        cached = self._parsed.get(path)
        if cached is None or cached[0] is not text:
            index: dict[str, fmt.Entry] = {}
            for e in fmt.parse(text).entries:
                index.setdefault(fmt.fact_key(e.text), e)
            cached = self._parsed[path] = (text, index)
        return cached[1].get(fmt.fact_key(match))

    def _add(self, op: AddEntry) -> AddEntry:
        meta = self.linked(op.path, bounded(op.text, stamp(op.meta, self.agent.name)))
        return AddEntry(op.path, op.text, meta, title=op.title)

    def linked(self, path: str, meta: Meta) -> Meta:
        """`meta` with each `contradicts:`/`refines:` kept only when it names exactly one entry of
        `path` as hippo quotes it (`quote`, as the gate and `beside` write it): a quote an agent
        typed ("Checkout…") never points at a person's entry by a prefix
        (memory/trust/proposals.py settles on the same exact match)."""
        if not any(k.lower() in LINKS for k, _ in meta):
            return meta
        quotes = Counter(quote(e.text) for e in fmt.parse(self.current(path) or "").entries)
        return tuple((k, v) for k, v in meta if k.lower() not in LINKS or quotes[v] == 1)

    def _replace(self, op: ReplaceEntry) -> list[Operation]:
        old = self._entry(op.path, op.match)
        if old is None:
            return [op]  # the write path refuses it with its own message (no such entry)
        if not is_agents(old):
            if fmt.same_fact(old.text, op.text):
                return []  # another writer's metadata is theirs: nothing of it changes
            return [self.beside(op.path, old, op.text, op.meta)]
        meta = self.linked(op.path, bounded(op.text, self.merged(old, op.meta)))
        return [ReplaceEntry(op.path, op.match, op.text, meta)]

    def beside(self, path: str, old: fmt.Entry, text: str, meta: Meta) -> AddEntry:
        """The agent's edit of an entry it may not change: a tentative entry beside it that
        names it (`contradicts:`, unless the gate already said how the two relate)."""
        stamped = self.linked(path, bounded(text, stamp(meta, self.agent.name)))
        if not any(k.lower() in LINKS for k, _ in stamped):
            stamped = (*stamped, ("contradicts", quote(old.text)))
        return AddEntry(path, text, stamped)

    def merged(self, old: fmt.Entry, meta: Meta) -> Meta:
        """An agent's metadata for a tentative entry: hippo's keys stay as they are (plus this
        agent's origin as evidence when it asked to confirm and is new there), and the sources
        of an entry another writer added stay theirs."""
        own = (old.get("by") or "") == self.agent.name
        drop = HIPPO_KEYS | (set() if own else {"source"})
        kept = [(k, v) for k, v in old.meta if k.lower() in drop]
        new = [(k, v) for k, v in meta if k.lower() not in drop]
        out = [*new, *kept]
        confirms = len([1 for k, _ in meta if k.lower() == "evidence"]) > len(
            old.get_all("evidence")
        )
        if confirms and origin_of(self.agent.evidence) not in seen(old):
            out.append(("evidence", self.agent.evidence))
        return old.meta if sorted(out) == sorted(old.meta) else tuple(out)

    def _remove(self, op: RemoveEntry) -> list[Operation]:
        old = self._entry(op.path, op.match)
        if old is None or is_agents(old):
            return [op]
        return [self.proposal(op.path, old)]

    def proposal(self, path: str, old: fmt.Entry, reason: str = "") -> AddEntry:
        """A deletion of an entry the agent may not delete, for a person to accept or drop."""
        meta: list[tuple[str, str]] = [("proposes", "delete"), ("path", path)]
        meta += [("by", self.agent.name)] + ([("reason", reason)] if reason else [])
        return AddEntry(PROPOSALS, old.text, tuple(meta), title=PROPOSALS_TITLE)

    def stamped(self, path: str, text: str, meta: Meta) -> Meta:
        """A new entry's metadata as this agent's (memory/trust/whole_file.py)."""
        return bounded(text, stamp(meta, self.agent.name))
