"""History of the memory: log of a file, the diff of a commit, and revert as operations."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pygit2
from pygit2.enums import SortMode

import memory.format.lines as textlines
from memory import format as fmt
from memory.errors import EntryConflict
from memory.writes.operations import (
    AddEntry,
    DeleteFile,
    Operation,
    RemoveEntry,
    ReplaceEntry,
    WriteFile,
)

_TRAILER = re.compile(r"^([A-Z][\w-]*): (.+)$")


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    author: str
    email: str
    time: datetime
    summary: str
    message: str
    trailers: dict[str, str] = field(default_factory=dict)
    parents: tuple[str, ...] = ()
    committer: str = ""  # the committer's email: hippo's write path commits as HIPPO

    @property
    def short(self) -> str:
        return self.sha[:8]


@dataclass(frozen=True)
class FileDiff:
    path: str
    old_path: str
    status: str  # added | deleted | modified | renamed
    additions: int
    deletions: int
    patch: str


@dataclass(frozen=True)
class Diff:
    commit: CommitInfo
    files: list[FileDiff]

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)


def info(commit: pygit2.Commit) -> CommitInfo:
    message = commit.message
    trailers: dict[str, str] = {}
    paragraphs = message.strip().split("\n\n")
    if len(paragraphs) > 1:
        for line in textlines.split(paragraphs[-1]):
            m = _TRAILER.match(line.strip())
            if m:
                trailers[m.group(1)] = m.group(2).strip()
    return CommitInfo(
        sha=str(commit.id),
        author=commit.author.name,
        email=commit.author.email,
        time=datetime.fromtimestamp(commit.commit_time, tz=UTC),
        summary=textlines.first(message),
        message=message,
        trailers=trailers,
        parents=tuple(str(p) for p in commit.parent_ids),
        committer=commit.committer.email,
    )


def _blob_id(commit: pygit2.Commit, path: str) -> pygit2.Oid | None:
    try:
        return commit.tree[path].id
    except KeyError:
        return None


def log(repo: pygit2.Repository, head: str, path: str | None, limit: int) -> list[CommitInfo]:
    """Newest first; with `path`, only commits that changed that file."""
    out: list[CommitInfo] = []
    for commit in repo.walk(pygit2.Oid(hex=head), SortMode.TOPOLOGICAL | SortMode.TIME):
        if path is not None:
            mine = _blob_id(commit, path)
            parents = [_blob_id(p, path) for p in commit.parents] or [None]
            if all(mine == theirs for theirs in parents):
                continue
        out.append(info(commit))
        if len(out) >= limit:
            break
    return out


_STATUS = {"A": "added", "D": "deleted", "M": "modified", "R": "renamed"}


def diff(repo: pygit2.Repository, commit: pygit2.Commit) -> Diff:
    if commit.parents:
        d = commit.parents[0].tree.diff_to_tree(commit.tree)
    else:
        d = commit.tree.diff_to_tree(swap=True)
    d.find_similar()
    files = []
    for patch in d:
        if patch is None:
            continue
        delta = patch.delta
        _, adds, dels = patch.line_stats
        files.append(
            FileDiff(
                path=delta.new_file.path,
                old_path=delta.old_file.path,
                status=_STATUS.get(delta.status_char(), "modified"),
                additions=adds,
                deletions=dels,
                patch=patch.text or "",
            )
        )
    return Diff(info(commit), files)


def revert_ops(
    repo: pygit2.Repository, target: pygit2.Commit, tip: pygit2.Commit
) -> list[Operation]:
    """Operations that undo `target` on top of `tip`: a three-way revert, in memory. A markdown
    file where later commits touched neighbouring lines (a note appended after the one being
    undone) is undone entry by entry instead; only a true clash raises EntryConflict."""
    index = repo.revert_commit(target, tip)
    clashing: list[str] = []
    if index.conflicts is not None:
        clashing = sorted({e.path for c in index.conflicts for e in c if e is not None})
        for path in clashing:
            del index.conflicts[path]
    ops: list[Operation] = []
    for path in clashing:
        if not path.endswith(".md"):
            raise EntryConflict(
                f"cannot revert {str(target.id)[:8]}: later commits changed the same lines in "
                f"{path}; edit it by hand instead"
            )
        ops += _undo_entries(repo, target, path)
    new_tree = repo[index.write_tree(repo)].peel(pygit2.Tree)
    for patch in tip.tree.diff_to_tree(new_tree):
        if patch is None or patch.delta.new_file.path in clashing:
            continue
        delta = patch.delta
        if delta.status_char() == "D":
            ops.append(DeleteFile(delta.old_file.path))
        else:
            ops.append(WriteFile(delta.new_file.path, _blob_text(repo, delta.new_file.id)))
    return ops


def _blob_text(repo: pygit2.Repository, oid: pygit2.Oid | None) -> str:
    blob = repo.get(oid) if oid is not None else None
    return bytes(blob.data).decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else ""


def _undo_entries(repo: pygit2.Repository, target: pygit2.Commit, path: str) -> list[Operation]:
    """The entries `target` added to `path` come out, the ones it removed go back, the ones it
    edited get their old text; each by its text, so a later change of the same entry is a
    named conflict in the write path."""
    before = fmt.parse(
        _blob_text(repo, _blob_id(target.parents[0], path)) if target.parents else ""
    )
    after = fmt.parse(_blob_text(repo, _blob_id(target, path)))
    old = {fmt.fact_key(e.text): e for e in before.entries}
    new = {fmt.fact_key(e.text): e for e in after.entries}
    ops: list[Operation] = []
    for key, e in new.items():
        if key not in old:
            ops.append(RemoveEntry(path, e.text))
        elif old[key].text != e.text or old[key].meta != e.meta:
            ops.append(ReplaceEntry(path, e.text, old[key].text, old[key].meta))
    for key, e in old.items():
        if key not in new:
            ops.append(AddEntry(path, e.text, e.meta))
    return ops
