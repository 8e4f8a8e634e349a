"""Credentials found by what surrounds them rather than by a prefix of their own: a password in a
URL, a connection string, a command line, a .netrc, a Kubernetes Secret, a key word before a
value. Each check asks memory.secrets.values whether the value is a secret or a placeholder, a
name, code or prose.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import json
import re
from urllib.parse import unquote

from memory.secrets.patterns import SCHEME_CHARS, Check, Detector, back
from memory.secrets.values import (
    entropy,
    is_code,
    is_name,
    names_a_secret,
    password_like,
    placeholder,
    random_looking,
)

# -- a key word, then a value ---------------------------------------------------------------------

# Matched from the key word on (the rest of an identifier may follow, and `"]` of an index),
# then `=`/`:`/`=>`/" is "/" to " or a bare space, then the value, quoted or not (looked ahead
# at, so a value refused, `MAILGUN_API_KEY=…` after `TOKEN=`, is searched for key words too).
_KEYVAL = re.compile(
    r"(?P<key>pass(?:word|wd|phrase)?|pwd|secret|token|credentials?|bearer|key|"
    r"conn(?:ection)?[ _.-]?string|pat(?![a-z]))[a-z0-9_.-]{0,24}[\"'\]]{0,2}"
    r"(?P<sep>\s*(?::=|=>|\|\|=|\?\?=|[:=])\s*|\s+(?:is|was|are|=|to)\s+|\s+)"
    r"(?=(?P<quote>[\"'`]?)(?P<value>[^\s\"'`<>,;]{6,400}))"
)  # lower-case: runs on lower-cased text (Detector.lower)

_KEY_PREFIX = re.compile(
    r"(?i)(?:api|access|auth|account|signing|encryption|master|private|app|application|client|"
    r"sas|storage|hmac|license|subscription|secret|consumer|service|admin|deploy|"
    r"webhook|session|server|shared|root|unseal|cosmos|primary|secondary)[ _.-]?$"
)
_PASSWORD_KEYS = ("pass", "pwd")


def _judge(key: str, sep: str, quote: str, value: str, before: str, config: bool = False) -> bool:
    """`config`: the key word is part of a name (DB_PASSWORD=, mysql_pwd:), so the line is
    configuration, where an unquoted word is as much a value as a quoted one."""
    explicit = bool(sep.strip()) and sep.strip() not in ("to",)
    if key.startswith(_PASSWORD_KEYS):
        if sep.strip() in ("to", "is", "was", "are") and not value[:1].isalnum():
            return False  # "options to pass to :class:`…`": prose runs on
        if sep.strip():
            assigned = sep.strip() in ("=", ":", ":=", "=>")
            return password_like(value, quoted=bool(quote), config=config and assigned)
        return random_looking(value, strict=True)
    if not quote and is_code(value):
        return False
    if key == "key" and not _KEY_PREFIX.search(before):
        # A bare "key" (cache keys, map keys): only an explicit `Key=`/`Key:` of a random value.
        return (
            sep.strip() in ("=", ":", ":=")
            and len(value) >= 16
            and random_looking(value, strict=True)
        )
    return random_looking(value, strict=not explicit, quoted=bool(quote))


_DOC_FIELD = re.compile(r"[:@]param\s+$|:type\s+$")
_NAME_TAIL = re.compile(r"[\w.-]*$")


def _keyval(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    value = text[m.start("value") : m.end("value")]  # the original case, not the lowered
    before = text[max(0, m.start() - 16) : m.start()]
    key, after = m.group("key"), text[m.start() + len(m.group("key")) : m.start() + 5]
    camel = text[m.start()].isupper() and before[-1:].islower()  # dbPass, azureDevopsPat
    if key in ("pat", "pass") and ((before[-1:].isalpha() and not camel) or after[:1].isalpha()):
        return None  # bypass, passive, passed, compat: only PAT and pass as words or name parts
    if _DOC_FIELD.search(before):
        return None  # a docstring's `:param password: the password to use`
    found = _NAME_TAIL.search(before)
    name = (found.group() if found else "") + text[m.start() : m.end("sep") - len(m.group("sep"))]
    name = name.rstrip(".-")
    config = "_" in name or "." in name or (name.isupper() and len(name) > 3)
    ok = _judge(m.group("key"), m.group("sep"), m.group("quote"), value, before, config)
    return (m.start(), m.end("value")) if ok else None


# `- name: API_KEY` then `value: …` (Kubernetes env, GitHub Actions, many YAML lists). The name
# is at most 64 characters either side of its key word: unbounded, each key word of a long name
# (`key`*n) retried the rest of it (quadratic: 5 s for 16 KB).
_NAME_VALUE = re.compile(
    r"name[\"']?\s*[:=]\s*[\"']?(?P<name>[a-z0-9_.-]{0,64}(?:pass|pwd|secret|token|key|credential)"
    r"[a-z0-9_.-]{0,64})[\"']?\s*,?\s*(?:-\s*)?value[\"']?\s*[:=]\s*(?P<quote>[\"']?)(?P<value>[^\s\"',}]{6,400})"
)


def _name_value(text: str, m: re.Match[str]) -> int | None:
    value = text[m.start("value") : m.end("value")]
    name = m.group("name")
    key = "pass" if any(w in name for w in _PASSWORD_KEYS) else "secret"
    return m.start("value") if _judge(key, "=", m.group("quote"), value, "", True) else None


# -- passwords in URLs and connection strings -----------------------------------------------------


def _url_password(text: str, m: re.Match[str]) -> int | tuple[int, int] | None:
    user, password = m.group("user").strip("[]()"), m.group("password").strip("[]()")
    if placeholder(password) or password == user or names_a_secret(password):
        return None  # user:password@host, guest:guest, USER:PASSWORD
    if password.isalpha() and len(password) <= 5:
        return None  # scott:tiger, app:pass: docs' demo accounts, not anyone's password
    if re.search(r"\$\{|\{\{|<[a-z_]+>|%\(|^%s$", password):
        return None  # a template
    if " " in unquote(password):
        return None  # jo%40email.com:a%20secret@…: words, a docs' example
    return back(SCHEME_CHARS)(text, m)


# Delimited password fields: ODBC/ADO.NET `Password=…;`, JDBC `?password=…&`.
_FIELD = re.compile(r"[;?&]\s*(?P<word>password|pwd|passwd)\s*=\s*(?P<value>[^;&\s\"']{1,128})")


def _field(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    value = text[m.start("value") : m.end("value")].strip("[]()")
    return (m.start("word"), m.end()) if password_like(value, quoted=True) else None


# curl -u user:pass, --user, wget --password, docker login -p, mysql -pSECRET: each starts with
# a literal, which `re` finds fast.
_VALUE = r"(?P<value>[^\s\"']{1,128})"
_CLI = [
    r"-(?:u|-user)(?:\s+|=)[\"']?[^\s:\"']{1,64}:" + _VALUE,
    r"--pass(?:word)?(?:\s+|=)[\"']?" + _VALUE,
    r"login\b[^\n|;&]{0,80}?\s-p\s+[\"']?" + _VALUE,
    r"mysql(?:dump|admin)?\b[^\n|;&]{0,80}?\s-p" + _VALUE,
]


def _cli(text: str, m: re.Match[str]) -> int | None:
    if m.start() and not text[m.start() - 1].isspace():
        return None  # an option starts a word
    value = text[m.start("value") : m.end("value")].rstrip("`.,;:)]}")
    return m.start("value") if password_like(value, quoted=True) else None


_NETRC = re.compile(r"machine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(?P<value>\S+)")
_CREDENTIAL_CALL = re.compile(
    r"(?i)NetworkCredential\(\s*@?\"[^\"]*\"\s*,\s*@?\"(?P<value>[^\"]{1,128})\""
)


# -- structured documents -------------------------------------------------------------------------

_K8S_PAIR = re.compile(r"(?<=\s)(?P<key>[\w.-]+):[ \t]+(?P<value>[A-Za-z0-9+/]{4,}={0,2})(?=\s|$)")


@functools.lru_cache(maxsize=1)
def _data_keys(text: str) -> tuple[int, ...]:
    """Where `data:` is in `text`, if it holds a Kubernetes Secret (else none). Found once per
    text, not by a search back per `key: value` pair: that was quadratic (a 2 MiB file of pairs
    under one `data:` took minutes). The cache keeps the last text only."""
    if "kind: Secret" not in text:
        return ()
    return tuple(m.start() for m in re.finditer("data:", text))


def _k8s_secret(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    """A base64 value under `data:` of a Kubernetes Secret: every one is a secret."""
    keys = _data_keys(text)
    at = bisect.bisect_right(keys, m.start() - len("data:")) - 1  # the last `data:` before m
    data = keys[at] if at >= 0 else -1
    if data < 0 or text.startswith("metadata:", data - 4) or len(m.group("value")) % 4:
        return None
    try:
        decoded = base64.b64decode(m.group("value"), validate=True)
    except (binascii.Error, ValueError):
        return None
    return (m.start("key"), m.end()) if decoded else None


def _jwt(text: str, m: re.Match[str]) -> int | None:
    """A JWT's header and claims decode to JSON (a signature may be absent: alg none)."""
    parts = m.group("jwt").split(".")
    try:
        for part in parts[:2]:
            json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return m.start("jwt")


# A JWT: `eyJ` and 8+ token characters, `.eyJ` and 8+, then an optional signature. Matched from
# the start of the run of token characters that holds the header, which the look-ahead first
# checks ends in `.eyJ` and 8 characters: searched from each `eyJ`, a run of `eyJ-eyJ-…` cost
# a pass to its end per `eyJ` (quadratic: 9 s for 128 KB). The header starts at the run's first
# `eyJ` with 8 characters after it, as it did.
_TOKEN = "[0-9A-Za-z_-]"
_JWT = (
    rf"(?<!{_TOKEN})(?={_TOKEN}*+\.eyJ{_TOKEN}{{8}})"
    rf"{_TOKEN}*?(?P<jwt>eyJ{_TOKEN}{{8,}}+\.eyJ{_TOKEN}{{8,}}+(?:\.{_TOKEN}*+)?)"
)


_QUOTED = re.compile(r"[\"'`](?P<value>[A-Za-z0-9+/_=-]{32,})[\"'`]")
_SRI = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2[bs])-")


def _high_entropy(text: str, m: re.Match[str]) -> int | None:
    v = m.group("value")
    if _SRI.match(v):
        return None  # lock-file integrity (SRI) hashes: public digests, not secrets
    mixed = v.lower() != v and v.upper() != v  # upper and lower case: not a hex digest
    if not mixed or is_name(v):
        return None
    return m.start() if entropy(v) >= 4.5 else None


def _d(kind: str, anchors: tuple[str, ...], pattern: str, check: Check | None = None) -> Detector:
    return Detector(kind, anchors, pattern, check)


CONTEXT: list[Detector] = [
    _d(
        "JWT",
        ("eyJ",),
        _JWT,
        _jwt,
    ),
    _d(
        "password in a URL",
        ("://",),
        r"://(?P<user>[^\s/:@]{0,64}):(?P<password>[^\s/]{3,128})@[^\s/@:]+",
        _url_password,
    ),
    Detector(
        "password in a connection string", ("password", "pwd", "passwd"), _FIELD, _field, lower=True
    ),
    _d("password on a command line", ("-u", "--user"), _CLI[0], _cli),
    _d("password on a command line", ("--pass",), _CLI[1], _cli),
    _d("password on a command line", ("login",), _CLI[2], _cli),
    _d("password on a command line", ("mysql",), _CLI[3], _cli),
    Detector(
        "password in a .netrc",
        ("machine",),
        _NETRC,
        lambda text, m: m.start("value") if password_like(m.group("value"), quoted=True) else None,
    ),
    _d(
        "password in NetworkCredential",
        ("networkcredential",),
        _CREDENTIAL_CALL.pattern,
        lambda text, m: m.start("value") if password_like(m.group("value"), quoted=True) else None,
    ),
    _d("Kubernetes Secret data", ("kind: Secret",), _K8S_PAIR.pattern, _k8s_secret),
    Detector(
        "credential after a key word",
        ("pass", "pwd", "secret", "token", "key", "cred", "conn", "bearer", "pat"),
        _KEYVAL,
        _keyval,
        lower=True,
    ),
    Detector("credential in a name/value pair", ("value",), _NAME_VALUE, _name_value, lower=True),
    # detect-secrets' high-entropy strings, in quotes or backticks (unquoted hex and base64 in
    # notes are commit ids and digests far more often than keys).
    Detector("high-entropy string", ('"', "'", "`"), _QUOTED, _high_entropy),
]
