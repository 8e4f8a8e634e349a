"""The checks a team declares (`.hippo/checks.yml`, read by checks_file.py) turned into claims.

An entry a check's `match` selects becomes one `declared` claim, whose span is the entry's
`value` group: a fix from the check rewrites only that. The claims go through the dream's usual
path (verifiers, then fix, delete within the cap, or keep: corrections.py); the verifier that
answers them, with network I/O, is integrations/declared_checks.py. `preview` is the dry run
(`hippo checks test`): which entries each check matches and what the dream would do with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Protocol

import regex

from memory import format as fmt
from memory.dream import checkable_claims as cl
from memory.dream.checks_file import PATTERN_SECONDS, REPO, VALUE, Check, load, resolve
from memory.dream.context import is_topic
from memory.dream.verifiers import FIXABLE, TRUE, UNFIXABLE, Verdict, Verifiers
from memory.format import tags as tagging
from memory.notes import INBOX

MAX_QUOTE = 100
MAX_TIMEOUTS = 3
_REPO = regex.compile(REPO)


class Declared:
    """Declared checks, compiled once for a night. `problems` lists what went wrong with the
    file (the digest shows them); a check whose pattern ran out of time MAX_TIMEOUTS times is
    skipped for the rest of the night and added there."""

    def __init__(self, checks: Sequence[Check], problems: list[str] | None = None) -> None:
        self.checks = tuple(checks)
        self.problems = problems if problems is not None else []
        self._patterns = {c.name: regex.compile(c.match.pattern) for c in self.checks}
        # The same patterns over a whole file's entries, one per line: `^` and `$` hold at each
        # entry's ends, so whatever matches one entry matches there too (a cheap first pass; a
        # pattern anchored to the whole string, \A or \Z, has none).
        self._wide = {
            c.name: regex.compile(c.match.pattern, regex.MULTILINE)
            for c in self.checks
            if not any(a in c.match.pattern for a in ("\\A", "\\Z", "\\z"))
        }
        self.timeouts: dict[str, int] = {}  # check → searches stopped by the time limit

    def __bool__(self) -> bool:
        return bool(self.checks)

    def _search(self, check: Check, text: str, *, wide: bool = False) -> regex.Match[str] | None:
        if self.timeouts.get(check.name, 0) >= MAX_TIMEOUTS:
            return None
        pattern = self._wide[check.name] if wide else self._patterns[check.name]
        try:
            return pattern.search(text, timeout=PATTERN_SECONDS)
        except TimeoutError:
            n = self.timeouts[check.name] = self.timeouts.get(check.name, 0) + 1
            if n == MAX_TIMEOUTS:
                self.problems.append(
                    f"check {check.name}: match.pattern ran out of time {n} times and was "
                    "skipped for the rest of the night; make it simpler (no nested repeats)"
                )
            return None

    def selects(self, path: str, entries: Iterable[fmt.Entry]) -> bool:
        """Some check selects one of `entries` of the file `path` (entry by entry: a pattern
        is written for one entry's text, `^` and `$` included)."""
        checks = [c for c in self.checks if _in_paths(c, path)]
        if not checks:
            return False
        entries = list(entries)
        lines = "\n".join(e.text for e in entries)
        checks = [
            c for c in checks if c.name not in self._wide or self._search(c, lines, wide=True)
        ]
        return bool(checks) and any(self.claims(path, e, checks) for e in entries)

    def claims(
        self, path: str, entry: fmt.Entry, checks: Sequence[Check] | None = None
    ) -> list[cl.Claim]:
        """One claim per check (of `checks`, default all) that selects `entry` of `path`."""
        found: list[cl.Claim] = []
        for check in self.checks if checks is None else checks:
            if not _in_paths(check, path) or not _tagged(check, entry):
                continue
            m = self._search(check, entry.text)
            if m is None:
                continue
            groups = {k: v for k, v in m.groupdict().items() if v is not None}
            if check.has_value and VALUE not in groups:
                continue  # the value group did not take part in the match: nothing claimed
            if not all(_safe(v) for k, v in groups.items() if k != VALUE):
                continue  # an entry (an agent's too) must not steer a check to another path
            span = m.span(VALUE) if check.has_value else m.span()
            r = resolve(check, groups)
            if r.repo and not _REPO.match(r.repo):
                continue
            found.append(
                cl.Claim(
                    cl.DECLARED, m.group(0), entry.text, span,
                    repo=r.repo, path=r.path, ref=r.ref, url=r.url, declared=r,
                )
            )  # fmt: skip
        return found


def _safe(value: str) -> bool:
    """A placeholder's value stays one part of a URL, path or name: no '..', no '?', '#', '\\',
    no leading '/', nothing unprintable."""
    return (
        ".." not in value
        and not value.startswith("/")
        and not any(c in value for c in "?#\\")
        and value.isprintable()
    )


def tonight(tree: Mapping[str, str]) -> tuple[Declared, list[str]]:
    """The checks `tree` declares, and the errors that made the dream ignore its checks file."""
    declared = Declared((loaded := load(tree)).checks, loaded.errors)
    return declared, declared.problems


def _in_paths(check: Check, path: str) -> bool:
    return not check.match.paths or any(fnmatchcase(path, g) for g in check.match.paths)


def _tagged(check: Check, entry: fmt.Entry) -> bool:
    if not check.match.tags:
        return True
    wanted = {tagging.key(t) for t in check.match.tags}
    return any(tagging.key(t) in wanted for t in tagging.of(entry))


class _Checker(Protocol):  # corrections.Checker (which imports this module)
    def check(self, path: str, entry: fmt.Entry) -> list[tuple[cl.Claim, Verdict]]: ...


class WithDeclared:
    """A checker (Claude's) plus the declared checks: Claude reads the entry for the built-in
    kinds; what the team declared is matched in code and verified the same way."""

    def __init__(self, inner: _Checker, declared: Declared, verifiers: Verifiers) -> None:
        self.inner = inner
        self.declared = declared
        self.verifiers = verifiers

    def check(self, path: str, entry: fmt.Entry) -> list[tuple[cl.Claim, Verdict]]:
        pairs = self.inner.check(path, entry)
        return pairs + self.verifiers.check_all(self.declared.claims(path, entry))


def checked_files(tree: Mapping[str, str]) -> list[str]:
    """The files the dream's corrections read: the topics and the inbox."""
    return sorted(p for p in tree if is_topic(p) or p == INBOX)


@dataclass(frozen=True)
class Row:
    """One entry a check matched, what the check saw and what the dream would do."""

    check: str
    path: str
    entry: str
    verdict: Verdict
    outcome: str


def matches(
    declared: Declared, tree: Mapping[str, str]
) -> Iterator[tuple[str, fmt.Entry, cl.Claim]]:
    """Every (path, entry, claim) the declared checks select in `tree`, file by file."""
    for path in checked_files(tree):
        if not any(_in_paths(c, path) for c in declared.checks):
            continue
        for entry in fmt.parse(tree[path]).entries:
            for claim in declared.claims(path, entry):
                yield path, entry, claim


@dataclass
class Preview:
    """The dry run's findings: entries matched per check (all of them) and the rows checked."""

    matched: dict[str, int]
    rows: list[Row]


def preview(
    declared: Declared, tree: Mapping[str, str], verifiers: Verifiers, *, limit: int
) -> Preview:
    """The dry run: every match counted, the first `limit` checked; nothing is written."""
    found = Preview({c.name: 0 for c in declared.checks}, [])
    for path, entry, claim in matches(declared, tree):
        name = claim.declared.check if claim.declared else "?"
        found.matched[name] = found.matched.get(name, 0) + 1
        if len(found.rows) < limit:
            verdict = verifiers.check(claim)
            found.rows.append(Row(name, path, entry.text, verdict, outcome(claim, verdict)))
    return found


def outcome(claim: cl.Claim, verdict: Verdict) -> str:
    """What the dream's corrections step would do with an entry on this verdict alone."""
    if verdict.status == TRUE:
        return "verified: the entry is kept and marked verified"
    if verdict.status == FIXABLE and verdict.fix is not None:
        new = cl.apply_fixes(claim.entry_text, [(claim, verdict.fix)])
        return f"would fix: {_quote(claim.entry_text)} → {_quote(new)}"
    if verdict.status == UNFIXABLE:
        return "would delete it and tombstone it in forgotten.md (within the night's deletion cap)"
    return "not checkable: kept, its file listed as unverified"


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= MAX_QUOTE else flat[: MAX_QUOTE - 1] + "…")
