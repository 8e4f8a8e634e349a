"""The scanner as it was before issue 12 (frozen here as the baseline of bench/secret_scan.py).

The patterns, unchanged: a false positive blocks a note, so each matches a provider's documented
shape."""

from __future__ import annotations

import re
from dataclasses import dataclass

# (kind, anchors, pattern). A pattern runs only when one of its literal anchors is in the text:
# patterns that start with \b or a class make `re` try every position, which over a 25 MB tree
# was most of lint's time. Anchors are matched case-sensitively except for "(?i)" patterns.
# Order matters only for which kind is reported when two overlap.
_PATTERNS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    (
        "private key block",
        ("PRIVATE KEY",),
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    ),
    ("Slack token", ("xox",), re.compile(r"\bxox[abposr]-[0-9A-Za-z-]{10,}")),
    ("Slack app token", ("xapp-",), re.compile(r"\bxapp-\d-[0-9A-Za-z-]{10,}")),
    (
        "Slack webhook URL",
        ("hooks.slack.com",),
        re.compile(r"https://hooks\.slack\.com/services/T[0-9A-Z]+/B[0-9A-Z]+/\w+"),
    ),
    (
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{30,}"),
    ),
    ("GitHub fine-grained token", ("github_pat_",), re.compile(r"\bgithub_pat_[0-9A-Za-z_]{40,}")),
    ("Anthropic API key", ("sk-ant-",), re.compile(r"\bsk-ant-[0-9A-Za-z_-]{20,}")),
    ("OpenAI API key", ("sk-",), re.compile(r"\bsk-(?:proj-)?[0-9A-Za-z_-]{32,}")),
    (
        "AWS access key id",
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA"),
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b"),
    ),
    (
        "AWS secret access key",
        ("secret",),
        re.compile(r"(?i)aws_?secret_?access_?key\W{0,4}[0-9A-Za-z/+]{40}\b"),
    ),
    ("Google API key", ("AIza",), re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("Stripe secret key", ("_live_",), re.compile(r"\b(?:sk|rk)_live_[0-9A-Za-z]{20,}")),
    (
        "JWT",
        ("eyJ",),
        re.compile(r"\beyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}"),
    ),
    (
        "password in a URL",
        ("://",),
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]{1,64}:[^/\s:@]{3,128}@[^\s/]+"),
    ),
    ("npm token", ("npm_",), re.compile(r"\bnpm_[0-9A-Za-z]{36}\b")),
]


@dataclass(frozen=True)
class Hit:
    kind: str
    start: int
    end: int


def scan(text: str) -> list[Hit]:
    """Every credential-shaped span in `text`, in order."""
    lowered: str | None = None
    hits: list[Hit] = []
    for kind, anchors, rx in _PATTERNS:
        if rx.flags & re.IGNORECASE:
            lowered = text.lower() if lowered is None else lowered
            haystack = lowered
        else:
            haystack = text
        if any(a in haystack for a in anchors):
            hits.extend(Hit(kind, m.start(), m.end()) for m in rx.finditer(text))
    return sorted(hits, key=lambda h: h.start)


def first(text: str) -> str | None:
    """The kind of the first credential in `text`, or None. Cheap when there is none."""
    hits = scan(text)
    return hits[0].kind if hits else None


def redact(text: str) -> str:
    out, pos = [], 0
    for h in scan(text):
        if h.start < pos:
            continue
        out.append(text[pos : h.start] + f"[redacted {h.kind}]")
        pos = h.end
    return "".join(out) + text[pos:]
