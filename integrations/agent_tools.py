"""The agent's tools over one thread's working copy of the memory.

Every path is checked twice: as a repository path (no '..', no absolute paths, no .git) and, once
resolved, as a place inside the working copy. A refused or failed call raises ToolError, which the
agent loop returns to the model as a tool_result with is_error, so the task never crashes on it.
`archive/` (episodes, never put in a prompt) is invisible here; `.dream/` is read-only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory import format as fmt
from memory import secrets
from memory.errors import MemoryStoreError
from memory.facts import tombstones
from memory.search import Hit as SearchHit
from memory.search import SearchIndex
from memory.writes import check_path

log = logging.getLogger("hippo.agent")

MAX_READ = 20_000
HIDDEN = ("archive/", ".git/")
# Preferences are how people steer hippo (Slack instructions, the console): the agent reading
# them is fine, the agent rewriting its own instructions is not (memory.trust.sandbox refuses it
# too).
READ_ONLY = (".dream/", "archive/", "preferences/")


class ToolError(Exception):
    """A tool call the agent got wrong or that failed; the message goes back to the model."""


@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    text: str


TOOLS: list[dict[str, Any]] = [
    {
        "name": "search",
        "description": "Search the memory's files for words; returns matching lines as "
        "path:line: text, best first.",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "words to look for"},
                "limit": {"type": "integer", "description": "at most this many hits (20)"},
            },
            "required": ["query"],
        },
    },
    {
        "name": "read_file",
        "description": "Read one file of the memory, e.g. services/checkout-api.md.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
    {
        "name": "list_folder",
        "description": "List a folder of the memory ('' for the top); folders end with '/'.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
    {
        "name": "changes_since",
        "description": "What changed in the memory since your snapshot (like git log --since): "
        "commits with author, summary and files. Optional `since`: an ISO date or a commit.",
        "input_schema": {"type": "object", "properties": {"since": {"type": "string"}}},
    },
    {
        "name": "write_file",
        "description": "Create or overwrite a file with the full new content. One entry per "
        "line: '- fact [source: …; kind: pattern|pitfall|win|stack-note|fact]'. Your edits are "
        "saved after your answer, attributed to this thread; what you add starts tentative "
        "until a second source confirms it, and a line that contradicts an active entry is "
        "added beside it, never over it.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
    {
        "name": "replace_in_file",
        "description": "Replace exactly one occurrence of `old` with `new` in a file (use it to "
        "correct, add or remove a single entry line).",
        "input_schema": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old": {"type": "string"},
                "new": {"type": "string"},
            },
            "required": ["path", "old", "new"],
        },
    },
    {
        "name": "delete_file",
        "description": "Delete a file from the memory.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
]


WRITES = frozenset({"write_file", "replace_in_file", "delete_file"})


@dataclass
class Toolbox:
    """The tools bound to one working copy; records what was read, found and touched."""

    root: Path
    changes: Callable[[str | None], str] = lambda since: "(history is not available)"
    read: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)

    def call(self, name: str, args: dict[str, Any]) -> str:
        """Run tool `name`; ToolError for anything the model should hear about."""
        handler = getattr(self, f"_tool_{name}", None) if name in self.names else None
        if handler is None:
            raise ToolError(f"unknown tool {name!r}; use one of: {', '.join(self.names)}")
        try:
            return str(handler(**args))
        except ToolError:
            raise
        except (TypeError, ValueError) as exc:
            raise ToolError(f"bad arguments for {name}: {exc}") from exc
        except MemoryStoreError as exc:
            raise ToolError(str(exc)) from exc
        except OSError as exc:
            raise ToolError(f"{name} failed: {exc.strerror or exc}") from exc
        except Exception as exc:  # a tool must never crash the turn: the model hears of it
            log.exception("agent tool %s failed", name)
            raise ToolError(f"{name} failed: {type(exc).__name__}: {exc}") from exc

    @property
    def names(self) -> list[str]:
        return [t["name"] for t in TOOLS]

    @property
    def specs(self) -> list[dict[str, Any]]:
        """The tools offered to the model (a subclass may offer more)."""
        return TOOLS

    # --- paths -----------------------------------------------------------------------------

    def _path(self, path: str, *, folder: bool = False) -> Path:
        path = str(path).strip()
        if folder and path in ("", ".", "/"):
            return self.root.resolve()
        check_path(path.rstrip("/") if folder else path)
        root = self.root.resolve()
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            raise ToolError(f"{path!r} is outside the memory; use a path inside it")
        rel = target.relative_to(root).as_posix() + ("/" if folder else "")
        if rel.startswith(HIDDEN):
            raise ToolError(f"{path!r} is not available to the agent")
        return target

    def _rel(self, target: Path) -> str:
        return target.relative_to(self.root.resolve()).as_posix()

    def _writable(self, path: str) -> Path:
        target = self._path(path)
        if self._rel(target).startswith(READ_ONLY):
            raise ToolError(f"{path!r} is read-only for the agent")
        return target

    def _files(self) -> list[tuple[str, Path]]:
        root = self.root.resolve()
        out = []
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if p.is_file() and not p.is_symlink() and not rel.startswith(HIDDEN):
                out.append((rel, p))
        return out

    # --- reading ---------------------------------------------------------------------------

    def _tool_search(self, query: str, limit: int = 20) -> str:
        limit = max(1, min(int(limit), 50))
        files = {rel: p.read_bytes() for rel, p in self._files()}
        # The house search ranks every word of a question (memory/search/ranked.py).
        found = SearchIndex.build(files).search(str(query), limit)
        hits = [Hit(h.path, h.line, _line(h)) for h in found]
        self.hits.extend(h for h in hits if h not in self.hits)
        if not hits:
            return f"no lines match {query!r}"
        return "\n".join(f"{h.path}:{h.line}: {h.text}" for h in hits)

    def _tool_read_file(self, path: str) -> str:
        target = self._path(path)
        if not target.is_file():
            raise ToolError(f"{path} does not exist; list_folder or search to find the file")
        rel = self._rel(target)
        if rel not in self.read:
            self.read.append(rel)
        text = _read(target)
        if len(text) > MAX_READ:
            return text[:MAX_READ] + f"\n… (cut at {MAX_READ} characters of {len(text)})"
        return text or "(empty file)"

    def _tool_list_folder(self, path: str = "") -> str:
        target = self._path(path, folder=True)
        if not target.is_dir():
            raise ToolError(f"{path} is not a folder")
        names = []
        for child in sorted(target.iterdir()):
            rel = self._rel(child) + ("/" if child.is_dir() else "")
            if not rel.startswith(HIDDEN):
                names.append(child.name + ("/" if child.is_dir() else ""))
        return "\n".join(names) or "(empty folder)"

    def _tool_changes_since(self, since: str | None = None) -> str:
        return self.changes(since or None)

    # --- editing ---------------------------------------------------------------------------

    def _tool_write_file(self, path: str, content: str) -> str:
        target = self._writable(path)
        if target.is_dir():
            raise ToolError(f"{path} is a folder")
        old = _read(target) if target.exists() else ""
        self._vet(self._rel(target), old, str(content))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(str(content).encode())
        self._touch(target)
        return f"wrote {self._rel(target)} ({len(str(content))} characters)"

    def _tool_replace_in_file(self, path: str, old: str, new: str) -> str:
        target = self._writable(path)
        if not target.is_file():
            raise ToolError(f"{path} does not exist; write_file creates a file")
        text = _read(target)
        count = text.count(str(old)) if old else 0
        if count != 1:
            raise ToolError(f"`old` occurs {count} times in {path}; it must occur exactly once")
        updated = text.replace(str(old), str(new), 1)
        self._vet(self._rel(target), text, updated)
        target.write_bytes(updated.encode())
        self._touch(target)
        return f"replaced 1 occurrence in {self._rel(target)}"

    def _tool_delete_file(self, path: str) -> str:
        target = self._writable(path)
        if not target.is_file():
            raise ToolError(f"{path} does not exist")
        target.unlink()
        self._touch(target)
        return f"deleted {self._rel(target)}"

    def _touch(self, target: Path) -> None:
        rel = self._rel(target)
        if rel not in self.touched:
            self.touched.append(rel)

    def _vet(self, rel: str, old: str, new: str) -> None:
        """Refuse secrets and forgotten facts now, so the model can fix its edit in this turn."""
        hit = secrets.first(new)
        if hit is not None:
            raise ToolError(f"refused: the new text contains what looks like a {hit}; remove it")
        if rel == tombstones.PATH:
            return
        known = {fmt.normalise(e.text) for e in fmt.parse(old).entries}
        stones_file = self.root / tombstones.PATH
        stones = tombstones.load(_read(stones_file) if stones_file.exists() else None)
        for entry in fmt.parse(new).entries:
            if fmt.normalise(entry.text) not in known:
                tombstones.check(entry.text, stones)


def _read(path: Path) -> str:
    """A file's text as git holds it: read_text() would turn "\r\n" and a lone "\r" into
    "\n" (universal newlines), and writing it back would change lines the agent never touched."""
    return path.read_bytes().decode("utf-8", "replace")


def _line(hit: SearchHit) -> str:
    """A hit as the model should see it: the entry with its metadata (sources, dates)."""
    tail = fmt.render_meta(hit.meta) if hit.meta else ""
    return f"{hit.text} {tail}".strip()


@dataclass
class ReadOnlyToolbox(Toolbox):
    """The tools that read: for a question whose asker may not have hippo write (a Slack guest,
    another organisation's user, another app; memory/trust/actors.py)."""

    @property
    def names(self) -> list[str]:
        return [t["name"] for t in self.specs]

    @property
    def specs(self) -> list[dict[str, Any]]:
        return [t for t in TOOLS if t["name"] not in WRITES]
