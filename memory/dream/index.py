"""Step 6, index: rewrite `MEMORY.md`'s `## Index`, grouped by folder, within the budget.

The human-written part (everything outside the `## Index` section) is kept byte for byte; the
index follows it: root files first, then one `### folder` group per folder, one line per file
(`- [[path]]: its first line`). Daily notes are one line, and so is the tag vocabulary (each tag
with the entries carrying it, most used first, at most TAGS_SHOWN; agents reading the index reuse
these tags, and `tag:x` searches them). The whole file stays within 200 lines
and 25 KB (format.DECISIONS[10]): when over, the biggest folders become one line each, then
top-level folders, and as a last resort the list is cut with a count of what was left out.
"""

from __future__ import annotations

from collections import Counter

import memory.format.lines as textlines
import memory.format.tags as tags
from memory import format as fmt
from memory.dream.context import Context, StepResult
from memory.dream.tag_vocabulary import vocabulary
from memory.writes.operations import WriteFile

PATH = "MEMORY.md"
HEADING = "## Index"
SKIP = frozenset({PATH, "forgotten.md"})
SKIP_DIRS = (".dream/", ".hippo/", "archive/", "daily/")  # .hippo/: the team's settings
TITLE_MAX = 100
TAGS_SHOWN = 30  # the vocabulary line names at most this many tags (and counts the rest)


def title_of(path: str, text: str) -> str:
    """The file's first non-empty line, '#' marks dropped, made safe to sit in one entry."""
    for raw in textlines.split(text):
        s = raw.strip()
        if s:
            s = s.lstrip("#").strip().replace("[", "(").replace("]", ")")
            return s if len(s) <= TITLE_MAX else s[: TITLE_MAX - 1].rstrip() + "…"
    return path


def indexed(paths: list[str]) -> list[str]:
    return sorted(
        p
        for p in paths
        if p not in SKIP
        and not p.startswith(SKIP_DIRS)
        and not p.rsplit("/", 1)[-1].startswith(".")
    )


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _collapsed(folder: str, paths: list[str]) -> str:
    sample = ", ".join(f"[[{fmt.link_for(p)}]]" for p in paths[:3])
    more = ", …" if len(paths) > 3 else ""
    return f"- {folder}/ ({len(paths)} files): {sample}{more}"


def _fits(lines: list[str], max_lines: int, max_bytes: int) -> bool:
    return len(lines) <= max_lines and sum(len(ln.encode()) + 1 for ln in lines) <= max_bytes


def render_index(
    tree: dict[str, str],
    top: list[str],
    *,
    max_lines: int = fmt.INDEX_MAX_LINES,
    max_bytes: int = fmt.INDEX_MAX_BYTES,
    tag_counts: Counter[str] | None = None,
) -> list[str]:
    """The index lines (heading included) that fit after `top` within the budget; `tag_counts`
    (spelling → entries) gives the vocabulary line."""
    groups: dict[str, list[str]] = {}
    for p in indexed(list(tree)):
        groups.setdefault(_folder(p), []).append(p)
    daily = sorted(p for p in tree if p.startswith("daily/") and p.endswith(".md"))
    head = [HEADING, ""]
    if daily:
        head.append(f"- daily/ ({len(daily)} notes), newest [[{fmt.link_for(daily[-1])}]]")
    vocabulary_line = tags_line(tag_counts or Counter())
    if vocabulary_line:
        head.append(vocabulary_line)
    lines_of = {
        f: [f"- [[{fmt.link_for(p)}]]: {title_of(p, tree[p])}" for p in ps]
        for f, ps in groups.items()
    }
    budget_lines = max_lines - len(top)
    budget_bytes = max_bytes - sum(len(ln.encode()) + 1 for ln in top)

    def cost(f: str, collapsed: bool) -> tuple[int, int]:
        if collapsed and f:
            return 1, len(_collapsed(f, groups[f]).encode()) + 1
        body = lines_of[f] if not f else ["", f"### {f}", *lines_of[f]]
        return len(body), sum(len(x.encode()) + 1 for x in body)

    folded: set[str] = set()
    total_l = len(head) + sum(cost(f, False)[0] for f in groups)
    total_b = sum(len(x.encode()) + 1 for x in head) + sum(cost(f, False)[1] for f in groups)
    for f in sorted((f for f in groups if f), key=lambda f: -len(groups[f])):
        if total_l <= budget_lines and total_b <= budget_bytes:
            break
        (el, eb), (cl, cb) = cost(f, False), cost(f, True)
        folded.add(f)
        total_l, total_b = total_l - el + cl, total_b - eb + cb
    out = list(head)
    if total_l > budget_lines or total_b > budget_bytes:
        out += _by_top_level(groups)  # still over: one line per top-level folder
    else:
        out += lines_of.get("", [])
        out += [_collapsed(f, groups[f]) for f in sorted(folded)]
        for f in sorted(g for g in groups if g and g not in folded):
            out += ["", f"### {f}", *lines_of[f]]
    return _cut(out, budget_lines, budget_bytes)


def tags_line(counts: Counter[str]) -> str:
    """One line: each tag (one spelling per key: the most used) with its entries, most first."""
    by_key: dict[str, Counter[str]] = {}
    for spelling, n in counts.items():
        if tags.problem(spelling) is None:  # lint reports the rest; the index shows tags only
            by_key.setdefault(tags.key(spelling), Counter())[spelling] += n
    shown = sorted(
        ((c.most_common(1)[0][0], c.total()) for c in by_key.values()), key=lambda t: (-t[1], t[0])
    )
    if not shown:
        return ""
    words = ", ".join(f"{t} ({n})" for t, n in shown[:TAGS_SHOWN])
    more = f", … and {len(shown) - TAGS_SHOWN} more" if len(shown) > TAGS_SHOWN else ""
    return f"- tags ({len(shown)}; search `tag:<tag>`): {words}{more}"


def _by_top_level(groups: dict[str, list[str]]) -> list[str]:
    tops: dict[str, list[str]] = {}
    for f, ps in groups.items():
        tops.setdefault(f.split("/", 1)[0] if f else "", []).extend(ps)
    lines = [f"- [[{fmt.link_for(p)}]]" for p in tops.pop("", [])]
    return lines + [_collapsed(t, sorted(ps)) for t, ps in sorted(tops.items())]


def _cut(lines: list[str], max_lines: int, max_bytes: int) -> list[str]:
    if _fits(lines, max_lines, max_bytes):
        return lines
    kept = list(lines)
    while kept and not _fits(
        [*kept, "- … and 999999 more (see the repository)"], max_lines, max_bytes
    ):
        kept.pop()
    return [*kept, f"- … and {len(lines) - len(kept)} more (see the repository)"]


def split_top(text: str) -> list[str]:
    """MEMORY.md without its `## Index` section (the human-written part), trailing blanks cut."""
    doc = fmt.parse(text)
    lines = [ln.rstrip("\r\n") for ln in doc.lines]
    if doc.index_span is not None:
        lo, hi = doc.index_span
        lines = lines[:lo] + lines[hi:]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines or ["# Memory"]


def run(ctx: Context) -> StepResult:
    result = StepResult("index")
    old = ctx.tree.get(PATH, "")
    top = split_top(old)
    body = render_index(ctx.tree, [*top, ""], tag_counts=vocabulary(ctx))
    new = "\n".join([*top, "", *body]) + "\n"
    result.facts = {"lines": new.count("\n"), "bytes": len(new.encode())}
    if new != old:
        result.ops.append(WriteFile(PATH, new))
        files = len(indexed(list(ctx.tree)))
        result.subject = f"MEMORY.md index: {files} files in {new.count(chr(10))} lines"
        result.body.append(f"- {new.count(chr(10))} lines, {len(new.encode()):,} bytes")
    return result
