"""Deterministic claim recognition: the checkable facts in an entry, found by how people write them.

Recognised (anything else is not checkable):

- a pull request or issue, `owner/repo#123` or its github.com URL, with the state the entry
  states nearby (open, merged, closed); without a stated state the claim is that it exists;
- a file in a repository: `owner/repo:path`, "in owner/repo at path", a GitHub blob URL; a
  backticked symbol right before one of those ("`parse()` in owner/repo:src/x.py") is a symbol
  claim on that file;
- a file as people write it: a repository anywhere in the entry (`owner/repo`, or the name of a
  repository the memory already names, `repos=`) and a path-like token anywhere, with or without
  backticks ("the exporter lives at tools/export.py in shopco/payments", "shopco/payments' retry
  settings are config/retry.toml"); see `loose.py` for what is path-like;
- a repository with a state, the word "repo" said: "the repo owner/repo is archived",
  "owner/repo repository is active";
- a cited Slack permalink (in the text or the entry's `source`);
- a URL whose host is on the allow-list (HIPPO_VERIFY_HOSTS);
- a `[[link]]` inside the memory (its target exists);
- what a check the team declares in `.hippo/checks.yml` matches (`declared`: found by
  declared_checks.py, not here).

Each claim carries `span`: the characters of the entry text a fix replaces (the state word, the
path), so a fix changes only what the verifier saw was wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from memory import format as fmt
from memory.dream import loose

if TYPE_CHECKING:  # pydantic and yaml load only where checks are declared
    from memory.dream.checks_file import Resolved

PR, PATH, SYMBOL, REPO, SLACK, URL, LINK = "pr", "path", "symbol", "repo", "slack", "url", "link"
DECLARED = "declared"  # a check of .hippo/checks.yml (memory/dream/declared_checks.py)
KINDS = (PR, PATH, SYMBOL, REPO, SLACK, URL, LINK, DECLARED)

_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]*"
_REPO = rf"{_NAME}/{_NAME}"
_FILE = r"[A-Za-z0-9_.][A-Za-z0-9_./-]*[A-Za-z0-9_]"
_GH = r"https?://(?:www\.)?github\.com"

_PR_URL = re.compile(rf"{_GH}/(?P<repo>{_REPO})/(?P<what>pull|issues)/(?P<num>\d+)")
_PR_REF = re.compile(rf"(?<![\w/.:-])(?P<repo>{_REPO})#(?P<num>\d+)\b")
_BLOB = re.compile(rf"{_GH}/(?P<repo>{_REPO})/(?:blob|tree)/(?P<ref>[^/\s]+)/(?P<path>{_FILE})")
_COLON = re.compile(rf"(?<![\w/.:-])(?P<repo>{_REPO}):(?P<path>{_FILE})")
_EXT = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,9}$")
_IN_AT = re.compile(rf"\bin (?P<repo>{_REPO}) at `?(?P<path>{_FILE})`?")
_SYMBOL = re.compile(
    r"`(?P<sym>[A-Za-z_][A-Za-z0-9_.]*)(?:\(\))?`\s+(?:is\s+)?(?:defined\s+)?in\s+$"
)
# "repo" or "repository" must be said (before or after the name): "config/flags is active" is
# about a folder, not a repository
_REPO_STATE = re.compile(
    rf"(?:(?P<pre>\brepo(?:sitory)?\s+)|\b)(?<![\w/.:#-])(?P<repo>{_REPO})(?![\w/#:-])"
    r"(?P<gap>\s+(?P<post>repo(?:sitory)?\s+)?(?:is|was|has been|got|now|stays|remains|\()?\s*"
    r"(?:still\s+|now\s+)?)(?P<state>archived|active|read-only)\b",
    re.IGNORECASE,
)
_SLACK = re.compile(
    r"https://[a-z0-9-]+\.(?:enterprise\.)?slack\.com/archives/(?P<ch>[A-Z0-9]+)/p(?P<ts>\d{16})[^\s;\]]*"
)
_GH_REPO = re.compile(rf"{_GH}/(?P<repo>{_REPO})(?=[/\s)\].,;]|$)")
_MEMLINK = re.compile(r"\[\[(?P<target>[^\[\]\n]*)\]\]")
_ANY_URL = re.compile(r"https?://[^\s<>()\[\];`'\"]+")
_STATE_WORD = re.compile(r"\b(open|opened|merged|closed|reopened)\b", re.IGNORECASE)
_STATES = {
    "open": "open",
    "opened": "open",
    "reopened": "open",
    "merged": "merged",
    "closed": "closed",
}
_WINDOW = 40  # characters around a PR reference searched for the stated state


@dataclass(frozen=True)
class Claim:
    """One checkable fact in an entry. `span` is what a fix replaces in `entry_text`."""

    kind: str
    text: str  # the claim as written, for evidence and for Claude
    entry_text: str
    span: tuple[int, int]
    repo: str = ""
    number: int = 0
    state: str = ""  # pr: open|merged|closed ('' = exists); repo: archived|active
    path: str = ""
    ref: str = ""  # blob URL's ref
    symbol: str = ""
    url: str = ""
    channel: str = ""
    ts: str = ""
    in_meta: bool = False  # found in the entry's metadata (a cited source), not its text
    # False when the repository was inferred from a bare name ("the payments repo"): a file
    # missing there may mean hippo guessed the wrong repository, so it never deletes the fact
    sure: bool = True
    declared: Resolved | None = None  # the declared check, filled in for this entry

    @property
    def key(self) -> str:
        """What the claim is about, for grouping and for fake verifiers' tables."""
        if self.declared is not None:
            return self.declared.key
        if self.kind == PR:
            return f"{self.repo}#{self.number}"
        if self.kind in (PATH, SYMBOL):
            return f"{self.repo}:{self.path}" + (f"::{self.symbol}" if self.symbol else "")
        if self.kind == REPO:
            return self.repo
        if self.kind == LINK:
            return self.path
        return self.url


def find(
    entry: fmt.Entry | str,
    allowed_hosts: Iterable[str] = (),
    *,
    sources: Iterable[str] = (),
    repos: Iterable[str] | loose.Known = (),
    loose_files: bool = True,
) -> list[Claim]:
    """Every claim in an entry (its text, then its `source` values), in reading order.

    `repos` are the repositories the memory names elsewhere (see `known_repos`): an entry that
    names one of them by its bare name can make file claims about it. `loose_files=False`
    keeps only the explicit file forms (the benchmark's baseline)."""
    if isinstance(entry, fmt.Entry):
        text = entry.text
        sources = [*sources, *entry.get_all("source")]
    else:
        text = entry
    hosts = {h.lower().strip() for h in allowed_hosts if h.strip()}
    found = _Found(text)
    _github_claims(found, repos if loose_files else None)
    _other_claims(found, hosts)
    claims = sorted(found.claims, key=lambda c: c.span)
    return claims + _source_claims(text, sources, hosts)


class _Found:
    """Claims found so far in one text, and the spans they cover: a later, looser pattern
    never claims text an earlier, stricter one took."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.claims: list[Claim] = []
        self.taken: list[tuple[int, int]] = []

    def free(self, a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in self.taken)

    def add(self, claim: Claim, whole: tuple[int, int]) -> None:
        self.claims.append(claim)
        self.taken.append(whole)


def _github_claims(found: _Found, repos: Iterable[str] | loose.Known | None) -> None:
    """Pull requests, files (links, `in repo at path`, loose mentions when `repos` is given)
    and repository states, strictest form first."""
    text, free, add = found.text, found.free, found.add
    for m in _PR_URL.finditer(text):
        add(_pr(text, m, m.group("repo"), int(m.group("num"))), m.span())
    for m in _PR_REF.finditer(text):
        if free(*m.span()):
            add(_pr(text, m, m.group("repo"), int(m.group("num"))), m.span())
    for m in _BLOB.finditer(text):
        if free(*m.span()):
            add(_file(text, m, ref=m.group("ref"), url=m.group(0)), m.span())
    for pattern in (_IN_AT, _COLON):
        for m in pattern.finditer(text):
            if free(*m.span()) and _plausible(m.group("path").rstrip(".")):
                add(_file(text, m), m.span())
    for mention in loose.file_claims(text, repos) if repos is not None else []:
        if free(*mention.span):
            a, b = mention.span
            add(
                Claim(
                    PATH, text[a:b], text, mention.span, repo=mention.repo, path=mention.path,
                    sure=mention.sure,
                ),
                mention.span,
            )  # fmt: skip
    for m in _REPO_STATE.finditer(text):
        if (m.group("pre") or m.group("post")) and free(*m.span("repo")):
            state = m.group("state").lower()
            add(
                Claim(REPO, m.group(0), text, m.span("state"), repo=m.group("repo"), state=state),
                m.span(),
            )


def _other_claims(found: _Found, hosts: set[str]) -> None:
    """Slack links, URLs on allowed hosts, and links to other memory files."""
    text, free, add = found.text, found.free, found.add
    for m in _SLACK.finditer(text):
        if free(*m.span()):
            add(_slack(text, m, in_meta=False), m.span())
    for m in _ANY_URL.finditer(text):
        url = m.group(0).rstrip(".,")
        if free(m.start(), m.start() + len(url)) and _allowed(url, hosts):
            add(Claim(URL, url, text, (m.start(), m.start() + len(url)), url=url), m.span())
    for m in _MEMLINK.finditer(text):
        target = fmt.link_target(m.group("target"))
        if target:
            add(Claim(LINK, m.group(0), text, m.span("target"), path=target), m.span())


def _source_claims(text: str, sources: Iterable[str], hosts: set[str]) -> list[Claim]:
    """Claims cited by the entry's `source` values, after those of its text."""
    claims: list[Claim] = []
    for value in sources:
        for part in value.split(","):
            part = part.strip()
            s = _SLACK.search(part)  # "Slack thread <link>" and "<link> (alice)" cite it too
            if s:
                claims.append(_slack(part, _SLACK.fullmatch(s.group(0)) or s, in_meta=True))
            elif _ANY_URL.fullmatch(part) and _allowed(part, hosts):
                claims.append(Claim(URL, part, text, (0, 0), url=part, in_meta=True))
    return claims


def known_repos(tree: Mapping[str, str]) -> frozenset[str]:
    """The repositories the memory names in a checkable way (a PR, a file, a GitHub URL, "the
    repo owner/repo") or keeps preferences or conventions for: the ones a bare name may mean."""
    found: set[str] = set()
    for path, text in tree.items():
        parts = path.split("/")
        if path.endswith(".md") and len(parts) >= 3 and parts[0] in ("conventions", "preferences"):
            owner_repo = parts[-2:] if parts[0] == "conventions" else parts[2:4]
            if len(owner_repo) == 2 and owner_repo[1].endswith(".md"):
                found.add(f"{owner_repo[0]}/{owner_repo[1][:-3]}")
        if not path.endswith(".md") or path.startswith(("archive/", ".dream/")):
            continue
        if "/" not in text:
            continue
        lowered = text.lower()
        # each pattern only where the text holds the literal it cannot match without (a night
        # reads every file; a search that cannot succeed is the cost of most of them)
        for rx, needs in _REPO_PATTERNS:
            if all(n in lowered for n in needs):
                found.update(m.group("repo") for m in rx.finditer(text))
        # "owner/repo#12", "owner/repo:path": a match holds no whitespace, so only the words
        # holding "/" and the mark are searched (the same matches, a fraction of the text)
        slashed = [w for w in text.split() if "/" in w]
        for rx, mark in ((_PR_REF, "#"), (_COLON, ":")):
            found.update(m.group("repo") for w in slashed if mark in w for m in rx.finditer(w))
        if any(w in lowered for w in _STATE_WORDS):
            found.update(
                m.group("repo")
                for m in _REPO_STATE.finditer(text)
                if m.group("pre") or m.group("post")
            )
    return frozenset(r for r in found if loose.is_repo_name(r))


# (pattern, lower-case literals every match holds)
_REPO_PATTERNS = (
    (_PR_URL, ("github.com",)),
    (_BLOB, ("github.com",)),
    (_IN_AT, ("in ", " at ")),
    (_GH_REPO, ("github.com",)),
)
_STATE_WORDS = ("archived", "active", "read-only")


def _plausible(path: str) -> bool:
    """A file path, not an image tag or a version ("acme/api:latest", "acme/api:1.4.2"): it has a
    folder, or ends in a file extension that starts with a letter."""
    return "/" in path or bool(_EXT.search(path))


def _pr(text: str, m: re.Match[str], repo: str, num: int) -> Claim:
    state, span = "", (m.end(), m.end())
    after = _STATE_WORD.search(text, m.end(), min(len(text), m.end() + _WINDOW))
    before = None
    for b in _STATE_WORD.finditer(text, max(0, m.start() - _WINDOW), m.start()):
        before = b  # the nearest one before the reference
    hit = after if after and not _other_ref_between(text, m.end(), after.start()) else before
    if hit is not None:
        state, span = _STATES[hit.group(1).lower()], hit.span(1)
    return Claim(PR, m.group(0), text, span, repo=repo, number=num, state=state)


def _other_ref_between(text: str, a: int, b: int) -> bool:
    gap = text[a:b]
    return bool(_PR_REF.search(gap) or _PR_URL.search(gap))


def _file(text: str, m: re.Match[str], *, ref: str = "", url: str = "") -> Claim:
    path = m.group("path").rstrip(".")
    span = (m.start("path"), m.start("path") + len(path))
    sym = _SYMBOL.search(text, max(0, m.start() - 80), m.start())
    kind, symbol = (SYMBOL, sym.group("sym")) if sym else (PATH, "")
    return Claim(
        kind,
        m.group(0),
        text,
        span,
        repo=m.group("repo"),
        path=path,
        ref=ref,
        url=url,
        symbol=symbol,
    )


def _slack(text: str, m: re.Match[str], *, in_meta: bool) -> Claim:
    ts = m.group("ts")
    return Claim(
        SLACK,
        m.group(0),
        text,
        m.span(),
        url=m.group(0),
        channel=m.group("ch"),
        ts=f"{ts[:10]}.{ts[10:]}",
        in_meta=in_meta,
    )


def _allowed(url: str, hosts: set[str]) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if not host or host in ("github.com", "www.github.com") or host.endswith("slack.com"):
        return False  # those have their own verifiers
    return any(host == h or host.endswith("." + h) for h in hosts)


_VALUES = {PR: frozenset(_STATES.values()), REPO: frozenset({"archived", "active"})}
_LINK_TARGET = re.compile(r"[^\[\]\s|][^\[\]\n|]*")
_KIND_OF_VALUE = {PATH: re.compile(_FILE), SYMBOL: re.compile(_FILE), URL: _ANY_URL}


def fits(claim: Claim, value: str) -> bool:
    """`value` is a value of `claim`'s own kind, as its pattern reads one: a state word for a
    pull request or repository, a path for a file, a URL, a link target; for a declared check,
    the entry with `value` in place still matches the check's pattern, `value` as its value
    group. Only such a value is written into an entry (a fix) or deletes it (memory/dream/
    verifiers.py: `held`)."""
    if claim.kind in _VALUES:
        return value in _VALUES[claim.kind]
    if claim.kind in _KIND_OF_VALUE:
        return _KIND_OF_VALUE[claim.kind].fullmatch(value) is not None
    if claim.kind == LINK:
        return _LINK_TARGET.fullmatch(value) is not None and value == value.strip()
    if claim.kind == DECLARED and claim.declared is not None and claim.declared.pattern:
        return _declared_fits(claim, value)
    return False


def _declared_fits(claim: Claim, value: str) -> bool:
    import regex  # the declared checks' engine, with their time limit (checks_file.PATTERN_SECONDS)

    a, b = claim.span
    text = claim.entry_text[:a] + value + claim.entry_text[b:]
    try:
        m = regex.search(claim.declared.pattern, text, timeout=0.05)  # type: ignore[union-attr]
    except TimeoutError:
        return False
    return m is not None and "value" in m.groupdict() and m.span("value") == (a, a + len(value))


def apply_fixes(text: str, fixes: Iterable[tuple[Claim, str]]) -> str:
    """`text` with each claim's span replaced by its fix, right to left so spans stay valid."""
    out = text
    for claim, new in sorted(fixes, key=lambda f: f[0].span, reverse=True):
        if claim.in_meta:
            continue
        a, b = claim.span
        if a == b and claim.kind == PR:
            new = f" ({new})"  # a PR claim without a stated state: add the state after it
        out = out[:a] + new + out[b:]
    return out
