"""Reading what a file in the memory supplies, within bounds: YAML (size once its aliases are
expanded, aliases, nodes, nesting) and regular expressions (length, counted repeats).

A file is small on disk and can still be huge: YAML aliases repeat a node wherever they are
written (a billion laughs), and a pattern's counted repeats are unrolled when it is compiled
(`(?:x{65535}){65535}` compiles for minutes). Each refusal names its line and what to do. Patterns
also run with a time limit where they are searched (the `regex` library's `timeout`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import regex
import yaml

MAX_ALIASES = 100  # alias uses (`*name`) in one file
MAX_NODES = 5_000  # values once every alias is expanded
MAX_DEPTH = 16  # nesting of lists and mappings
MAX_CHARS = 128_000  # characters of the values once every alias is expanded
MAX_PATTERN = 500  # characters of one regular expression
MAX_REPEAT = 20_000  # a pattern's counted repeats ({n}, {n,m}), nested ones multiplied, summed

_COUNT = regex.compile(r"\{(\d+)(?:,(\d*))?\}")


class Refused(ValueError):
    """Too big or too deep to read; the message says what and where, for a person to fix."""


@dataclass
class _Walk:
    nodes: dict[int, tuple[int, int, int]]  # id → (values, characters, depth), expanded
    refs: int = 0  # references to values: each node's children, aliases included


def load_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """`text` as data (safe YAML) and its node tree; Refused past the bounds above, checked on
    the composed nodes (where an alias is one shared node) before anything is expanded."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if node is None:
            return None, None
        walk = _Walk({})
        values, chars, depth = _measure(node, walk, ())
    except RecursionError:  # thousands of nested brackets: deeper than any walk should go
        raise Refused(f"nested deeper than Python reads; at most {MAX_DEPTH}") from None
    aliases = walk.refs - (len(walk.nodes) - 1)
    where = f"line {node.start_mark.line + 1}"
    if aliases > MAX_ALIASES:
        raise Refused(f"{aliases} uses of aliases (*name); at most {MAX_ALIASES}, {where}")
    if values > MAX_NODES or chars > MAX_CHARS:
        raise Refused(
            f"{values:,} values and {chars:,} characters once its aliases are expanded; at most "
            f"{MAX_NODES:,} values and {MAX_CHARS:,} characters"
        )
    if depth > MAX_DEPTH:
        raise Refused(f"nested {depth} deep; at most {MAX_DEPTH}")
    return yaml.safe_load(text), node


def _measure(node: yaml.Node, walk: _Walk, path: tuple[int, ...]) -> tuple[int, int, int]:
    """(values, characters, depth) of `node` with its aliases expanded, each node once."""
    known = walk.nodes.get(id(node))
    if known is not None:
        return known
    if id(node) in path:
        raise Refused(f"an alias refers to itself, line {node.start_mark.line + 1}")
    if isinstance(node, yaml.ScalarNode):
        found = (1, len(str(node.value)), 0)
    else:
        children = (
            [c for pair in node.value for c in pair]
            if isinstance(node, yaml.MappingNode)
            else list(node.value)
        )
        walk.refs += len(children)
        inside = (*path, id(node))
        sizes = [_measure(c, walk, inside) for c in children]
        found = (
            1 + sum(s[0] for s in sizes),
            sum(s[1] for s in sizes),
            1 + max((s[2] for s in sizes), default=0),
        )
    walk.nodes[id(node)] = found
    return found


def check_pattern(pattern: str) -> None:
    """Refused when `pattern` is too long, or its counted repeats (nested ones multiplied) add
    up past MAX_REPEAT: compiling it would take seconds to minutes."""
    if len(pattern) > MAX_PATTERN:
        raise Refused(f"the pattern is {len(pattern)} characters; at most {MAX_PATTERN}")
    cost = repeat_cost(pattern)
    if cost > MAX_REPEAT:
        raise Refused(
            f"its counted repeats ({{n}}, {{n,m}}) unroll to {cost:,} copies; at most "
            f"{MAX_REPEAT:,}: use + or * instead of large counts, and do not nest them"
        )


def repeat_cost(pattern: str) -> int:
    """The copies a pattern's counted repeats unroll to: each count times the counts of the
    groups around it, summed (escapes and character classes skipped)."""
    groups: list[tuple[int, int]] = []  # (open, close) of each group
    counts: list[tuple[int, int]] = []  # (position of `{`, its count)
    opened: list[int] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _class_end(pattern, i)
        elif c == "(":
            opened.append(i)
        elif c == ")" and opened:
            groups.append((opened.pop(), i))
        elif c == "{":
            m = _COUNT.match(pattern, i)
            if m is not None:
                top = m.group(2) or m.group(1)
                counts.append((i, int(top[:9])))
        i += 1
    of_group = {close: count for close, count in ((p - 1, k) for p, k in counts)}
    total = 0
    for at, count in counts:
        for start, close in groups:
            if start < at < close and close in of_group:
                count *= of_group[close]
        total += count
    return total


def _class_end(pattern: str, i: int) -> int:
    """The index of the `]` closing the character class opened at `i`."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1  # a `]` first in a class is itself
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j
