"""`.hippo/checks.yml`: checks a team declares, read and validated (no I/O: the text is given).

A check says what to ask (an HTTP JSON endpoint and a JSON path, a file in a GitHub repository,
a repository's latest release), which entries it applies to (`match`: a regular expression over
the entry's text, optionally only in some files or with some tags) and how the entry's claimed
value is read (the pattern's `value` group). Other named groups fill `{placeholders}` in the URL,
JSON path, repository and path, so one check covers many entries.

A file that does not parse or does not fit the schema is refused whole, each error naming its
line and key and saying what to do; the dream then runs its built-in checks only. So is one too
big once read (memory/format/untrusted.py: aliases, values, nesting; a pattern's length and
counted repeats, which compiling unrolls). Patterns run with a time limit (the `regex`
library's `timeout`): a person's pattern cannot hang a night.
"""

from __future__ import annotations

import dataclasses
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlsplit

import regex
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memory.format import untrusted

PATH = ".hippo/checks.yml"
MAX_BYTES = 64_000
MAX_CHECKS = 50
MAX_GLOBS, MAX_GLOB, MAX_FILE_GLOBS = 20, 200, 100  # a check's paths (and tags), a glob, a file's
PATTERN_SECONDS = 0.05  # per search of one entry (or one file, when filtering files)
VALUE = "value"  # the group holding the value an entry claims
HELP = (
    f"fix {PATH} (docs/DREAMING.md, checks a team declares) and try it with `hippo checks test`; "
    "until then the dream runs its built-in checks only"
)
_JSON_PATH = regex.compile(r"^(?:\$\.)?[^.\[\]]+(?:\[\d+\])*(?:\.[^.\[\]]+(?:\[\d+\])*)*$")
_NAME = r"^[a-z0-9][a-z0-9_.-]*$"
MAX_HEADERS = 10
_HEADER = regex.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$")  # an HTTP field name (RFC 9110)
_ENV = regex.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
# what says how the request travels, not who asks: never set by a check
_FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection", "upgrade", "te"})
REPO = r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$"


def _fields(template: str) -> set[str]:
    """The `{placeholders}` of a template (ValueError on a broken one)."""
    return {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}


class Match(BaseModel):
    """Which entries a check applies to. `pattern` must match the entry's text."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    pattern: str
    # globs of memory files ("services/*.md"); none: every file
    paths: tuple[Annotated[str, Field(max_length=MAX_GLOB)], ...] = Field((), max_length=MAX_GLOBS)
    tags: tuple[str, ...] = Field((), max_length=MAX_GLOBS)  # one of them on the entry; none: any

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            untrusted.check_pattern(value)  # bounded before compiling: counts are unrolled
            regex.compile(value)
        except untrusted.Refused as exc:
            raise ValueError(str(exc)) from exc
        except regex.error as exc:
            raise ValueError(f"not a regular expression ({exc})") from exc
        return value

    @property
    def groups(self) -> set[str]:
        return set(regex.compile(self.pattern).groupindex)


class _Check(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(pattern=_NAME)
    match: Match
    # what a wrong claim leads to: fix (the value is rewritten from what the check saw) or delete
    # (the entry is deleted and tombstoned, within the night's deletion cap)
    on_wrong: Literal["fix", "delete"] | None = None

    def templates(self) -> dict[str, str]:
        return {}

    @model_validator(mode="after")
    def _placeholders(self) -> _Check:
        groups = self.match.groups
        for key, template in self.templates().items():
            try:
                unknown = _fields(template) - groups
            except ValueError as exc:
                raise ValueError(f"{key}: broken {{placeholder}} ({exc})") from exc
            if unknown:
                raise ValueError(
                    f"{key} uses {{{sorted(unknown)[0]}}}, which is not a named group of "
                    "match.pattern: name it (?P<name>…) in the pattern"
                )
        repo = getattr(self, "repo", "{")
        if "{" not in repo and not regex.match(REPO, repo):
            raise ValueError(f"repo must be owner/name, as GitHub spells it (not {repo!r})")
        if self.on_wrong == "fix" and not self.has_value:
            raise ValueError(
                "on_wrong: fix needs a (?P<value>…) group in match.pattern: the part to rewrite"
            )
        return self

    @property
    def has_value(self) -> bool:
        return VALUE in self.match.groups

    @property
    def action(self) -> str:
        return self.on_wrong or ("fix" if self.has_value else "delete")


class HttpJson(_Check):
    """An HTTP JSON endpoint: the value at `json_path` equals the entry's `value`."""

    kind: Literal["http_json"]
    url: str
    json_path: str
    # request header → the name of the environment variable holding its value on the worker
    # (never the value: a secret is not written in the memory; integrations/declared_checks.py
    # sends only variables under HIPPO_CHECK_ENV_PREFIX)
    headers: dict[str, str] = Field(default_factory=dict, max_length=MAX_HEADERS)

    @field_validator("headers")
    @classmethod
    def _headers(cls, value: dict[str, str]) -> dict[str, str]:
        for name, variable in value.items():
            if not _HEADER.match(name) or name.lower() in _FRAMING or name.lower()[:6] == "proxy-":
                raise ValueError(f"headers: {name!r} is not a request header a check may set")
            if not _ENV.match(variable):
                raise ValueError(
                    f"headers.{name}: name the environment variable holding its value (letters, "
                    "digits and _); the value itself is never written in the memory"
                )
        return value

    def templates(self) -> dict[str, str]:
        return {"url": self.url, "json_path": self.json_path}

    @model_validator(mode="after")
    def _shape(self) -> HttpJson:
        fixed = self.url.split("{", 1)[0]
        parts = urlsplit(fixed)
        if parts.scheme not in ("http", "https") or not parts.netloc or "{" in parts.netloc:
            raise ValueError("url must start with http:// or https:// and a host, no placeholder")
        if "{" in self.url and "/" not in fixed[len(parts.scheme) + 3 :]:
            raise ValueError("url: placeholders may only come after the host's first /")
        if not self.has_value:
            raise ValueError("http_json needs a (?P<value>…) group in match.pattern")
        return self


class GitHubFile(_Check):
    """A file in a GitHub repository exists; optionally `contains` a text, or has a line that
    matches `line` (whose `value` group, when the pattern has one, equals the entry's)."""

    kind: Literal["github_file"]
    repo: str
    path: str
    ref: str = ""  # the default branch when empty
    contains: str = ""
    line: str = ""

    def templates(self) -> dict[str, str]:
        return {"repo": self.repo, "path": self.path, "ref": self.ref}

    @model_validator(mode="after")
    def _line(self) -> GitHubFile:
        if self.line:
            try:
                untrusted.check_pattern(self.line)
                groups = set(regex.compile(self.line, regex.MULTILINE).groupindex)
            except (regex.error, untrusted.Refused) as exc:
                raise ValueError(f"line: not a regular expression ({exc})") from exc
            if self.has_value and VALUE not in groups:
                raise ValueError("line needs a (?P<value>…) group: what the entry's value equals")
        elif self.has_value:
            raise ValueError("a (?P<value>…) group needs `line`: the file's line to compare with")
        return self


class GitHubRelease(_Check):
    """A repository's latest release: its tag equals the entry's `value`."""

    kind: Literal["github_release"]
    repo: str

    def templates(self) -> dict[str, str]:
        return {"repo": self.repo}

    @model_validator(mode="after")
    def _value(self) -> GitHubRelease:
        if not self.has_value:
            raise ValueError("github_release needs a (?P<value>…) group in match.pattern")
        return self


Check = Annotated[HttpJson | GitHubFile | GitHubRelease, Field(discriminator="kind")]


class ChecksFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    version: Literal[1] = 1
    checks: tuple[Check, ...] = Field(default=(), max_length=MAX_CHECKS)

    @model_validator(mode="after")
    def _unique(self) -> ChecksFile:
        globs = sum(len(c.match.paths) for c in self.checks)
        if globs > MAX_FILE_GLOBS:  # each is tried against every file, every night
            raise ValueError(f"{globs} match.paths globs in all; at most {MAX_FILE_GLOBS}")
        names = [c.name for c in self.checks]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"check names must be unique: {', '.join(twice)} is used twice")
        return self


@dataclass(frozen=True)
class Resolved:
    """One check as it applies to one entry: placeholders filled from the entry's groups."""

    check: str  # the check's name
    kind: str
    action: str  # fix | delete
    url: str = ""
    json_path: str = ""
    repo: str = ""
    path: str = ""
    ref: str = ""
    contains: str = ""
    line: str = ""
    claimed: str | None = None  # the entry's `value` group; None: the check has none
    headers: tuple[tuple[str, str], ...] = ()  # (header, environment variable), http_json only
    pattern: str = ""  # the check's match.pattern: what a value written into the entry must fit

    @property
    def key(self) -> str:
        where = self.url or (f"{self.repo}:{self.path}" if self.path else self.repo)
        return f"{self.check}:{where}" + (f"#{self.json_path}" if self.json_path else "")


def resolve(check: Check, groups: Mapping[str, str]) -> Resolved:
    """`check` for an entry whose pattern matched with `groups` (URL parts are quoted)."""
    claimed = groups.get(VALUE) if check.has_value else None
    base = Resolved(
        check.name, check.kind, check.action, claimed=claimed, pattern=check.match.pattern
    )
    quoted = {k: quote(v, safe="") for k, v in groups.items()}
    if isinstance(check, HttpJson):
        return _replace(
            base,
            url=check.url.format(**quoted),
            json_path=_fill(check.json_path, groups),
            headers=tuple(sorted(check.headers.items())),
        )
    if isinstance(check, GitHubFile):
        return _replace(
            base,
            repo=_fill(check.repo, groups),
            path=_fill(check.path, groups),
            ref=_fill(check.ref, groups),
            contains=check.contains,
            line=check.line,
        )
    return _replace(base, repo=_fill(check.repo, groups))


def _fill(template: str, groups: Mapping[str, str]) -> str:
    return template.format(**groups) if template else ""


def _replace(base: Resolved, **values: Any) -> Resolved:
    return dataclasses.replace(base, **values)


def json_steps(path: str) -> list[str | int]:
    """`data.items[0].tag` → ['data', 'items', 0, 'tag']; ValueError when it is no JSON path."""
    if not _JSON_PATH.match(path):
        raise ValueError(f"{path!r} is not a JSON path like data.items[0].version")
    steps: list[str | int] = []
    for part in path.removeprefix("$.").split("."):
        name, *indexes = part.split("[")
        steps.append(name)
        steps += [int(i.rstrip("]")) for i in indexes]
    return steps


@dataclass
class Loaded:
    """The declared checks (none when the file is missing or refused) and what was wrong."""

    checks: tuple[Check, ...] = ()
    errors: list[str] = field(default_factory=list)
    present: bool = False


def load(tree: Mapping[str, str]) -> Loaded:
    """The checks `.hippo/checks.yml` declares in `tree`; errors name the line and the key."""
    text = tree.get(PATH)
    if text is None:
        return Loaded()
    if len(text.encode()) > MAX_BYTES:
        return Loaded(errors=[f"{PATH} is over {MAX_BYTES // 1000} KB; {HELP}"], present=True)
    try:
        data, node = untrusted.load_yaml(text)  # aliases, nodes, nesting bounded
    except untrusted.Refused as exc:
        return Loaded(errors=[f"{PATH}: too big to read: {exc}; {HELP}"], present=True)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return Loaded(errors=[f"{PATH}{where}: not YAML ({problem}); {HELP}"], present=True)
    if data is None:
        return Loaded(present=True)
    try:
        parsed = ChecksFile.model_validate(data)
    except ValidationError as exc:
        return Loaded(errors=[_error(e, node) for e in exc.errors()[:10]], present=True)
    return Loaded(parsed.checks, present=True)


def _error(error: Any, node: yaml.Node | None) -> str:
    """One validation error as a person reads it: line, key, what is wrong, what to do."""
    loc = [p for p in error["loc"] if p not in ("http_json", "github_file", "github_release")]
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "top"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{PATH} line {_line(node, loc)}, {key}: {message}; {HELP}"


def _line(node: yaml.Node | None, loc: list[Any]) -> int:
    """The line of the deepest node `loc` reaches (1-based): the key's, or its parent's."""
    line = node.start_mark.line + 1 if node is not None else 1
    for part in loc:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            hit = next(((k, v) for k, v in node.value if k.value == part), None)
            if hit is None:
                break
            line, node = hit[0].start_mark.line + 1, hit[1]
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line
