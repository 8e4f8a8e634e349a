"""What accepting one of the dream's proposals writes (memory/dream/proposing.py, layout.py,
lessons.py): the operations of one commit by the person who accepted, on the tree as it is now.

- lesson: the lesson becomes an entry of its topic as the person's (no status, `by:` them), with
  the episodes it came from (`episodes:`), their sources, and `kind`;
- title: the file's first line becomes `# <title>` (added when it has no heading);
- merge: the file's lines go under the other's (a `## <its title>` heading before them), the file
  goes; every `[[link]]` to it now leads to the other;
- split: each section becomes its own file (`# <section>` and its lines), the file keeps its
  title, what came before the first section and a list of links to the parts (so links to it
  still lead somewhere);
- regroup: the files move into the folder; links follow.

A file the proposal names that is gone, or a new path that is taken, refuses the accept
(NotFound): the memory changed since, drop it and the dream proposes again from what is there.
Pure: a tree (path → text) in, operations out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from memory import format as fmt
from memory.errors import NotFound
from memory.writes.operations import (
    AddEntry,
    DeleteFile,
    MoveFile,
    Operation,
    WriteFile,
)

_LINK = re.compile(r"\[\[([^\]|#\n]+)((?:[#|][^\]\n]*)?)\]\]")
LESSON_KEYS = ("kind", "episodes", "source", "from")


def accept(
    tree: Mapping[str, str], kind: str, path: str, text: str, meta: Mapping[str, str], *, by: str,
    today: str,
) -> list[Operation]:  # fmt: skip
    """The operations accepting the proposal (`kind`, `path`, `text`, its metadata) writes."""
    if kind == "lesson":
        kept = [(k, v) for k, v in meta.items() if k in LESSON_KEYS and v]
        return [AddEntry(path, text, (*kept, ("added", today), ("by", by)), title=_title_of(path))]
    if kind == "title":
        return [WriteFile(path, retitled(_need(tree, path), text))]
    if kind == "merge":
        return merged(tree, path, meta.get("into", ""))
    if kind == "split":
        return split(tree, path, [p.strip() for p in meta.get("into", "").split(",") if p.strip()])
    if kind == "regroup":
        files = [p.strip() for p in meta.get("files", "").split(",") if p.strip()]
        folder = meta.get("to", "").strip("/")
        return moved(tree, {f: f"{folder}/{_rest(f)}" for f in files})
    raise NotFound(f"hippo does not know how to apply a proposal of kind {kind!r}")


def retitled(text: str, title: str) -> str:
    """`text` with its first line `# <title>` (a title line put first when it has none)."""
    head, nl, rest = text.partition("\n")
    if head.startswith("# "):
        return f"# {title}\n{rest}" if nl else f"# {title}\n"
    return f"# {title}\n\n{text}"


def merged(tree: Mapping[str, str], src: str, dst: str) -> list[Operation]:
    """`src`'s lines under `dst`'s (its title a `## ` heading), `src` gone, links to it led on."""
    body, into = _need(tree, src), _need(tree, dst)
    head, _, rest = body.partition("\n")
    title = head.lstrip("#").strip() if head.startswith("#") else fmt.link_for(src)
    lines = rest if head.startswith("#") else body
    text = into.rstrip("\n") + f"\n\n## {title}\n\n{lines.strip()}\n"
    ops: list[Operation] = [WriteFile(dst, text), DeleteFile(src)]
    return ops + relinked(tree, {src: dst}, skip={src}, changed={dst: text})


def split(tree: Mapping[str, str], path: str, parts: list[str]) -> list[Operation]:
    """Each `## ` section of `path` its own file (in order, one per part), `path` the list."""
    doc = fmt.parse(_need(tree, path))
    starts = [i for i, ln in enumerate(doc.lines) if ln.startswith("## ")]
    if len(starts) != len(parts) or any(p in tree for p in parts):
        raise NotFound(f"{path} changed since the dream proposed splitting it: drop this one")
    ops: list[Operation] = []
    for part, start, end in zip(parts, starts, [*starts[1:], len(doc.lines)], strict=True):
        heading = doc.lines[start].strip()[3:].strip()
        lines = "".join(doc.lines[start + 1 : end]).strip("\n")
        ops.append(WriteFile(part, f"# {heading}\n\n{lines}\n"))
    before = "".join(doc.lines[: starts[0]]).rstrip("\n")
    index = "\n".join(f"- [[{fmt.link_for(p)}]]" for p in parts)
    ops.append(WriteFile(path, f"{before}\n\n{index}\n"))
    return ops


def moved(tree: Mapping[str, str], moves: Mapping[str, str]) -> list[Operation]:
    """Each file moved (refused when one is gone or its new path taken), links led on."""
    for src, dst in moves.items():
        _need(tree, src)
        if dst in tree:
            raise NotFound(f"{dst} exists already: drop this one")
    ops: list[Operation] = [MoveFile(src, dst) for src, dst in moves.items()]
    return ops + relinked(tree, dict(moves))


def relinked(
    tree: Mapping[str, str],
    moves: Mapping[str, str],
    *,
    skip: set[str] | None = None,
    changed: Mapping[str, str] | None = None,
) -> list[Operation]:
    """A WriteFile for every markdown file whose `[[links]]` name a moved file, at its new path
    (a moved file's own links too), with each such link leading to the new path."""
    out: list[Operation] = []
    for path in sorted(tree):
        if not path.endswith(".md") or path in (skip or set()) or "[[" not in tree[path]:
            continue
        text = (changed or {}).get(path, tree[path])
        new = _LINK.sub(lambda m: _relink(m, moves), text)
        if new != text:
            out.append(WriteFile(moves.get(path, path), new))
    return out


def _relink(m: re.Match[str], moves: Mapping[str, str]) -> str:
    target = fmt.link_target(m.group(1).strip())
    if target is None or target not in moves:
        return m.group(0)
    return f"[[{fmt.link_for(moves[target])}{m.group(2)}]]"


def _rest(path: str) -> str:
    """`runbooks/deploy-api.md` → `api.md`: the name without its shared prefix."""
    name = path.rsplit("/", 1)[-1]
    return re.split(r"[-_]", name, maxsplit=1)[-1]


def _need(tree: Mapping[str, str], path: str) -> str:
    if path not in tree:
        raise NotFound(f"{path} is gone since the dream proposed this: drop it")
    return tree[path]


def _title_of(path: str) -> str:
    from memory.notes import INBOX, topic_title

    return "Inbox: notes not yet filed under a topic" if path == INBOX else topic_title(path)
