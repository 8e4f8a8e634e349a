"""The memory's `[[links]]` as a graph: what a file links to and what links to it, around it.

An agent building context around a topic starts at one file and follows links both ways:
`around(tree, path, depth)` gives the files within `depth` steps (either direction), the edges
between them, and whether each target exists. Links inside code fences are code, not links
(memory/format.py). Pure: over a tree of path → bytes, as the store caches it per commit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memory import format as fmt

MAX_DEPTH = 3
MAX_NODES = 200  # a hub file (MEMORY.md's index) links to everything: the answer stays small


@dataclass(frozen=True)
class Graph:
    path: str
    links: list[str]  # the files `path` links to, in order
    backlinks: list[str]  # the files linking to `path`, sorted
    nodes: dict[str, bool] = field(default_factory=dict)  # path → exists, within depth
    edges: list[tuple[str, str]] = field(default_factory=list)  # (from, to) among the nodes
    truncated: bool = False  # MAX_NODES reached

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "links": self.links,
            "backlinks": self.backlinks,
            "nodes": [{"path": p, "exists": e} for p, e in self.nodes.items()],
            "edges": [list(e) for e in self.edges],
            "truncated": self.truncated,
        }


def outgoing(tree: Mapping[str, bytes]) -> dict[str, list[str]]:
    """Every markdown file's link targets (valid ones, each once, in order)."""
    out: dict[str, list[str]] = {}
    for path, raw in tree.items():
        if not path.endswith(".md"):
            continue
        doc = fmt.parse(raw.decode("utf-8", "replace"))
        targets = (fmt.link_target(link) for link in doc.links())
        out[path] = [t for t in dict.fromkeys(targets) if t is not None and t != path]
    return out


def around(tree: Mapping[str, bytes], path: str, depth: int = 1) -> Graph:
    """The link graph within `depth` steps of `path` (1 to MAX_DEPTH), both directions."""
    depth = max(1, min(depth, MAX_DEPTH))
    out = outgoing(tree)
    back: dict[str, list[str]] = {}
    for src in sorted(out):
        for dst in out[src]:
            back.setdefault(dst, []).append(src)
    nodes: dict[str, bool] = {path: path in tree}
    frontier, truncated = [path], False
    for _ in range(depth):
        step: list[str] = []
        for node in frontier:
            for other in [*out.get(node, []), *back.get(node, [])]:
                if other in nodes:
                    continue
                if len(nodes) >= MAX_NODES:
                    truncated = True
                    break
                nodes[other] = other in tree
                step.append(other)
        frontier = step
    edges = [(s, d) for s in nodes for d in out.get(s, []) if d in nodes]
    return Graph(path, out.get(path, []), back.get(path, []), nodes, edges, truncated)
