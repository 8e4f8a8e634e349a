"""Whole trees read as path → bytes, cached per commit, and sorted path lists: what search,
lint and dreaming read. A new commit's tree is derived from the newest cached one plus a tree
diff, so a write to a 10,000-file memory reads the files it changed, not all of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pygit2

from memory.git.mirror import Mirror

KEEP = 4  # trees kept in memory (each holds every file's bytes)
FAR_APART = 500  # changed files beyond which a full walk is as cheap as a diff


class TreeCache:
    def __init__(self, mirror: Mirror) -> None:
        self.mirror = mirror
        self._lock = threading.Lock()  # web threads and the writer share this cache
        self._trees: dict[str, dict[str, bytes]] = {}
        self._paths: tuple[str, list[str]] | None = None
        # The last tree diff made to derive a tree: (from commit, to commit, paths changed);
        # the store's search index is updated from it (see `changes`).
        self._diff: tuple[str, str, list[str]] = ("", "", [])

    def files(self, sha: str) -> dict[str, bytes]:
        """Every file at commit `sha` as path → bytes."""
        with self._lock:
            if sha not in self._trees:
                repo = self.mirror.repo
                target = repo[sha].peel(pygit2.Commit).tree
                files = self._from_cached(sha, target)
                if files is None:
                    files = {}
                    _walk(target, "", files)
                if len(self._trees) > KEEP:
                    self._trees.pop(next(iter(self._trees)))
                self._trees[sha] = files
            return self._trees[sha]

    def changes(self, old: str, new: str) -> list[str]:
        """The paths added, modified or removed from commit `old` to `new` (a tree diff: the
        one made to derive `new`'s tree when it came from `old`'s), however many: each index
        decides for itself when a rebuild is cheaper (the search index on disk applies a diff
        of up to a quarter of the files; a rebuild of 100,000 files cost 19 s of CPU after
        every dream whose diff passed FAR_APART)."""
        known = self._diff
        if known[:2] == (old, new):
            return known[2]
        repo = self.mirror.repo
        a, b = (repo[sha].peel(pygit2.Commit).tree for sha in (old, new))
        return _paths_of(a.diff_to_tree(b))

    def some(self, sha: str, paths: list[str] | None) -> dict[str, bytes]:
        """The files `paths` at commit `sha` that are files there (all of them for None),
        read one by one: what an index on disk needs to follow one commit."""
        if paths is None:
            return self.files(sha)
        tree = self.mirror.repo[sha].peel(pygit2.Commit).tree
        out = {}
        for path in paths:
            try:
                obj = tree[path]
            except KeyError:  # removed at `sha`
                continue
            if isinstance(obj, pygit2.Blob):
                out[path] = bytes(obj.data)
        return out

    def since(self, new: str) -> Callable[[str], list[str] | None]:
        """`changes(old, new)` for any `old`: None when `old` is not a commit here."""

        def changed(old: str) -> list[str] | None:
            try:
                return self.changes(old, new)
            except (KeyError, ValueError, pygit2.GitError):
                return None

        return changed

    def _from_cached(self, sha: str, target: pygit2.Tree) -> dict[str, bytes] | None:
        if not self._trees:
            return None
        repo = self.mirror.repo
        base_sha = next(reversed(self._trees))
        base = repo[base_sha].peel(pygit2.Commit).tree
        diff = base.diff_to_tree(target)
        if len(diff) > FAR_APART:
            return None
        files = dict(self._trees[base_sha])
        self._diff = (base_sha, sha, _paths_of(diff))
        for delta in diff.deltas:
            if delta.status_char() == "D":
                files.pop(delta.old_file.path, None)
                continue
            blob = repo.get(delta.new_file.id)
            if isinstance(blob, pygit2.Blob):
                files[delta.new_file.path] = bytes(blob.data)
            else:  # a submodule or similar: not a file of the memory
                files.pop(delta.new_file.path, None)
        return files

    def paths(self, sha: str) -> list[str]:
        """Paths of every file at commit `sha`, sorted (no file contents read)."""
        known = self._paths
        if known is None or known[0] != sha:
            found: list[str] = []
            _walk_paths(self.mirror.repo[sha].peel(pygit2.Commit).tree, "", found)
            known = self._paths = (sha, sorted(found))
        return known[1]


def _paths_of(diff: pygit2.Diff) -> list[str]:
    return [p for d in diff.deltas for p in (d.old_file.path, d.new_file.path)]


def _walk_paths(tree: pygit2.Tree, prefix: str, out: list[str]) -> None:
    for obj in tree:
        path = prefix + (obj.name or "")
        if isinstance(obj, pygit2.Tree):
            _walk_paths(obj, path + "/", out)
        else:
            out.append(path)


def _walk(tree: pygit2.Tree, prefix: str, out: dict[str, bytes]) -> None:
    for obj in tree:
        path = prefix + (obj.name or "")
        if isinstance(obj, pygit2.Tree):
            _walk(obj, path + "/", out)
        elif isinstance(obj, pygit2.Blob):
            out[path] = bytes(obj.data)


def texts(repo: pygit2.Repository, sha: str) -> dict[str, str]:
    """Every file at commit `sha` as path → text (undecodable bytes replaced), read for one
    caller and not cached: a dream holds the text for the night, and a cached copy of every
    file's bytes beside it was a second copy of the memory (100 MB at 100,000 files)."""
    out: dict[str, str] = {}
    stack = [("", repo[sha].peel(pygit2.Commit).tree)]
    while stack:
        prefix, tree = stack.pop()
        for obj in tree:
            path = prefix + (obj.name or "")
            if isinstance(obj, pygit2.Tree):
                stack.append((path + "/", obj))
            elif isinstance(obj, pygit2.Blob):
                out[path] = obj.data.decode("utf-8", "replace")
    return dict(sorted(out.items()))


def _commit_tree(repo: pygit2.Repository, sha: str) -> pygit2.Tree | None:
    try:
        return repo.revparse_single(sha).peel(pygit2.Commit).tree
    except (KeyError, ValueError, pygit2.GitError):
        return None


def differing(repo: pygit2.Repository, old: str, new: str) -> set[str] | None:
    """The files whose bytes differ between commits `old` and `new` (added, removed or changed;
    a change of mode alone is not one), from a tree diff: no file is read, where comparing the
    two whole trees held two copies of the memory (None: `old` is not a commit here)."""
    before, after = _commit_tree(repo, old), _commit_tree(repo, new)
    if before is None or after is None:
        return None
    was: dict[str, pygit2.Oid] = {}
    now: dict[str, pygit2.Oid] = {}
    for d in before.diff_to_tree(after).deltas:
        kind = d.status_char()
        # a submodule (a commit, not a file) is no file; same bytes under another mode: no change
        if kind != "A" and d.old_file.mode != pygit2.GIT_FILEMODE_COMMIT:
            was[d.old_file.path] = d.old_file.id
        if kind != "D" and d.new_file.mode != pygit2.GIT_FILEMODE_COMMIT:
            now[d.new_file.path] = d.new_file.id
    return {p for p in was.keys() | now.keys() if was.get(p) != now.get(p)}


def file_at(repo: pygit2.Repository, sha: str) -> Callable[[str], bool] | None:
    """Whether a path is a file at commit `sha`, looked up in its tree path by path: nothing
    but the tree's handle is held (None: `sha` is not a commit here)."""
    tree = _commit_tree(repo, sha)
    if tree is None:
        return None

    def is_file(path: str) -> bool:
        try:
            return isinstance(tree[path], pygit2.Blob)
        except (KeyError, ValueError):
            return False

    return is_file
