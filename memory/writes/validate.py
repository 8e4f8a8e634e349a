"""The rules every string obeys before it reaches git, whichever door it came through.

The write path (memory/git/writer.py) checks a request's commit message, idempotency key, trailers
and author here before the request joins a group commit, and memory/writes/apply.py checks every
operation's paths and texts with the same functions (so the agent's sandbox, which applies
operations itself first, refuses the same things). One write's bad text is its own error: it
never reaches the neighbours it would have been committed with.

Rules: valid Unicode (no lone surrogates), no control characters (tab, and in multi-line text
newlines, allowed), no credentials (memory/secrets/, after removing invisible characters that
could split a token), one size cap for every door, no `Hippo-…:` trailer lines in a message
(hippo's code adds those), and idempotency keys from outside live in the caller's namespace.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from memory import secrets
from memory.errors import InvalidMetadata, InvalidText, SecretFound, TooLarge
from memory.format import parse_entry, render_entry
from memory.format.lint import entry_problems

Meta = tuple[tuple[str, str], ...]

MAX_FILE_BYTES = 2 * 1024 * 1024  # a memory file; the same cap for every door
MAX_ENTRY_CHARS = 8_000  # one entry (text and metadata): a fact, not a document
MAX_MESSAGE_CHARS = 8_000
MAX_KEY_CHARS = 200
MAX_NAME_CHARS = 200  # a title, a trailer value, an author's name
MAX_TRAILER_CHARS = MAX_NAME_CHARS * 10

# C0 controls, DEL and C1 controls. Multi-line text may hold tab, LF and CR; one line only tab.
_CONTROL_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CONTROL_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
_META_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_TRAILER_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9-]*$")
# A line that git (and hippo's key index) would read as one of hippo's own trailers.
_HIPPO_TRAILER = re.compile(r"(?im)^[ \t]*hippo-[a-z0-9-]*[ \t]*:")
_CALLER = re.compile(r"^[a-z][a-z0-9-]*(?::[^\s:]+)?$")


def unicode(what: str, value: str) -> None:
    """InvalidText when `value` cannot be written as UTF-8 (a lone surrogate)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidText(
            what,
            f"is not valid Unicode text (a lone surrogate at character {exc.start}); "
            "send it as UTF-8 text",
        ) from None


def text(what: str, value: str, *, one_line: bool = False, path: str = "") -> None:
    """Valid Unicode, no control characters, no credential."""
    unicode(what, value)
    bad = (_CONTROL_LINE if one_line else _CONTROL_TEXT).search(value)
    if bad is not None:
        kind = "a line break" if bad.group() in "\r\n" else f"control character {bad.group()!r}"
        raise InvalidText(
            what,
            f"contains {kind} at character {bad.start()}; remove it"
            + (" (it must be one line)" if bad.group() in "\r\n" else ""),
        )
    secret(what, value, path)


def secret(what: str, value: str, path: str = "") -> None:
    """SecretFound when `value` holds a credential: memory.secrets.first's answer, the one every
    door gives (`hippo note`, lint, the Slack agent's tools, the dream)."""
    kind = _secret_kind(value) if len(value) <= MEMO_CHARS else _scan(value)
    if kind is not None:
        raise SecretFound(kind, path or what)


MEMO_CHARS = 1_000  # values up to this long have their scan remembered (entries, paths, keys)


def _scan(value: str) -> str | None:
    return secrets.first(value)


# A write's strings are scanned more than once on their way to git (before the request joins a
# group commit, again when it applies to the tip, and dreaming applies its steps to its own
# working tree first), and a night moves thousands of entries: the scan is a pure function of
# the string, so its answer is remembered (bounded: 32,768 values of at most MEMO_CHARS).
_secret_kind = functools.lru_cache(maxsize=32_768)(_scan)


def size(what: str, *parts: str, limit: int = MAX_FILE_BYTES, hint: str = "") -> None:
    """TooLarge when the `parts` together are more than `limit` bytes of UTF-8."""
    if sum(len(p) for p in parts) * 4 <= limit:
        return  # cannot be over: skip encoding
    n = sum(len(p.encode("utf-8", "surrogatepass")) for p in parts)
    if n > limit:
        raise TooLarge(what, n, limit, hint=hint) if hint else TooLarge(what, n, limit)


def entry(text_: str, meta: Sequence[tuple[str, str]], *, path: str) -> None:
    """One entry's text and metadata as strings: Unicode, controls, secrets, keys, size."""
    text(f"an entry for {path}", text_, path=path)
    n = len(text_) + sum(len(k) + len(v) + 4 for k, v in meta)
    if n > MAX_ENTRY_CHARS:
        raise TooLarge(f"an entry for {path}", n, MAX_ENTRY_CHARS, "characters")
    for key, value in meta:
        if not _META_KEY.match(key):
            # A key is written raw into the bracket: ']' or a newline there would forge entries.
            raise InvalidMetadata(
                f"key {key!r} is malformed (keys are a letter, then letters, digits, '-' or '_')",
                path,
            )
        text(f"metadata '{key}' for {path}", value, path=path)
        secret(f"a metadata key for {path}", key, path)


def lint_rules(text_: str, meta: Sequence[tuple[str, str]], *, path: str) -> None:
    """InvalidMetadata for the first rule lint would report on this entry, as the file will
    hold it: rendered, then read back. A text that itself ends in a bracket (a note typed as
    `… [added: yesterday]`) is read back as metadata beside the door's own, so the text and the
    metadata are never checked apart."""
    problems = entry_problems(*read_back(text_, meta), path=path)
    if problems:
        raise InvalidMetadata(problems[0][1], path)


def read_back(text_: str, meta: Sequence[tuple[str, str]]) -> tuple[str, Meta]:
    """The (text, metadata) a reader of the file gets for the entry written as `text_`, `meta`."""
    entry = parse_entry(render_entry(text_, meta))
    return (entry.text, entry.meta) if entry is not None else (text_, tuple(meta))


def commit(
    *,
    message: str,
    key: str | None,
    trailers: Mapping[str, str],
    author_name: str,
    author_email: str,
) -> None:
    """The strings of a commit other than its files: message, key, trailers and author."""
    text("the commit message", message)
    if len(message) > MAX_MESSAGE_CHARS:
        raise TooLarge("the commit message", len(message), MAX_MESSAGE_CHARS, "characters")
    if _HIPPO_TRAILER.search(message):
        raise InvalidText(
            "the commit message",
            "contains a 'Hippo-…:' line; hippo adds those lines itself. Reword that line",
        )
    if key is not None:
        text("the idempotency key", key, one_line=True)
        if not key.strip() or len(key) > MAX_KEY_CHARS:
            raise InvalidText("the idempotency key", f"must be 1 to {MAX_KEY_CHARS} characters")
    for name, value in trailers.items():
        if not _TRAILER_KEY.match(name):
            raise InvalidText(f"trailer {name!r}", "is not a trailer name (letters, digits, '-')")
        text(f"trailer {name}", value, one_line=True)
        if len(value) > MAX_TRAILER_CHARS:
            raise TooLarge(f"trailer {name}", len(value), MAX_TRAILER_CHARS, "characters")
    for what, value in (("the author's name", author_name), ("the author's email", author_email)):
        text(what, value, one_line=True)
        if not value.strip():
            raise InvalidText(what, "is empty")  # git refuses a commit without one
        if len(value) > MAX_NAME_CHARS:
            raise TooLarge(what, len(value), MAX_NAME_CHARS, "characters")
        if any(c in value for c in "<>"):
            raise InvalidText(what, "may not contain '<' or '>'")


def external_key(caller: str, key: str | None) -> str | None:
    """An idempotency key given by an outside caller, in that caller's namespace
    (`caller` is e.g. "cli" or "mcp:<token name>"), so it can never claim a key hippo's own
    code uses (`revert:…`, `dream:…`, Slack event ids) or another caller's."""
    if key is None or not key.strip():
        return None
    text("the idempotency key", key, one_line=True)
    if len(key) > MAX_KEY_CHARS:
        raise InvalidText("the idempotency key", f"must be at most {MAX_KEY_CHARS} characters")
    if not _CALLER.match(caller):
        raise InvalidText("the caller's name", f"{caller!r} cannot name a key namespace")
    return f"ext:{caller}:{key.strip()}"
