"""Recognise credentials in text before it is committed.

Three passes, each cheap when there is nothing to find:
1. the text as written, through every detector of memory.secrets.patterns whose anchor is in it;
2. when the text holds invisible or non-ASCII characters or backslash escapes, a normalised view
   of the lines that hold them (zero-width characters removed, NFKC, `\\n`-style escapes turned
   into spaces), so a zero-width space inside a token or an escaped `\\nghp_…` in JSON hides
   nothing;
3. base64 runs that decode to text, scanned again (an encoded token is still a token);
4. detect-secrets' own detectors (memory.secrets.library_detectors), loaded only when a text
   needs them.
Hits of passes 2 and 3 are reported at their span in the original text.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import itertools
import re
import sys
import unicodedata
from dataclasses import dataclass

import memory.secrets.library_detectors as library_detectors
from memory.secrets.contextual import CONTEXT
from memory.secrets.patterns import PREFIXED, Detector
from memory.secrets.services import SERVICES

# Prefixed formats first: the order decides the kind reported when two overlap.
DETECTORS: list[Detector] = [*PREFIXED, *SERVICES, *CONTEXT]

# Characters that render as nothing: removed before matching (Cf format characters and friends).
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
_ESCAPE = re.compile(r"\\(?:[nrtfbv0]|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|(?P<char>[\"'\\/`]))")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")


@dataclass(frozen=True)
class Hit:
    kind: str
    start: int
    end: int


class _Index:
    """Detectors by lower-cased anchor, so a text costs one `in` per distinct anchor."""

    def __init__(self, detectors: list[Detector]) -> None:
        self.detectors = detectors
        self.always = [i for i, d in enumerate(detectors) if not d.anchors]
        self.by_anchor: dict[str, list[int]] = {}
        for i, d in enumerate(detectors):
            for a in d.anchors:
                self.by_anchor.setdefault(a.lower(), []).append(i)
        self.anchors = tuple(self.by_anchor)

    def wanted(self, lowered: str) -> list[int]:
        chosen = set(self.always)
        # One `in` per distinct anchor (C speed; a combined alternation regex measured slower).
        for a in [a for a in self.anchors if a in lowered]:
            chosen.update(self.by_anchor[a])
        return sorted(chosen)  # detector order decides the kind reported for an overlap


@functools.cache
def _folded(pattern: str) -> re.Pattern[str]:
    """A lower-case pattern made case-insensitive, for the rare text whose lower-casing changes
    its length (compiled when first needed: a note start need not pay for it)."""
    return re.compile(pattern, re.IGNORECASE)


_DEFAULT = _Index(DETECTORS)
_INDEXES: dict[int, _Index] = {id(DETECTORS): _DEFAULT}


def _raw(
    text: str, detectors: list[Detector] = DETECTORS, *, lowered: str | None = None
) -> list[Hit]:
    """Pass 1: anchored detectors over `text` as it is (`lowered`: text.lower(), if known)."""
    index = _INDEXES.get(id(detectors))
    if index is None or index.detectors is not detectors:
        index = _INDEXES[id(detectors)] = _Index(detectors)
    lowered = text.lower() if lowered is None else lowered
    # Lower-casing only ever lengthens (İ → i̇): the same length means the same positions.
    same = len(lowered) == len(text)
    hits: list[Hit] = []
    for i in index.wanted(lowered):
        d = detectors[i]
        if not d.lower:
            matches = d.rx.finditer(text)
        elif same:
            matches = d.rx.finditer(lowered)
        else:
            matches = _folded(d.rx.pattern).finditer(text)
        for m in matches:
            span = m.start() if d.check is None else d.check(text, m)
            if isinstance(span, tuple):
                hits.append(Hit(d.kind, *span))
            elif span is not None:
                hits.append(Hit(d.kind, span, m.end()))
    return hits


_SPECIAL = re.compile(r"[^\x00-\x7f]|\\")


def _normalised(text: str) -> tuple[str, list[tuple[int, int, bool]]] | None:
    """The normalised view of the lines of `text` that need it, and where its pieces came from:
    (start in the view, start in `text`, copied as is) per piece, in order; None if nothing
    changes.

    Only lines holding a non-ASCII character or a backslash are rewritten; the others cannot
    change, so a long ASCII file costs one regex pass, not a loop over its characters."""
    if text.isascii() and "\\" not in text:
        return None
    out: list[str] = []
    pieces: list[tuple[int, int, bool]] = []
    size = 0

    def put(s: str, origin: int, copy: bool = True) -> None:
        nonlocal size
        if s:
            out.append(s)
            pieces.append((size, origin, copy))
            size += len(s)

    changed = False
    done = 0
    for special in _SPECIAL.finditer(text):
        if special.start() < done:
            continue  # its line is rewritten already
        start = text.rfind("\n", 0, special.start()) + 1
        end = text.find("\n", special.start())
        done = end = len(text) if end < 0 else end
        pos = start
        for m in _SPECIAL.finditer(text, start, end):
            put(text[pos : m.start()], pos)
            i = m.start()
            if text[i] == "\\":
                esc = _ESCAPE.match(text, i)
                if esc is None:
                    pos = i
                    continue
                put(esc.group("char") or " ", i, False)  # \" is a quote; \n and friends a space
                pos = esc.end()
            elif _INVISIBLE.match(text[i]):
                pos = i + 1
            else:
                put(unicodedata.normalize("NFKC", text[i]), i, False)
                pos = i + 1
            changed = True
        put(text[pos:end], pos)
        put("\n", end, False)
    return ("".join(out), pieces) if changed else None


def _origin(pieces: list[tuple[int, int, bool]], at: int) -> int:
    """The index in the original text of character `at` of the view."""
    start, origin, copy = pieces[bisect.bisect_right(pieces, (at, sys.maxsize, True)) - 1]
    return origin + (at - start if copy else 0)


def _decoded(run: str) -> str | None:
    """A base64 (or base64url) run decoded, if it decodes to printable text."""
    if run.lower() == run or run.upper() == run:
        return None  # hex digests, words: not encoded text
    body = run.rstrip("=")
    body = body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if text and printable >= 0.95 * len(text) else None


def scan(text: str) -> list[Hit]:
    """Every credential-shaped span in `text`, in order (overlaps reported once)."""
    lowered = text.lower()
    hits = _raw(text, lowered=lowered)
    view = _normalised(text)
    if view is not None:
        norm, pieces = view
        for h in _raw(norm):
            hits.append(Hit(h.kind, _origin(pieces, h.start), _origin(pieces, h.end - 1) + 1))
    for m in _BASE64.finditer(text):
        decoded = _decoded(m.group())
        inner = _raw(decoded) if decoded is not None else []
        if inner:
            hits.append(Hit(f"base64-encoded {inner[0].kind}", m.start(), m.end()))
    # detect-secrets' finds count where hippo's own found nothing (its names are the plainer).
    return _merge(hits + _unclaimed(hits, library_detectors.scan(text, lowered)))


def _unclaimed(hits: list[Hit], found: list[tuple[str, int, int]]) -> list[Hit]:
    """The finds that overlap none of `hits` nor an earlier find kept. By bisection: comparing
    each find with every hit was quadratic (38 s for 1 MB of private key headers)."""
    own = sorted((h.start, h.end) for h in hits)
    starts = [s for s, _ in own]
    reach = list(itertools.accumulate((e for _, e in own), max))  # the furthest end so far
    kept: list[tuple[int, int]] = []  # disjoint, so by start they are by end too
    out: list[Hit] = []
    for kind, start, end in found:
        i = bisect.bisect_left(starts, end) - 1  # own hits starting before `end`
        j = bisect.bisect_left(kept, (end, -1)) - 1
        if (i >= 0 and reach[i] > start) or (j >= 0 and kept[j][1] > start):
            continue
        bisect.insort(kept, (start, end))
        out.append(Hit(kind, start, end))
    return out


def _merge(hits: list[Hit]) -> list[Hit]:
    """In order of start; a hit inside (or overlapping) an earlier kept one is dropped."""
    out: list[Hit] = []
    for h in sorted(hits, key=lambda h: (h.start, -h.end)):
        if out and h.start < out[-1].end:
            if h.end > out[-1].end:
                out[-1] = Hit(out[-1].kind, out[-1].start, h.end)
            continue
        out.append(h)
    return out


def first(text: str) -> str | None:
    """The kind of the first credential in `text`, or None. Cheap when there is none."""
    hits = scan(text)
    return hits[0].kind if hits else None


def redact(text: str) -> str:
    out, pos = [], 0
    for h in scan(text):
        out.append(text[pos : h.start] + f"[redacted {h.kind}]")
        pos = h.end
    return "".join(out) + text[pos:]
