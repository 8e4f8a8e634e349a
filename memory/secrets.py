"""Recognise credentials in text before it is committed. Patterns, not entropy guesses: a false
positive blocks a note, so each pattern matches the shape a provider documents for its tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass

# (kind, pattern). Order matters only for which kind is reported when two overlap.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("Slack token", re.compile(r"\bxox[abposr]-[0-9A-Za-z-]{10,}")),
    ("Slack app token", re.compile(r"\bxapp-\d-[0-9A-Za-z-]{10,}")),
    (
        "Slack webhook URL",
        re.compile(r"https://hooks\.slack\.com/services/T[0-9A-Z]+/B[0-9A-Z]+/\w+"),
    ),
    ("GitHub token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{30,}")),
    ("GitHub fine-grained token", re.compile(r"\bgithub_pat_[0-9A-Za-z_]{40,}")),
    ("Anthropic API key", re.compile(r"\bsk-ant-[0-9A-Za-z_-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj-)?[0-9A-Za-z_-]{32,}")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b")),
    (
        "AWS secret access key",
        re.compile(r"(?i)aws_?secret_?access_?key\W{0,4}[0-9A-Za-z/+]{40}\b"),
    ),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("Stripe secret key", re.compile(r"\b(?:sk|rk)_live_[0-9A-Za-z]{20,}")),
    ("JWT", re.compile(r"\beyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}")),
    (
        "password in a URL",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]{1,64}:[^/\s:@]{3,128}@[^\s/]+"),
    ),
    ("npm token", re.compile(r"\bnpm_[0-9A-Za-z]{36}\b")),
]


@dataclass(frozen=True)
class Hit:
    kind: str
    start: int
    end: int


def scan(text: str) -> list[Hit]:
    """Every credential-shaped span in `text`, in order."""
    hits = [Hit(kind, m.start(), m.end()) for kind, rx in _PATTERNS for m in rx.finditer(text)]
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
