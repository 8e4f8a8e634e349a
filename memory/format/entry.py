"""One entry: a bullet on one line, its text and its metadata brackets, parsed and rendered.

Decisions 2–7 (memory/format/decisions.py): metadata brackets trail the text, keys are
case-insensitive, values percent-escaped by one bijection (`escape_value`/`unescape_value`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from memory.format.decisions import KNOWN_KEYS
from memory.format.links import links_in

BULLET = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,9}[.)])(?P<gap>[ \t]+)(?P<rest>.*)$")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_ESCAPES = {"%": "%25", ";": "%3B", "[": "%5B", "]": "%5D", "\n": "%0A", "\r": "%0D"}
_UNESCAPES = {code[1:]: raw for raw, code in _ESCAPES.items()}
_CODE = re.compile("%(" + "|".join(_UNESCAPES) + ")", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """One bullet on one line: its text, its metadata (ordered pairs) and its links."""

    line: int
    indent: int
    marker: str
    text: str
    meta: tuple[tuple[str, str], ...] = ()
    links: tuple[str, ...] = ()
    parent: int | None = None  # line of the enclosing bullet (decision 4)

    def get(self, key: str) -> str | None:
        """The first value of `key` (case-insensitive), or None."""
        values = self.get_all(key)
        return values[0] if values else None

    def get_all(self, key: str) -> list[str]:
        k = key.lower()
        return [v for mk, v in self.meta if mk.lower() == k]

    @property
    def metadata(self) -> dict[str, str]:
        """The metadata as a dict, repeated keys joined with ', '."""
        out: dict[str, str] = {}
        for k, v in self.meta:
            key = k.lower()
            out[key] = f"{out[key]}, {v}" if key in out else v
        return out

    def render(self) -> str:
        """This entry as one line (no newline), metadata in one escaped bracket."""
        return render_entry(self.text, self.meta, indent=self.indent, marker=self.marker)

    def with_meta(self, **changes: str | None) -> Entry:
        """A copy with keys set (value) or removed (None); new keys go last, order is kept."""
        meta = list(self.meta)
        for key, value in changes.items():
            key = key.replace("_", "-") if key not in KNOWN_KEYS else key
            idx = [i for i, (k, _) in enumerate(meta) if k.lower() == key.lower()]
            if value is None:
                meta = [m for i, m in enumerate(meta) if i not in idx]
            elif idx:
                meta[idx[0]] = (meta[idx[0]][0], value)
                meta = [m for i, m in enumerate(meta) if i not in idx[1:]]
            else:
                meta.append((key, value))
        return replace(self, meta=tuple(meta))


def parse_entry(line: str, line_no: int = 0) -> Entry | None:
    """Parse one line as an entry, or None when it is not a bullet."""
    return _parse_bullet(line.rstrip("\r\n"), line_no)


def _parse_bullet(line: str, line_no: int) -> Entry | None:
    m = BULLET.match(line)
    if not m:
        return None
    indent = len(m.group("indent").expandtabs(4))
    body = m.group("rest").rstrip()
    text, meta = split_metadata(body)
    return Entry(
        line=line_no,
        indent=indent,
        marker=m.group("marker"),
        text=text,
        meta=meta,
        links=tuple(links_in(text)),
    )


def split_metadata(body: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Split an entry body into its text and the trailing metadata brackets (decisions 2, 3, 6)."""
    groups: list[list[tuple[str, str]]] = []
    rest = body.rstrip()
    while rest.endswith("]") and not rest.endswith("]]"):
        start = _bracket_start(rest)
        if start is None:
            break
        if start > 0 and rest[start - 1] == "[":
            break  # the tail of a [[link]]
        pairs = _parse_pairs(rest[start + 1 : -1])
        if pairs is None:
            break
        groups.append(pairs)
        rest = rest[:start].rstrip()
    meta: list[tuple[str, str]] = []
    for pairs in reversed(groups):
        meta.extend(pairs)
    return rest, tuple(meta)


def _bracket_start(s: str) -> int | None:
    """Index of the '[' that opens the bracket closing at the end of `s` (no nesting allowed)."""
    start = s.rfind("[", 0, len(s) - 1)
    if start < 0 or "]" in s[start + 1 : -1]:
        return None
    return start


def _parse_pairs(inner: str) -> list[tuple[str, str]] | None:
    pairs: list[tuple[str, str]] = []
    for part in inner.split(";"):
        key, sep, value = part.partition(":")
        key = key.strip()
        if sep and _KEY.match(key):
            pairs.append((key, value.strip()))
        elif pairs and "://" in pairs[-1][1]:
            k, v = pairs[-1]
            pairs[-1] = (k, f"{v};{part}".strip())  # a raw ';' inside an old URL (decision 5)
        else:
            return None
    return [(k, unescape_value(v)) for k, v in pairs] or None


def escape_value(value: str) -> str:
    """`value` as written inside a metadata bracket (decision 5): the inverse of
    `unescape_value` for every value without leading or trailing whitespace."""
    value = value.strip()
    if not any(c in value for c in _ESCAPES):
        return value  # most values: nothing to escape (a night renders thousands)
    out: list[str] = []
    for i, c in enumerate(value):
        if c == "%":
            # Only a '%' that would read as a code is escaped: a URL's %20 stays readable.
            out.append("%25" if _CODE.match(value, i) else "%")
        else:
            out.append(_ESCAPES.get(c, c))
    return "".join(out)


def unescape_value(value: str) -> str:
    """A written metadata value decoded (decision 5): each code, read left to right, once."""
    if "%" not in value:
        return value  # no code to decode (most values; every parse decodes every value)
    return _CODE.sub(lambda m: _UNESCAPES[m.group(1).upper()], value)


def render_meta(meta: Iterable[tuple[str, str]] | Mapping[str, str]) -> str:
    items = list(meta.items()) if isinstance(meta, Mapping) else list(meta)
    if not items:
        return ""
    return "[" + "; ".join(f"{k}: {escape_value(v)}" for k, v in items) + "]"


def render_entry(
    text: str,
    meta: Sequence[tuple[str, str]] | Mapping[str, str] = (),
    *,
    indent: int = 0,
    marker: str = "-",
) -> str:
    """One entry line, without the newline. Newlines in the text become spaces (one line)."""
    flat = " ".join(text.split())
    tail = render_meta(meta)
    return f"{' ' * indent}{marker} {flat}{' ' + tail if tail else ''}"
