"""What recurs across sessions in the archive: the same error, the same fix, the same question.

The lessons step (memory/dream/lessons.py) reads the episodes of the last WINDOW days from
`archive/*.jsonl` (a thread the Slack agent summarised, a session an agent appended, a pull
request's outcome) and finds, deterministically, groups of episodes from different sessions that
share one of:

- **error**: the same error text (an exception with its message, "fatal: …", an HTTP status with
  its reason, "exit code 137", "permission denied", "connection refused" …), from the episode's
  `error`/`errors` fields or its words (summary, what to remember, problem, approach, outcome);
  the commands they ran (`command`/`commands`, or a backticked command in their words) name it;
- **fix**: the same files changed (`files_touched`, `files_changed`) with an outcome that says it
  fixed something, in words that overlap (at least FIX_WORDS content words);
- **question**: the same question (`question`, else `problem`) asked in at least three threads,
  by its content words (Jaccard at least SAME_QUESTION).

A group needs distinct sessions (the `session` field, a Slack thread, else the archive line):
one session saying a thing twice is not a recurrence. Each episode is cited by its archive file
and line (`2026-11-03#L4`). Pure: the tree's text in, groups out; bounded (at most MAX_LINES
archive lines read, MAX_TEXT characters of each text).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

import snowballstemmer

import memory.format.lines as textlines
import memory.trust.episodes as trust_episodes
from memory.facts.comparison import STOP
from memory.trust.rules import origin_of

ARCHIVE = "archive/"
WINDOW = 30  # days of episodes read each night
MAX_LINES = 20_000  # archive lines read, at most (a month of a busy team's sessions)
MAX_TEXT = 2_000  # characters of each text field read
MIN_SESSIONS = {"error": 2, "fix": 2, "question": 3}
FIX_WORDS = 3  # content words two fixes of the same files share, at least
SAME_QUESTION = 0.5  # Jaccard of content words from which two questions are one
TEXT_FIELDS = ("summary", "text", "question", "problem", "approach", "outcome", "remember")
FIXED = re.compile(
    r"\b(?:fix(?:ed|es)?|resolv(?:ed|es)|work(?:ed)? around|workaround|pinned|bumped|raised|"
    r"increased|reverted|patched|solved|set)\b",
    re.I,
)
_ERRORS = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception|Timeout|Exceeded|Refused)\b(?::[ \t]*[^\n;]{3,120})?"
    r"|\b(?:[Ff]atal|[Ee]rror|ERROR|FATAL|panic)(?: [a-z]+){0,3}:[ \t]*[^\n;]{5,120}"
    r"|\bnpm ERR! [^\n;]{3,120}"
    r"|\b[45]\d\d (?:Bad Gateway|Gateway Timeout|Service Unavailable|Internal Server Error|"
    r"Too Many Requests|Forbidden|Unauthorized|Not Found|Conflict|Bad Request)\b"
    r"|\bexit(?:ed)? (?:code|status|with) \d+\b|\bOOMKilled\b|\bsegmentation fault\b"
    r"|\bpermission denied(?: \([\w-]+\))?|\bconnection (?:refused|reset)\b"
    r"|\bno space left on device\b|\bCrashLoopBackOff\b|\bImagePullBackOff\b|\bdeadlock detected\b",
)
_BACKTICK = re.compile(r"`([^`\n]{3,200})`")
_PROGRAMS = frozenset(
    [
        "git",
        "make",
        "npm",
        "npx",
        "pnpm",
        "yarn",
        "pip",
        "pytest",
        "python",
        "python3",
        "docker",
        "kubectl",
        "helm",
        "terraform",
        "cargo",
        "go",
        "mvn",
        "gradle",
        "psql",
        "curl",
        "ssh",
        "hippo",
        "bundle",
        "rake",
        "rails",
        "node",
        "uv",
        "poetry",
        "ansible",
        "aws",
        "gcloud",
        "az",
        "tox",
        "ruff",
        "mypy",
        "alembic",
        "flask",
        "celery",
        "redis-cli",
        "systemctl",
        "journalctl",
    ]
)
_WORD = re.compile(r"[a-z][a-z0-9]+")
_VALUE = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?:[a-z]{1,3})?\b", re.I)  # 120, 20.11, 1Gi
_HEX = re.compile(r"\b[0-9a-f]{7,}\b")
_NUMBER = re.compile(r"\b\d{4,}\b")
_STEM = snowballstemmer.stemmer("english")
_GENERIC_ERRORS = frozenset({"error", "fatal", "panic", "exception"})
_BENIGN = re.compile(
    r"(?:exit(?:ed)? (?:code|status|with) [012])|keyboardinterrupt|"
    r"(?:error: )?failed to push some refs(?: to .*)?"
)
_FIX_VERBS = frozenset(
    _STEM.stemWord(w)
    for w in [
        "fix",
        "fixed",
        "fixes",
        "hit",
        "resolved",
        "work",
        "around",
        "workaround",
        "pinned",
        "bumped",
        "raised",
        "increased",
        "reverted",
        "patched",
        "solved",
        "set",
        "again",
    ]
)


@dataclass(frozen=True)
class Episode:
    """One archive line as the lessons step reads it."""

    ref: str  # "2026-11-03#L4": the archive file's date and line
    day: str
    session: str
    standing: str  # the episode's (memory/trust/episodes.py): an agent's is tentative
    writer: str
    texts: tuple[str, ...]
    question: str = ""
    outcome: str = ""
    commands: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()  # error texts as keys (`error_key`)
    said: tuple[str, ...] = ()  # the same errors as the episode wrote them, for a lesson's text
    files: tuple[str, ...] = ()  # files the session changed
    read: tuple[str, ...] = ()  # files it read or cited (memory files among them)
    sources: tuple[str, ...] = ()


@dataclass
class Group:
    """Episodes of different sessions sharing one thing: `kind` (error, fix, question) and
    `key` (the error text, the files, the question's words), the signature of the lesson."""

    kind: str
    key: str
    episodes: list[Episode] = field(default_factory=list)

    @property
    def signature(self) -> str:
        return f"{self.kind}:{self.key}"[:200]

    @property
    def sessions(self) -> int:
        return len({e.session for e in self.episodes})


def recent(tree: Mapping[str, str], today: date, days: int = WINDOW) -> list[Episode]:
    """The episodes of the archive files of the last `days` days, oldest first."""
    since = (today - timedelta(days=days)).isoformat()
    out: list[Episode] = []
    for path in sorted(p for p in tree if p.startswith(ARCHIVE) and p.endswith(".jsonl")):
        day = path[len(ARCHIVE) :][:10]
        if day < since:
            continue
        for i, raw in enumerate(textlines.split(tree[path])):
            if len(out) >= MAX_LINES:
                return out
            ep = read(raw, day, i + 1)
            if ep is not None:
                out.append(ep)
    return out


def read(raw: str, day: str, line: int) -> Episode | None:
    """One archive line, leniently (a torn or foreign line is skipped, never an error)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    kind = str(data.get("type") or data.get("kind") or "episode")
    standing, writer = trust_episodes.writer(kind, data)
    texts = tuple(t[:MAX_TEXT] for k in TEXT_FIELDS for t in _strings(data.get(k)))
    errors = [*_strings(data.get("error")), *_strings(data.get("errors"))]
    errors += [m.group(0) for t in texts for m in _ERRORS.finditer(t)]
    errors = [_cut(e) for e in errors]  # the same key from a field as from prose
    keyed = {k: e for e in reversed(errors) if (k := error_key(e))}  # the first spelling wins
    commands = [*_strings(data.get("command")), *_strings(data.get("commands"))]
    commands += [c for t in texts for c in _BACKTICK.findall(t) if _is_command(c)]
    files = [*_strings(data.get("files_touched")), *_strings(data.get("files_changed"))]
    read_ = [*_strings(data.get("files_read")), *_strings(data.get("evidence"))]
    sources = [s for k in ("source", "url", "permalink") for s in _strings(data.get(k))]
    ref = f"{day}#L{line}"
    return Episode(
        ref=ref,
        day=day,
        session=_session(data) or ref,
        standing=standing,
        writer=writer,
        texts=texts,
        question=next(iter([*_strings(data.get("question")), *_strings(data.get("problem"))]), ""),
        outcome=next(iter(_strings(data.get("outcome"))), ""),
        commands=_unique(_command(c) for c in commands),
        errors=tuple(keyed)[:20],
        said=tuple(keyed.values())[:20],
        files=_unique(files),
        read=_unique(read_),
        sources=_unique(sources),
    )


def groups(episodes: Sequence[Episode]) -> list[Group]:
    """Every recurrence among `episodes` with enough distinct sessions, the most sessions first;
    one whose episodes all belong to a recurrence before it is left out (told there)."""
    found = [*_by_error(episodes), *_by_fix(episodes), *_by_question(episodes)]
    ranked = sorted(
        (g for g in found if g.sessions >= MIN_SESSIONS[g.kind]),
        key=lambda g: (-g.sessions, g.kind, g.key),
    )
    kept: list[Group] = []
    for g in ranked:  # the same sessions told once: a fix of an error is the error's lesson
        refs = {e.ref for e in g.episodes}
        if not any(refs <= {e.ref for e in k.episodes} for k in kept):
            kept.append(g)
    return kept


def _by_error(episodes: Sequence[Episode]) -> list[Group]:
    by: dict[str, Group] = {}
    for ep in episodes:
        for err in ep.errors:
            by.setdefault(err, Group("error", err)).episodes.append(ep)
    return list(by.values())


def _by_fix(episodes: Sequence[Episode]) -> list[Group]:
    """Episodes that fixed something in the same file, in overlapping words."""
    by_file: dict[str, list[Episode]] = defaultdict(list)
    for ep in episodes:
        if ep.files and any(FIXED.search(t) for t in ep.texts):
            for f in ep.files:
                by_file[f].append(ep)
    out: list[Group] = []
    seen: set[frozenset[str]] = set()
    for path, eps in sorted(by_file.items()):
        for cluster in _clusters(eps, lambda a, b: len(_fix_words(a) & _fix_words(b)) >= FIX_WORDS):
            refs = frozenset(e.ref for e in cluster)
            if len(cluster) > 1 and refs not in seen:
                seen.add(refs)
                out.append(Group("fix", path, cluster))
    return out


def _by_question(episodes: Sequence[Episode]) -> list[Group]:
    asked = [ep for ep in episodes if len(words(ep.question)) >= 2]
    out = []
    for cluster in _clusters(asked, lambda a, b: _jaccard(words(a.question), words(b.question))):
        if len(cluster) > 1:  # named by its first question: the same name night after night
            out.append(Group("question", " ".join(sorted(words(cluster[0].question))), cluster))
    return out


def _clusters(eps: Sequence[Episode], near: Any) -> list[list[Episode]]:
    """Greedy clusters: an episode joins the first cluster whose first episode it is near."""
    out: list[list[Episode]] = []
    for ep in eps:
        home = next((c for c in out if near(c[0], ep)), None)
        if home is None:
            out.append([ep])
        elif ep not in home:
            home.append(ep)
    return out


def _jaccard(a: frozenset[str], b: frozenset[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= SAME_QUESTION


def _fix_words(ep: Episode) -> frozenset[str]:
    """The words of what a session says it fixed, but the files' own names and the verbs of
    fixing: two fixes of one file share those whatever they did."""
    text = " ".join(t for t in ep.texts if FIXED.search(t))
    said = words(text) | frozenset(_VALUE.findall(text))  # 120, 20.11: what the fix set
    return said - words(" ".join(ep.files).replace("/", " ").replace(".", " ")) - _FIX_VERBS


@lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    """Content words, stemmed (Snowball), stop words left out."""
    found = _WORD.findall(text.lower())
    return frozenset(_STEM.stemWord(w) for w in found if w not in STOP and len(w) > 2)


def error_key(text: str) -> str:
    """An error text as a key: lower case, ids and long numbers as `#`, one line, 120 chars;
    empty when it names no more than "error", or only that something failed or was stopped
    (BENIGN: the generic exit status, an interrupt by hand, git's refusal to push whose reason
    is on another line): those recur in every team's sessions and teach nothing."""
    flat = " ".join(text.split()).strip(" .:;,'\"")
    flat = _NUMBER.sub("#", _HEX.sub("#", flat.lower()))[:120].rstrip()
    if len(words(flat) - _GENERIC_ERRORS) < 1 and not re.search(r"\d", flat):
        return ""
    return "" if _BENIGN.fullmatch(flat) else flat


_TAIL = re.compile(
    r"(?<=\S)[.;,!](?:\s|$)|\s(?:when|while|after|before|because|since|so|and|but|until|"
    r"in|on|during|from|fixed|again|every|each)\s",
    re.I,
)


def _cut(found: str) -> str:
    """An error as matched in prose, without the sentence around it ("…: no module named
    'psycopg2' when the tests ran" → "…: no module named 'psycopg2'")."""
    head, _, rest = found.partition(":")
    if not rest:
        return found
    return f"{head}:{_TAIL.split(rest, maxsplit=1)[0]}".rstrip()


def _is_command(text: str) -> bool:
    first = text.strip().split(" ", 1)[0]
    return first in _PROGRAMS or first.startswith("./")


def _command(text: str) -> str:
    """A command as people recognise it: the program and its subcommand (`git push`,
    `make test`, `pytest`): arguments and paths vary from run to run."""
    parts = text.strip().split()
    head = parts[:1]
    if len(parts) > 1 and re.fullmatch(r"[a-z][\w:-]*", parts[1]):
        head.append(parts[1])
    return " ".join(head)[:60]


def _session(data: Mapping[str, Any]) -> str:
    for key in ("session", "session_id", "thread_ts"):
        value = data.get(key)
        if isinstance(value, str | int) and str(value):
            return f"{data.get('channel', '')}:{value}"
    source = data.get("source")  # a Slack permalink's thread: one thread is one session
    return origin_of(source) if isinstance(source, str) else ""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v for v in value[:50] if isinstance(v, str) and v.strip()]
    return []


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(" ".join(i.split()) for i in items if i and i.strip()))[:20]
