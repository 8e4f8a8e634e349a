"""The cold archive's git side: a ref of its own beside the memory branch (decision 18 in
docs/MEMORY.md), holding one gzip file per rolled-up month and an index.

`refs/hippo-cold/archive` is outside both `refs/heads/*` (what `git clone` fetches) and
`refs/hippo/*` (what hippo's cache fetches, memory/git/transport.py FETCH_SPECS), so neither a
clone of the memory nor hippo's first fetch carries the cold months: they are fetched only when
asked for (a search of the archive on purpose, a roll-up). Its tree:

    index.json               {"formatVersion": 1, "months": {"2026-01": {...}, ...},
                              "forgotten": {"2025-11": {"records": 812}, ...}}
    months/2026-01.jsonl.gz  the month's episodes, one JSON line each, day files in order
    forgotten/2025-11.md     tombstones forgotten.md shed, by the month of their `removed:` date
                             (memory/archive/forgotten.py, decision 19)

Only the roll-ups (memory/archive/rollup.py, memory/archive/forgotten.py) commit here; no write
door names this ref, so agents (and every other writer of the memory) cannot write the cold
store.
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pygit2

from memory.errors import RemoteError
from memory.git.fetch import fetch

if TYPE_CHECKING:
    from memory.git.batch import Author
    from memory.git.mirror import Mirror
    from memory.git.transport import Transport
    from memory.git.trees import TreeCache


class Backing(Protocol):
    """What the cold archive needs of the Store (memory/git/store.py), which imports the
    archive's search: a protocol here keeps the imports one-way."""

    cache: Path
    mirror: Mirror
    transport: Transport
    trees: TreeCache

    @property
    def max_age(self) -> float: ...

    def files(self, prefix: str = "", commit: str | None = None) -> list[str]: ...


COLD_REF = "refs/hippo-cold/archive"
COLD_SPECS = [f"+{COLD_REF}:{COLD_REF}"]
INDEX = "index.json"
MONTHS = "months"
FORGOTTEN = "forgotten"  # forgotten/YYYY-MM.md: tombstones (memory/archive/forgotten.py)
FORMAT_VERSION = 1


def month_path(month: str) -> str:
    return f"{MONTHS}/{month}.jsonl.gz"


class ColdStore:
    """The cold archive of one Store: fetched on purpose, read and extended in its cache."""

    def __init__(self, store: Backing) -> None:
        self.store = store
        self.fetched_at = -1e9

    @property
    def repo(self) -> pygit2.Repository:
        return self.store.mirror.repo

    def fetch(self, *, max_age: float = 0.0) -> str | None:
        """Fetch the cold ref (unless fetched within `max_age` seconds); its tip, None when
        the remote has none yet. A remote without the ref is not an error."""
        if time.monotonic() - self.fetched_at >= max_age:
            try:
                fetch(self.repo, self.store.transport, COLD_SPECS)
            except RemoteError:
                if self.store.transport.gone():
                    raise
                # An unreachable server leaves what was fetched before: stale beats failing.
            self.fetched_at = time.monotonic()
        return self.tip()

    def tip(self) -> str | None:
        ref = self.repo.references.get(COLD_REF)
        return str(ref.target) if ref is not None else None

    def index(self, commit: str | None) -> dict[str, Any]:
        """The index at `commit` (an empty one for None or a tree without it)."""
        raw = self._blob(commit, INDEX)
        if raw is None:
            return {"formatVersion": FORMAT_VERSION, "months": {}}
        data = json.loads(raw)
        return data if isinstance(data, dict) else {"formatVersion": FORMAT_VERSION, "months": {}}

    def months(self, commit: str | None) -> dict[str, str]:
        """Month → the blob id of its gzip file, at `commit`."""
        return self.folder(commit, MONTHS, ".jsonl.gz")

    def folder(self, commit: str | None, name: str, suffix: str) -> dict[str, str]:
        """File name without `suffix` → blob id, for the files of folder `name` at `commit`."""
        if commit is None:
            return {}
        tree = self.repo[commit].peel(pygit2.Commit).tree
        if name not in tree:
            return {}
        folder = self.repo[tree[name].id]
        assert isinstance(folder, pygit2.Tree)
        return {
            (e.name or "").removesuffix(suffix): str(e.id)
            for e in folder
            if (e.name or "").endswith(suffix)
        }

    def text(self, blob: str) -> str:
        return bytes(self.repo[blob].read_raw()).decode("utf-8")

    def lines(self, blob: str) -> list[str]:
        """The episodes of one month file (its blob id), without line endings."""
        data = gzip.decompress(bytes(self.repo[blob].read_raw()))
        return [ln for ln in data.decode("utf-8").split("\n") if ln.strip()]

    def month_lines(self, commit: str | None, month: str) -> list[str]:
        blob = self.months(commit).get(month)
        return self.lines(blob) if blob is not None else []

    def _blob(self, commit: str | None, path: str) -> bytes | None:
        if commit is None:
            return None
        tree = self.repo[commit].peel(pygit2.Commit).tree
        try:
            obj = tree[path]
        except KeyError:
            return None
        return bytes(obj.read_raw()) if isinstance(obj, pygit2.Blob) else None

    def commit(
        self,
        parent: str | None,
        month: str,
        episodes: list[str],
        index: dict[str, Any],
        *,
        author: Author,
        message: str,
    ) -> str:
        """A new cold commit on `parent`: the month's file holding `episodes`, and `index`."""
        data = ("\n".join(episodes) + "\n").encode("utf-8")
        packed = gzip.compress(data, compresslevel=6, mtime=0)  # same episodes, same bytes
        return self.put(parent, month_path(month), packed, index, author=author, message=message)

    def put(
        self,
        parent: str | None,
        path: str,
        data: bytes,
        index: dict[str, Any],
        *,
        author: Author,
        message: str,
    ) -> str:
        """A new cold commit on `parent` with `path` (`<folder>/<name>`) holding `data`, and
        `index`; every other file as `parent` has it."""
        repo = self.repo
        name, file = path.split("/", 1)
        base = repo[parent].peel(pygit2.Commit).tree if parent else None
        folder = base[name] if base is not None and name in base else None
        files = repo.TreeBuilder(folder.id) if folder is not None else repo.TreeBuilder()
        files.insert(file, repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB)
        root = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
        root.insert(name, files.write(), pygit2.GIT_FILEMODE_TREE)
        text = json.dumps(index, indent=1, sort_keys=True) + "\n"
        root.insert(INDEX, repo.create_blob(text.encode()), pygit2.GIT_FILEMODE_BLOB)
        sig = pygit2.Signature(author.name, author.email)
        parents = [pygit2.Oid(hex=parent)] if parent else []
        oid = repo.create_commit(None, sig, sig, message, root.write(), parents)
        return str(oid)

    def advance(self, new: str, old: str | None) -> bool:
        """Move the remote's cold ref from `old` to `new` (compare-and-swap), and ours."""
        oid = pygit2.Oid(hex=new)
        if not self.store.transport.advance(self.repo, COLD_REF, oid, old):
            return False
        self.repo.references.create(COLD_REF, oid, force=True)
        return True
