"""How an agent pull request ended, from plain data: classify it, diff it, sign the human edit.

Pure: the GitHub client (integrations/github_pulls.py) turns API answers into these dataclasses;
this module never fetches anything. `memory.lessons.planner` builds on it to write conventions.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from posixpath import dirname, splitext
from typing import Final, Literal
from urllib.parse import quote, unquote

import memory.format.lines as textlines

# How a pull request of the agent's ended (`classify`); lessons come from the two that people
# shaped (memory/lessons/planner.py:LEARNABLE).
PullOutcome = Literal[
    "merged_untouched", "merged_after_changes", "closed_by_person", "closed_by_system"
]
MERGED_UNTOUCHED: Final = "merged_untouched"
MERGED_AFTER_CHANGES: Final = "merged_after_changes"
CLOSED_BY_PERSON: Final = "closed_by_person"
CLOSED_BY_SYSTEM: Final = "closed_by_system"
OUTCOMES: tuple[PullOutcome, ...] = (
    MERGED_UNTOUCHED,
    MERGED_AFTER_CHANGES,
    CLOSED_BY_PERSON,
    CLOSED_BY_SYSTEM,
)

# (sha, path) → file text at that commit, or None when the file is absent there.
ContentReader = Callable[[str, str], str | None]


@dataclass(frozen=True)
class Commit:
    """One commit of the pull request's branch, with the GitHub logins GitHub matched to it."""

    sha: str
    author: str  # '' when GitHub could not match the author email to an account
    committer: str
    message: str = ""


@dataclass(frozen=True)
class Hunk:
    header: str  # '@@ -a,b +c,d @@'
    removed: tuple[str, ...]
    added: tuple[str, ...]


@dataclass(frozen=True)
class FileDiff:
    """What people changed in one file between the agent's last commit and what landed."""

    path: str
    hunks: tuple[Hunk, ...]
    status: str = "modified"  # added | removed | modified

    @property
    def additions(self) -> int:
        return sum(len(h.added) for h in self.hunks)

    @property
    def deletions(self) -> int:
        return sum(len(h.removed) for h in self.hunks)


@dataclass(frozen=True)
class Comment:
    author: str
    body: str
    kind: str  # review | review_comment | issue_comment
    path: str = ""
    state: str = ""  # a review's state: APPROVED, CHANGES_REQUESTED, COMMENTED


@dataclass(frozen=True)
class PullFacts:
    """Everything the outcome and the lesson depend on; built by the GitHub integration."""

    repo: str  # owner/name
    number: int
    url: str  # the pull request's html_url: the lesson's source
    title: str
    opener: str
    merged: bool
    closed_by: str  # who merged or closed it ('' when unknown)
    closed_by_bot: bool
    commits: tuple[Commit, ...]
    files: tuple[str, ...]  # every path the pull request touched
    human_diff: tuple[FileDiff, ...]
    comments: tuple[Comment, ...] = ()
    agent_sha: str = ""  # the agent's last commit
    landed_sha: str = ""  # merge_commit_sha when merged, else the head at close
    closed_at: str = ""  # ISO timestamp
    # Lower-cased logins among this pull request's people that hold write access to the
    # repository (GitHub's collaborator permission: admin, maintain or write). Only they teach:
    # empty (nobody checked) teaches nothing.
    writers: frozenset[str] = frozenset()

    def is_writer(self, login: str) -> bool:
        return bool(login) and login.lower() in self.writers


def is_bot(login: str) -> bool:
    return login.endswith("[bot]")


def is_agent_pr(
    opener: str, labels: Iterable[str], agent_logins: Iterable[str], agent_label: str
) -> bool:
    """Opened by one of the agent logins, or carrying the agent label (case-insensitive)."""
    agents = {a.lower() for a in agent_logins}
    if opener.lower() in agents:
        return True
    return bool(agent_label) and agent_label.lower() in {lb.lower() for lb in labels}


def is_agent_commit(commit: Commit, agent_logins: Iterable[str]) -> bool:
    """The author decides (a person rebasing keeps the agent as author); the committer only
    when GitHub matched no author account."""
    agents = {a.lower() for a in agent_logins}
    who = commit.author or commit.committer
    return who.lower() in agents


def agent_identities(
    opener: str, commits: Iterable[Commit], agent_logins: Iterable[str]
) -> tuple[str, ...]:
    """Whose commits are the agent's on this pull request: the configured logins, plus the opener
    when none of the branch's commits is theirs. A pull request marked only by the label was
    opened and committed under another account (a machine user, a person's token); without this
    no commit would be the agent's and every people's edit would read as untouched."""
    logins = tuple(agent_logins)
    if opener and not any(is_agent_commit(c, logins) for c in commits):
        return (*logins, opener)
    return logins


def agent_tip(
    commits: Sequence[Commit], agent_logins: Iterable[str], recorded: Sequence[str] = ()
) -> str:
    """The agent's last commit: the newest head SHA the agent pushed (recorded from webhooks,
    which survives force-pushes), else the last agent commit in the branch's commit list."""
    if recorded:
        return recorded[-1]
    logins = list(agent_logins)
    for c in reversed(commits):
        if is_agent_commit(c, logins):
            return c.sha
    return ""


def human_commits(facts: PullFacts, agent_logins: Iterable[str]) -> list[Commit]:
    agents = agent_identities(facts.opener, facts.commits, agent_logins)
    return [c for c in facts.commits if not is_agent_commit(c, agents)]


def classify(facts: PullFacts, agent_logins: Iterable[str]) -> PullOutcome:
    """One of OUTCOMES.

    Merged: changed when the landed files differ from the agent's last commit and people had a
    hand in it (their commits on the branch, or the agent's tip rewritten away by a force-push);
    a difference with neither comes from the base branch moving, not from a correction.
    Closed: by a person unless a bot, the agent itself or nobody known closed it.
    """
    logins = list(agent_logins)
    if facts.merged:
        changed = any(d.hunks for d in facts.human_diff)
        rewritten = bool(facts.agent_sha) and facts.agent_sha not in {c.sha for c in facts.commits}
        if changed and (human_commits(facts, logins) or rewritten):
            return MERGED_AFTER_CHANGES
        return MERGED_UNTOUCHED
    closer = facts.closed_by
    agents = {a.lower() for a in logins}
    if not closer or facts.closed_by_bot or is_bot(closer) or closer.lower() in agents:
        return CLOSED_BY_SYSTEM
    return CLOSED_BY_PERSON


def diff_texts(path: str, old: str | None, new: str | None, context: int = 2) -> FileDiff:
    """A file-level diff with hunks: `old` at the agent's tip, `new` in what landed."""
    status = "added" if old is None else "removed" if new is None else "modified"
    a = textlines.split(old or "")
    b = textlines.split(new or "")
    hunks: list[Hunk] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        removed: list[str] = []
        added: list[str] = []
        for tag, ai, aj, bi, bj in group:
            if tag in ("replace", "delete"):
                removed.extend(a[ai:aj])
            if tag in ("replace", "insert"):
                added.extend(b[bi:bj])
        header = f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@"
        hunks.append(Hunk(header, tuple(removed), tuple(added)))
    return FileDiff(path, tuple(hunks), status)


def diff_files(
    read: ContentReader, old_sha: str, new_sha: str, paths: Iterable[str], limit: int = 100
) -> tuple[FileDiff, ...]:
    """Tree-to-tree diff restricted to `paths` (what the pull request touched), so merge,
    squash and rebase merges all compare the agent's tip with exactly what landed."""
    out: list[FileDiff] = []
    for path in sorted(set(paths))[:limit]:
        old, new = read(old_sha, path), read(new_sha, path)
        if old == new:
            continue
        d = diff_texts(path, old, new)
        if d.hunks:
            out.append(d)
    return tuple(out)


# --- the signature of a human edit: what makes two corrections "the same" -------------------

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
# words that say nothing about a convention, in code or in comments
_STOP = frozenset(
    re.findall(
        r"\w+",
        """
        the and for with this that from not are was were you your but all any can has have
        had its our out use into def return self none true false import class pass else elif
        then when what which will would should could just also only than them they there here
        let var const function end new null nil int str bool string please thanks thank pull
        request agent merge merged close closed closing commit change changes changed
        """,
    )
)
TOP_TOKENS = 6
SAME_THRESHOLD = 0.5


def file_kind(path: str) -> str:
    """Directory plus extension pattern: 'tests/unit/test_api.py' → 'tests/unit/*.py'."""
    folder, name = dirname(path), path.rsplit("/", 1)[-1]
    ext = splitext(name)[1] or name  # 'Makefile' keeps its name
    pattern = f"*{ext}" if ext.startswith(".") else ext
    return f"{folder}/{pattern}" if folder else pattern


def _words(lines: Iterable[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for line in lines:
        out.update(w.lower() for w in _WORD.findall(line) if w.lower() not in _STOP)
    return out


def _top(counts: Counter[str]) -> frozenset[str]:
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return frozenset(w for w, _ in ranked[:TOP_TOKENS])


@dataclass(frozen=True)
class Signature:
    """Kind of files, and kind of edit: words people added (not removed) and removed (not added).

    Two edits are the same when they touch a shared kind of file and their signed words overlap
    by at least SAME_THRESHOLD (Jaccard). Closing comments sign with their words as `added`.
    """

    kind: str  # 'edit' (merged after changes) or 'closed' (closed by a person)
    scope: frozenset[str]
    added: frozenset[str]
    removed: frozenset[str]

    @property
    def tokens(self) -> frozenset[str]:
        return frozenset({"+" + w for w in self.added} | {"-" + w for w in self.removed})

    def render(self) -> str:
        words = sorted(self.tokens, key=lambda t: (t[1:], t[0]))
        scope = ",".join(quote(kind, safe="/*.-_") for kind in sorted(self.scope))
        return " ".join([self.kind, scope, *words])

    @classmethod
    def parse(cls, text: str) -> Signature | None:
        parts = text.split()
        if len(parts) < 2 or parts[0] not in ("edit", "closed"):
            return None
        added = frozenset(p[1:] for p in parts[2:] if p.startswith("+"))
        removed = frozenset(p[1:] for p in parts[2:] if p.startswith("-"))
        scope = frozenset(unquote(kind) for kind in parts[1].split(","))
        return cls(parts[0], scope, added, removed)

    def inverted(self) -> Signature:
        return Signature(self.kind, self.scope, self.removed, self.added)

    def same(self, other: Signature) -> bool:
        if self.kind != other.kind or not (self.scope & other.scope):
            return False
        a, b = self.tokens, other.tokens
        if not a and not b:
            # two pure re-orderings of one kind of file agree; two closes without a word do not
            return self.kind == "edit"
        return len(a & b) / len(a | b) >= SAME_THRESHOLD

    def contradicts(self, later: Signature) -> bool:
        """`later` puts back what this edit removed and removes what it added."""
        return self.kind == "edit" and bool(self.tokens) and self.inverted().same(later)


def signature(facts: PullFacts, outcome: str) -> Signature:
    if outcome == MERGED_AFTER_CHANGES:
        scope = frozenset(file_kind(d.path) for d in facts.human_diff)
        plus = _words(line for d in facts.human_diff for h in d.hunks for line in h.added)
        minus = _words(line for d in facts.human_diff for h in d.hunks for line in h.removed)
        return Signature("edit", scope, _top(plus - minus), _top(minus - plus))
    scope = frozenset(file_kind(p) for p in facts.files) or frozenset({"*"})
    said = closing_words(facts)
    return Signature("closed", scope, _top(_words([said])), frozenset())


def teaching_comments(facts: PullFacts) -> list[Comment]:
    """Comments by people with write access: a stranger's words never become a lesson, nor
    what Claude reads to write one."""
    return [c for c in facts.comments if not is_bot(c.author) and facts.is_writer(c.author)]


def taught_by_writers(facts: PullFacts, outcome: str, agent_logins: Iterable[str]) -> bool:
    """Whether the people who shaped this outcome all hold write access: the closer of a closed
    pull request; for an edited merge, whoever merged it and the author of every people's commit
    on the branch (the diff is tree-to-tree, so one stranger's commit taints all of it)."""
    if not facts.is_writer(facts.closed_by):
        return False
    if outcome != MERGED_AFTER_CHANGES:
        return True
    return all(facts.is_writer(c.author or c.committer) for c in human_commits(facts, agent_logins))


def closing_words(facts: PullFacts) -> str:
    """The reason people with write access gave: the closer's last comment, else change
    requests, else any writer's last comment; '' when none of them said anything."""
    people = [c for c in teaching_comments(facts) if c.body.strip()]
    by_closer = [c for c in people if c.author == facts.closed_by and c.kind == "issue_comment"]
    requests = [c for c in people if c.state == "CHANGES_REQUESTED"]
    for group in (by_closer, requests, people):
        if group:
            return group[-1].body.strip()
    return ""
