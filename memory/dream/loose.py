"""File claims as people write them: a repository anywhere in an entry and a path anywhere.

"the billing exporter lives at tools/export.py in shopco/payments", "shopco/payments' retry
settings are config/retry.toml", "the release checklist is shopco/site docs/release.md",
"`Makefile` in shopco/site runs the linters", "the payments repo keeps its retries in
config/retry.toml" (when the memory already names shopco/payments).

What is path-like, and why (the corpus in tests/data/claims/ measures these rules):

- a token with a slash whose last part has a file extension ("docs/release.md"), ends in a slash
  ("src/billing/"), has three or more parts ("src/billing/exporters"), or is backticked;
- a bare file name whose extension is a known source or config extension ("retry.toml"),
  except names that are products ("Node.js", "Next.js"), or a well-known bare file name
  ("Makefile", "Dockerfile", "CODEOWNERS");
- never a URL, an e-mail, a PR reference, a version, a date or a fraction ("24/7", "11/30"),
  nor a pair of words ("and/or", "CI/CD", "read/write").

A two-part token without an extension ("shopco/payments") is a repository candidate. Each path
is paired with the nearest repository in the entry; a repository the memory names (`repos`)
wins over an unknown two-part token, and a bare repository name ("payments") counts only when
no owner/repo is written and exactly one known repository has that name (`sure=False`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

_TOKEN = re.compile(r"`[^`\s]+`|[^\s,;()\[\]{}\"<>`]+")
_TRAIL = ".,:;!?'’)"
_SEG = re.compile(r"^\.?[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_DOTFILE = re.compile(r"^\.[a-z][a-z0-9_.-]+$")  # ".nvmrc", ".env.example"; not ".NET"
_EXT = re.compile(r"[A-Za-z0-9_-]\.([A-Za-z][A-Za-z0-9]{0,9})$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Extensions of files people cite: a bare "name.ext" is a path only with one of these, so
# "shopco.com", "config.retry" and "v1.2" stay words.
EXTENSIONS = _words(
    "py pyi md markdown rst txt toml yaml yml json jsonl ini cfg conf env lock js mjs cjs ts tsx "
    "jsx vue svelte go rs rb java kt kts swift scala clj ex exs erl sh bash zsh fish ps1 bat sql "
    "tf tfvars hcl proto graphql gql css scss sass less html htm tmpl j2 jinja xml csv tsv gradle "
    "mk cmake c h cc cpp hpp cs php pl lua r ipynb properties plist dockerfile service"
)
BARE_FILES = _words(
    "makefile dockerfile procfile jenkinsfile codeowners gemfile rakefile justfile brewfile "
    "vagrantfile podfile fastfile appfile matchfile license changelog readme"
)
# "Node.js" is a product, not a file: names people give tools with a file-like suffix.
PRODUCTS = _words(
    "node next nuxt vue react express ember backbone three chart moment d3 socket deno nest "
    "angular alpine svelte solid p5 anime ml5 pixi video web"
)
# Slash pairs of words in prose, never a repository: "and/or", "CI/CD", "read/write".
WORD_PAIRS = _words(
    "and or ci cd on off read write yes no true false i o input output dev prod stg staging "
    "w n a tcp ip km h client server frontend backend front back he she they them his her "
    "before after pass fail start stop up down in out get set open close am pm day night "
    "plus minus ok nok hit miss win loss pros cons src dst from to"
)


@dataclass(frozen=True)
class Found:
    """A path claim found loosely: `span` covers the path as written (backticks excluded)."""

    repo: str
    path: str
    span: tuple[int, int]
    sure: bool


def is_repo_name(token: str) -> bool:
    """`owner/repo`: two name-like parts, no extension on the second, not a pair of words."""
    parts = token.split("/")
    if len(parts) != 2 or not all(_NAME.match(p) for p in parts):
        return False
    owner, name = parts
    if owner.lower() in WORD_PAIRS or name.lower() in WORD_PAIRS:
        return False
    if not any(c.isalpha() for c in owner) or not any(c.isalpha() for c in name):
        return False  # "24/7", "11/30"
    ext = _EXT.search(name)
    return not (ext and ext.group(1).lower() in EXTENSIONS) and not name.endswith(".")


class Token(NamedTuple):
    text: str  # punctuation and possessives ("'s") trimmed off
    start: int
    end: int
    ticked: bool  # written in backticks


class Owner(NamedTuple):
    """A repository named in the text, at `position`; `known` when the memory names it."""

    position: int
    repo: str
    known: bool


class PathAt(NamedTuple):
    start: int
    end: int
    path: str


def _tokens(text: str) -> list[Token]:
    """The text's words that could be paths or repository names, where they stand."""
    out = []
    for m in _TOKEN.finditer(text):
        tok, a = m.group(0), m.start()
        ticked = tok.startswith("`") and tok.endswith("`") and len(tok) > 2
        if ticked:
            tok, a = tok[1:-1], a + 1
        for suffix in ("'s", "’s"):
            if tok.endswith(suffix):
                tok = tok[: -len(suffix)]
        tok = tok.rstrip(_TRAIL)
        if tok.startswith("./"):
            tok, a = tok[2:], a + 2
        if tok:
            out.append(Token(tok, a, a + len(tok), ticked))
    return out


def _is_path(tok: str, ticked: bool) -> bool:
    if "://" in tok or "@" in tok or "#" in tok or ":" in tok or tok.startswith(("www.", "~")):
        return False
    parts = tok.rstrip("/").split("/")
    if not all(_SEG.match(p) for p in parts):
        return False
    if parts[-1].lower() in BARE_FILES:
        return True
    if len(parts) == 1 and tok.endswith("/"):
        return parts[0].lower() not in WORD_PAIRS and parts[0][:1].isalpha()  # "migrations/"
    if len(parts) == 1:
        if _DOTFILE.match(tok):
            return True
        low = tok.lower()
        if low in BARE_FILES:
            return True
        ext = _EXT.search(tok)
        if ext is None or ext.group(1).lower() not in EXTENSIONS:
            return False
        return ticked or low[: -len(ext.group(1)) - 1] not in PRODUCTS
    if not any(c.isalpha() for c in tok):
        return False  # dates and fractions
    ext = _EXT.search(parts[-1])
    if ext is not None:
        return True
    if tok.endswith("/") or ticked:
        return not is_repo_name(tok.rstrip("/")) or tok.endswith("/")
    return len(parts) >= 3 and all(p.lower() not in WORD_PAIRS for p in parts)


class Known:
    """The repositories the memory names, prepared once a dream (thousands of entries ask)."""

    def __init__(self, repos: Iterable[str] = ()) -> None:
        self.lower = {r.lower(): r for r in repos}
        by_name: dict[str, list[str]] = {}
        for repo in self.lower.values():
            by_name.setdefault(repo.split("/", 1)[1].lower(), []).append(repo)
        # bare names that mean one repository only, and long enough to be a name
        self.names = {n: r[0] for n, r in by_name.items() if len(r) == 1 and len(n) >= 3}
        self._bare = re.compile(r"(?<![\w/.-])([\w.-]+)(?![\w/-])")

    def bare(self, text: str) -> list[Owner]:
        """A known repository named by its bare name ("the payments repo"), if only one is."""
        words = ((m.start(), m.group(1).lower().rstrip(".")) for m in self._bare.finditer(text))
        hits = [Owner(at, self.names[w], True) for at, w in words if w in self.names]
        return hits if len({h.repo for h in hits}) == 1 else []


def file_claims(text: str, repos: Iterable[str] | Known = ()) -> list[Found]:
    """Every path in `text` paired with the nearest repository the entry names."""
    if "/" not in text and "." not in text and "`" not in text:
        return []
    prepared = repos if isinstance(repos, Known) else Known(repos)
    known = prepared.lower
    toks = _tokens(text)
    owners: list[Owner] = []
    paths: list[PathAt] = []
    for tok, a, b, ticked in toks:
        low = tok.lower()
        if low in known:
            owners.append(Owner(a, known[low], True))
            continue
        head = "/".join(low.split("/", 2)[:2]) if low.count("/") >= 2 else ""
        split = head if head in known else None
        if split is not None and _is_path(tok[len(split) + 1 :], ticked):
            owners.append(Owner(a, known[split], True))
            paths.append(PathAt(a + len(split) + 1, b, tok[len(split) + 1 :]))
            continue
        ref = tok.split("#", 1)[0]
        if "#" in tok and is_repo_name(ref):  # a PR reference names its repository
            owners.append(Owner(a, known.get(ref.lower(), ref), ref.lower() in known))
        elif is_repo_name(tok) and not ticked and tok.split("/")[1].lower() not in BARE_FILES:
            owners.append(Owner(a, tok, False))
        elif _is_path(tok, ticked):
            paths.append(PathAt(a, b, tok))
    if not paths:
        return []
    # "robots.txt from public/robots.txt": the bare name is the same file, said again
    full = {p.rsplit("/", 1)[-1] for _, _, p in paths if "/" in p}
    paths = [p for p in paths if "/" in p.path or p.path not in full]
    sure = True
    if not owners:
        owners, sure = prepared.bare(text), False
        if not owners:
            return []
    elif any(k for _, _, k in owners):
        owners = [o for o in owners if o.known]  # the memory's repositories over guesses
    out = []
    for a, b, path in paths:
        repo = min(owners, key=lambda o: abs(o[0] - a))[1]
        out.append(Found(repo, path.rstrip("/") if path.count("/") else path, (a, b), sure))
    return out
