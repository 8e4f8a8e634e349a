"""Trees and files of a repository on this host read from its loose objects, without git: what
the search index needs to follow the few commits since it was last brought up (on_disk.py).
hippo's own pushes to a local remote leave loose objects (memory/git/local.py), and so does a
git push of fewer than 100 objects. Anything else (a packed object, a submodule, a name that is
not UTF-8, too many changes) raises `Unreadable`, and the caller asks git through the Store.
"""

from __future__ import annotations

import zlib
from pathlib import Path

TREE = b"40000"
SUBMODULE = b"160000"
FAR_APART = 500  # changed files beyond which the Store (one fetch, a tree diff) is the cheaper


class Unreadable(Exception):
    """Not to be read this way: ask git. Its message says what was met."""


Entries = dict[str, tuple[bytes, str]]  # name → (mode, sha)


class Loose:
    """The loose objects of the repository at `git_dir`."""

    def __init__(self, git_dir: Path) -> None:
        self.objects = git_dir / "objects"

    def read(self, sha: str, kind: bytes) -> bytes:
        """The body of object `sha`, which must be a `kind` ("commit", "tree", "blob")."""
        try:
            raw = zlib.decompress((self.objects / sha[:2] / sha[2:]).read_bytes())
        except FileNotFoundError as exc:
            raise Unreadable(f"{kind.decode()} {sha} is not loose (packed, or absent)") from exc
        except (OSError, zlib.error) as exc:
            raise Unreadable(f"{kind.decode()} {sha}: {exc}") from exc
        header, _, body = raw.partition(b"\0")
        found, _, size = header.partition(b" ")
        if found != kind or size != str(len(body)).encode():
            raise Unreadable(f"{sha} is a {found.decode(errors='replace')}, not a {kind.decode()}")
        return body

    def tree_of(self, commit: str) -> str:
        first = self.read(commit, b"commit").split(b"\n", 1)[0]
        if not first.startswith(b"tree "):
            raise Unreadable(f"commit {commit} names no tree first")
        return first[5:].decode()

    def entries(self, tree: str) -> Entries:
        body, out, at = self.read(tree, b"tree"), {}, 0
        while at < len(body):
            space = body.index(b" ", at)
            nul = body.index(b"\0", space)
            mode, name = body[at:space], body[space + 1 : nul]
            if mode == SUBMODULE:
                raise Unreadable(f"tree {tree} holds a submodule")
            try:
                out[name.decode()] = (mode, body[nul + 1 : nul + 21].hex())
            except UnicodeDecodeError as exc:
                raise Unreadable(f"tree {tree} holds a name that is not UTF-8") from exc
            at = nul + 21
        return out

    def changes(self, old: str, new: str) -> list[str]:
        """The files added, changed or removed from commit `old` to commit `new`."""
        out: list[str] = []
        self._diff(self.tree_of(old), self.tree_of(new), "", out)
        if len(out) > FAR_APART:
            raise Unreadable(f"more than {FAR_APART} files changed")
        return out

    def _diff(self, a: str | None, b: str | None, prefix: str, out: list[str]) -> None:
        if a == b:
            return
        old = self.entries(a) if a else {}
        new = self.entries(b) if b else {}
        for name in sorted(old.keys() | new.keys()):
            (ma, sa), (mb, sb) = old.get(name, (b"", "")), new.get(name, (b"", ""))
            if (ma, sa) == (mb, sb):
                continue
            path = prefix + name
            if TREE in (ma, mb):  # what was or is a folder: its files
                self._diff(sa if ma == TREE else None, sb if mb == TREE else None, path + "/", out)
            if (ma and ma != TREE) or (mb and mb != TREE):
                out.append(path)
            if len(out) > FAR_APART:
                raise Unreadable(f"more than {FAR_APART} files changed")

    def files(self, commit: str, paths: list[str] | None) -> dict[str, bytes]:
        """The files `paths` at `commit` that are files there, as path → bytes (None, every
        file: more than an index following a few commits reads, so the Store's)."""
        if paths is None:
            raise Unreadable("every file asked for: the index is made again from the tree")
        root, out = self.tree_of(commit), {}
        for path in paths:
            *folders, name = path.split("/")
            tree: str | None = root
            for folder in folders:
                entry = self.entries(tree).get(folder) if tree else None
                tree = entry[1] if entry is not None and entry[0] == TREE else None
            entry = self.entries(tree).get(name) if tree else None
            if entry is not None and entry[0] != TREE:
                out[path] = self.read(entry[1], b"blob")
        return out
