"""The verifier of the checks a team declares in `.hippo/checks.yml` (memory/dream/checks_file.py).

`http_json` fetches through integrations/safe_http.py, the same SSRF guard as the HTTP status
checks: every hop on HIPPO_VERIFY_HOSTS, no private address unless HIPPO_VERIFY_PRIVATE names it,
5 redirects, 10 s per connection and read, 30 s per URL, and at most 1 MB of JSON. `github_file`
and `github_release` ask GitHub's API through the app or token hippo already uses. Each answer is
fetched once a night (per URL, per file, per repository) however many entries it checks.

As for the built-in verifiers, only an answer can make an entry wrong: an outage, a refused URL,
a missing JSON key or a repository hippo cannot see is "not checkable" and never deletes.

An `http_json` check may send request headers whose values are environment variables of the
worker (`Credentials`): only those under HIPPO_CHECK_ENV_PREFIX, so a memory cannot have
SLACK_BOT_TOKEN sent anywhere. A variable outside the prefix or not set is a failed check; an
answer that holds a value sent is a failed check too (nothing of it is written or shown). No
value is ever put in evidence, errors or logs: they name the variable.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import regex
import requests
from github import Github, GithubException, UnknownObjectException
from github.Repository import Repository

from integrations.safe_http import Fetcher, Policy, Refused
from memory.dream.checkable_claims import DECLARED, Claim
from memory.dream.checks_file import PATTERN_SECONDS, VALUE, Resolved, json_steps
from memory.dream.verifiers import NOT_CHECKABLE, Verdict

ClientFor = Callable[[str], Github]
MAX_VALUE = 200  # characters of a value written into an entry
_MISSING, _FOLDER, _UNREADABLE = object(), object(), object()
MIN_SECRET = 6  # a part of a sent value this long found in an answer counts as the value


@dataclass(frozen=True)
class Credentials:
    """What declared checks may send as headers: the worker's environment variables under
    `prefix` (HIPPO_CHECK_ENV_PREFIX; empty: none), read once with the configuration."""

    prefix: str = ""
    values: Mapping[str, str] = field(default_factory=dict, repr=False)

    def headers(self, wanted: tuple[tuple[str, str], ...]) -> dict[str, str] | str:
        """Header → value for `wanted` (header, variable) pairs; else why not, naming the
        variable (never a value)."""
        sent = {}
        for header, variable in wanted:
            if not self.prefix or not variable.startswith(self.prefix):
                allowed = f"under {self.prefix}" if self.prefix else "(none: no prefix is set)"
                return (
                    f"header {header} asks for ${variable}, not a variable checks may send "
                    f"{allowed}; the operator opts a prefix in with HIPPO_CHECK_ENV_PREFIX"
                )
            value = self.values.get(variable, "")
            if not value:
                return f"header {header} needs ${variable}, which is not set on the worker"
            sent[header] = value
        return sent


def _holds(text: str, sent: Iterable[str]) -> bool:
    """Whether `text` holds a sent value or a long enough part of one (a token after 'Bearer ')."""
    for value in sent:
        parts = [value, *value.split()]
        if any(len(p) >= MIN_SECRET and p in text for p in parts):
            return True
        if len(text.strip()) >= MIN_SECRET and text.strip() in value:
            return True
    return False


def _failed(why: str) -> Verdict:
    return Verdict(NOT_CHECKABLE, f"not checked: {why}", failed=True)


class DeclaredVerifier:
    """Answers `declared` claims; `hosts`/`private` as HIPPO_VERIFY_HOSTS/_PRIVATE, `client_for`
    as the GitHub verifier's (None: GitHub is not configured)."""

    name = "declared"
    kinds = frozenset({DECLARED})

    def __init__(
        self,
        *,
        hosts: Iterable[str] = (),
        private: Iterable[str] = (),
        client_for: ClientFor | None = None,
        timeout: float = 10.0,
        credentials: Credentials | None = None,
    ) -> None:
        hosts = tuple(hosts)
        self.credentials = credentials or Credentials()
        self.fetcher = Fetcher(Policy(hosts, tuple(private), timeout=timeout)) if hosts else None
        self._client_for = client_for
        # (url, headers asked) → (document | _MISSING, why)
        self._json: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[Any, str]] = {}
        self._repos: dict[str, Repository | str] = {}  # name → repository | why not
        self._files: dict[tuple[str, str, str], object] = {}  # (repo, ref, path) → text…
        self._releases: dict[str, str | None] = {}  # repo → latest tag, None: none published

    def check(self, claim: Claim) -> Verdict:
        r = claim.declared
        if r is None:
            return Verdict.unknown("not a declared check")
        verdict = self._http(r) if r.kind == "http_json" else self._github(r)
        return dataclasses.replace(verdict, verifier=f"check {r.check}")

    # --- http_json ---------------------------------------------------------------------------

    def _http(self, r: Resolved) -> Verdict:
        if self.fetcher is None:
            return Verdict.unknown(f"not checked: HIPPO_VERIFY_HOSTS is not set ({r.url})")
        sent = self.credentials.headers(r.headers)
        if isinstance(sent, str):
            return _failed(f"{sent} ({r.url})")
        key = (r.url, r.headers)
        if key not in self._json:
            self._json[key] = self._fetch(r.url, sent)
        document, why = self._json[key]
        if document is _MISSING:
            return Verdict.unknown(why)
        try:
            actual = _at(document, json_steps(r.json_path))
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            return Verdict.unknown(f"{r.url} has no {r.json_path} ({exc})")
        if sent and _holds(_text(actual) or "", sent.values()):
            return _failed(f"{r.url} {r.json_path} holds a value this check sends; nothing shown")
        return _compare(r, actual, f"{r.url} {r.json_path}")

    def _fetch(self, url: str, headers: dict[str, str]) -> tuple[Any, str]:
        assert self.fetcher is not None
        try:
            answer, document = self.fetcher.get_json(url, headers=headers)
        except Refused as exc:
            return _MISSING, f"not checked: {exc}"
        except requests.RequestException as exc:
            return _MISSING, f"{url} could not be fetched: {type(exc).__name__}"
        except ValueError as exc:
            return _MISSING, f"{url} did not answer JSON ({exc})"
        if answer.status >= 300:
            return _MISSING, f"{url} answers {answer.status}"
        return document, ""

    # --- github_file, github_release -----------------------------------------------------------

    def _github(self, r: Resolved) -> Verdict:
        if self._client_for is None:
            return Verdict.unknown(f"not checked: GitHub is not configured ({r.repo})")
        try:
            repo = self._repo(r.repo)
            if isinstance(repo, str):
                return Verdict.unknown(repo)
            if r.kind == "github_release":
                return self._release(repo, r)
            return self._file(repo, r)
        except GithubException as exc:
            return Verdict.unknown(f"GitHub answered {exc.status} for {r.repo}")

    def _repo(self, name: str) -> Repository | str:
        if name not in self._repos:
            assert self._client_for is not None
            try:
                self._repos[name] = self._client_for(name.split("/", 1)[0]).get_repo(name)
            except UnknownObjectException:  # gone, or hidden from hippo's token: never deletes
                self._repos[name] = f"{name} is not visible to hippo's GitHub access"
        return self._repos[name]

    def _release(self, repo: Repository, r: Resolved) -> Verdict:
        if r.repo not in self._releases:
            try:
                self._releases[r.repo] = str(repo.get_latest_release().tag_name)
            except UnknownObjectException:
                self._releases[r.repo] = None
        tag = self._releases[r.repo]
        if tag is None:
            return Verdict.unfixable(f"{r.repo} has no published release")
        return _compare(r, tag, f"{r.repo}'s latest release")

    def _file(self, repo: Repository, r: Resolved) -> Verdict:
        ref = r.ref or repo.default_branch
        key = (r.repo, ref, r.path)
        if key not in self._files:
            try:
                content = repo.get_contents(r.path, ref=ref)
            except UnknownObjectException:
                self._files[key] = None
            else:
                self._files[key] = _decoded(content)
        text = self._files[key]
        where = f"{r.repo}:{r.path} on {ref}"
        if text is None:
            return Verdict.unfixable(f"{where} does not exist")
        if not isinstance(text, str):  # a folder, or a file too large for the contents API
            what = "a folder" if text is _FOLDER else "too large to read through GitHub's API"
            if r.contains or r.line:
                return Verdict.unknown(f"{where} is {what}")
            return Verdict.true(f"{where} exists ({what})")
        if r.contains and r.contains not in text:
            return Verdict.unfixable(f"{where} does not contain {r.contains!r}")
        if not r.line:
            return Verdict.true(
                f"{where} exists" + (f" and holds {r.contains!r}" if r.contains else "")
            )
        try:
            m = regex.search(r.line, text, regex.MULTILINE, timeout=PATTERN_SECONDS)
        except TimeoutError:
            return Verdict.unknown(f"the line pattern took too long on {where}")
        if m is None:
            return Verdict.unfixable(f"no line of {where} matches {r.line!r}")
        if r.claimed is None:
            return Verdict.true(f"{where} has the line {m.group(0).strip()!r}")
        return _compare(r, m.group(VALUE), f"{where} line {text.count(chr(10), 0, m.start()) + 1}")


def _decoded(content: Any) -> str | object:
    """The file's text; _FOLDER, or _UNREADABLE when GitHub sent no content (over 1 MB)."""
    if isinstance(content, list):
        return _FOLDER
    raw = getattr(content, "content", None) or ""
    if not raw and (getattr(content, "size", 0) or 0) > 0:
        return _UNREADABLE
    return base64.b64decode(raw).decode("utf-8", "replace")


def _at(document: Any, steps: list[str | int]) -> Any:
    for step in steps:
        if isinstance(step, int) and not isinstance(document, list):
            raise TypeError(f"[{step}] on a {type(document).__name__}")
        if isinstance(step, str) and not isinstance(document, dict):
            raise TypeError(f".{step} on a {type(document).__name__}")
        document = document[step]
    return document


def _text(value: Any) -> str | None:
    """A JSON scalar as an entry writes it; None for an object, a list or null."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    return None


def _same(claimed: str, actual: str) -> bool:
    a, b = claimed.strip(), actual.strip()
    if a == b:
        return True
    try:
        return float(a) == float(b)  # "3" and 3.0
    except ValueError:
        return False


def _compare(r: Resolved, value: Any, where: str) -> Verdict:
    """The entry's value against what the check saw: true, else fix or delete as declared."""
    actual = _text(value)
    if actual is None:
        return Verdict.unknown(f"{where} is {type(value).__name__}, not a single value")
    claimed = r.claimed or ""
    if _same(claimed, actual):
        return Verdict.true(f"{where} is {actual!r}")
    seen = f"{where} is {actual!r}, not {claimed!r}"
    writable = actual.strip() and len(actual) <= MAX_VALUE and not any(c in actual for c in "\n[]")
    if r.action == "fix" and writable:
        return Verdict.fixable(actual.strip(), seen)
    if r.action == "fix":
        return Verdict.unknown(f"{seen}; that value cannot be written into an entry")
    # the value seen goes with the verdict: memory/dream/verifiers.py deletes on it only when it
    # is a value the check's own pattern takes
    return dataclasses.replace(Verdict.unfixable(seen), seen=actual.strip())
