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

# Matched from the key word on (the rest of an identifier may follow, and `"]` of an index or
# `[]`), then a separator, then the value, quoted or not (looked ahead at, so a value refused,
# `MAILGUN_API_KEY=…` after `TOKEN=`, is searched for key words too). The separators are every
# assignment the studied scanners' tests write (issue 41): `=`, `:`, `:=`, `::=`, `?=`, `+=`,
# `.=`, `=>`, `||=`, `??=`, `[]=`, a YAML block (`: |` and a new line), an XML element's `>`, a
# call's `(` or `,`, a JS default (`??`, `||`), trufflehog's ` - `, a type (`token string =`,
# `token: String =`), prose ("is", "was", "for staging is") or a bare space.
_TYPE = r"(?:\s*:?\s*(?:string|str)(?=\s*:?=))?"
_SEP = (
    r"(?P<sep>" + _TYPE + r"\s*(?::{1,3}=|=>|\|\|=|\?\?=|[?+.]=|\[\]\s*=|[:=])\s*(?:[|>][-+]?\s+)?"
    r"|\s*(?:\?\?|\|\|?|>|,)\s*|\(\s*|\s+-\s+|(?<=[\"'])"
    r"|(?:\s+(?:for|of|in|on)\s+[\w.-]{1,20}){0,2}\s+(?:is|was|are|=|to)\s+|\s+)"
)
_KEYVAL = re.compile(
    r"(?P<key>pass(?:word|wd|phrase)?|pwd|secret|token|cred(?:ential)?s?|bearer|key|auth(?![a-z])|"
    r"conn(?:ection)?[ _.-]?string|pat(?![a-z]))[a-z0-9_.-]{0,24}[\"'\]\[]{0,3}"
    + _SEP
    + r"(?=(?:@(?=[\"']))?(?P<quote>[\"'`]{0,2})(?P<value>[^\s\"'`<>,;]{6,400}))"
)  # lower-case: runs on lower-cased text (Detector.lower)

_KEY_PREFIX = re.compile(
    r"(?i)(?:api|access|auth|account|signing|encryption|master|private|app|application|client|"
    r"sas|storage|hmac|license|subscription|secret|consumer|service|admin|deploy|"
    r"webhook|session|server|shared|root|unseal|cosmos|primary|secondary)[ _.-]?$"
)
# Keys that name no secret: a database's, a cache's, a map's, a public or key-id one.
_KEY_DENY = re.compile(
    r"(?i)(?<![a-z])(?:public|pub|foreign|sort|partition|cache|idempotency|hash|lookup|row|dedupe?|map|"
    r"dict|object|bucket|registry|group|routing|shard|issuer|natural|composite|unique|index|"
    r"ssh|gpg|pgp|host|license|product|cd|music|piano|the|a|any|each|one|no|this|your|my)[ _.-]?$"
)
_PASSWORD_KEYS = ("pass", "pwd")
# After "password" and a space: both cases and a digit (wil8822VEL), not a word or a version.
_MIXED_PASSWORD = re.compile(r"(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])(?=\D*\d)[A-Za-z0-9!@#$%^&*]{8,64}")
_PROSE = ("to", "is", "was", "are")


def _judge(key: str, sep: str, quote: str, value: str, before: str, config: bool = False) -> bool:
    """`config`: the key word is part of a name (DB_PASSWORD=, mysql_pwd:), so the line is
    configuration, where an unquoted word is as much a value as a quoted one."""
    op = sep.strip()
    prose = op.split()[-1:] in (["to"], ["is"], ["was"], ["are"])
    explicit = bool(op) and op != "to"
    if key.startswith(_PASSWORD_KEYS):
        if prose and not value[:1].isalnum():
            return False  # "options to pass to :class:`…`": prose runs on
        if op in (",", "(") and not quote:  # a call's next argument: f(password, timeout=3)
            return random_looking(value, strict=True) or bool(_MIXED_PASSWORD.fullmatch(value))
        if op:
            setting = config and not prose and op not in ("+=", ".=")
            return password_like(value, quoted=bool(quote), config=setting)
        if quote in ('"', "'"):
            return password_like(value, quoted=True)  # `password "…";`
        return random_looking(value, strict=True) or _MIXED_PASSWORD.fullmatch(value) is not None
    if not quote and is_code(value):
        return False
    if key == "key" and not _KEY_PREFIX.search(before):
        # A bare "key" (cache keys, map keys, a monkey): only a long random value, and after a
        # space only a longer one.
        if _KEY_DENY.search(before) or len(value) < 16:
            return False
        return random_looking(value, strict=True, quoted=bool(quote)) and (
            explicit or len(value) >= 24
        )
    return random_looking(value, strict=not explicit and not quote, quoted=bool(quote))


_DIGEST_NAME = re.compile(r"(?i)(?:checksum|hash|digest|sha\d*|md5|fingerprint)[/_.-]?\Z")
_NOT_A_SECRET_NAME = re.compile(
    r"(?i)(?:_?ids?|names?|type|file|path|url|uri|endpoint|length|size|count|version|provider|"
    r"field|header|ttl|expir\w*|timeout|policy|scope|audience|rotation|format|prefix|mode|ref|"
    r"label|description|hint|source|store|manager|vault|arn|location|env|var|variable)\Z"
)
_INNER_KEY = re.compile(r"(?i)pass|pwd|secret|token|cred")
_DOC_FIELD = re.compile(r"[:@]param\s+$|:type\s+$")
_NAME_TAIL = re.compile(r"[\w.-]*\Z")


def _keyval(text: str, m: re.Match[str]) -> tuple[int, int] | None:
    value = text[m.start("value") : m.end("value")]  # the original case, not the lowered
    quote = m.group("quote")
    closing = text[m.end("value") : m.end("value") + 1]
    if quote and ((len(quote) == 2 and quote[0] == quote[1]) or closing not in (quote[-1], "")):
        return None  # "".join(…), or a quote that does not close the value: not one string
    before = text[max(0, m.start() - 16) : m.start()]
    key, after = m.group("key"), text[m.start() + len(m.group("key")) : m.start() + 5]
    camel = text[m.start()].isupper() and before[-1:].islower()  # dbPass, azureDevopsPat
    if key in ("pat", "pass") and ((before[-1:].isalpha() and not camel) or after[:1].isalpha()):
        return None  # bypass, passive, passed, compat: only PAT and pass as words or name parts
    if key in ("key", "auth") and before[-1:].isalpha() and not camel:
        named = before.lower().endswith(("api", "priv", "access", "secret", "private", "client"))
        inner = _INNER_KEY.search(text, m.start() + len(key), m.end("sep") - len(m.group("sep")))
        if not named and inner is None:
            return None  # monkey, hotkey, oauth (apikey, privkey, accesskey are names)
        key = inner.group().lower() if inner is not None else key  # theauth_token
    if _DOC_FIELD.search(before) or _DIGEST_NAME.search(before):
        return None  # a docstring's `:param password: …`; Helm's `checksum/secret: <sha256>`
    keyname = text[m.start() : m.end("sep") - len(m.group("sep"))].rstrip("\"'[]")
    if _NOT_A_SECRET_NAME.search(keyname):
        return None  # credentialsId, token_url, secret_name, key_file, password_length
    found = _NAME_TAIL.search(before)
    name = (found.group() if found else "") + text[m.start() : m.end("sep") - len(m.group("sep"))]
    name = name.rstrip(".-")
    config = "_" in name or "." in name or (name.isupper() and len(name) > 3)
    ok = _judge(key, m.group("sep"), m.group("quote"), value, before, config)
    return (m.start(), m.end("value")) if ok else None


# `- name: API_KEY` then `value: …` (Kubernetes env, GitHub Actions, many YAML lists). The name
# is at most 64 characters either side of its key word: unbounded, each key word of a long name
# (`key`*n) retried the rest of it (quadratic: 5 s for 16 KB).
_NAME_VALUE = re.compile(
    r"(?:name|key)[\"']?\s*[:=]\s*[\"']?(?P<name>[a-z0-9_.-]{0,64}(?:pass|pwd|secret|token|key|cred|pat(?!h))"
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
    if len(password) < 3 or re.match(r"\d+/", password):
        return None  # host:8080/path@…: a port and a path, no password
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
    r"(?:networkcredential|directoryentry)\(\s*(?:@?\"[^\"\n]*\"\s*,\s*){1,2}@?\"(?P<value>[^\"]{1,128})\""
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
_HEX = re.compile(r"[0-9a-f]{32,128}|[0-9A-F]{32,128}")
# Words before a quoted hex string that make it a digest or an identifier, not a key: lock
# files' checksums and commit references, ETags, object and trace ids.
_DIGEST_CONTEXT = re.compile(
    r"(?i)(?:checksum|hash|sha\d*|md5|digest|integrity|etag|commit|revision|\brev|ref(?:erence)?|"
    r"shasum|fingerprint|\bid\b|_id\b|uuid|guid|trace|span|correlation|request|build|\boid|"
    r"object|version|tree|parent|blob|nonce|salt|seed|color|colour)[^\n]{0,32}$"
)


def _high_entropy(text: str, m: re.Match[str]) -> int | None:
    """detect-secrets' high-entropy strings: base64 (both cases, 4.5 bits a character) or hex
    (3 bits, not where a digest is named) in quotes."""
    v = m.group("value")
    if _SRI.match(v) or is_name(v):
        return None  # lock-file integrity (SRI) hashes: public digests, not secrets
    if v.lower() != v and v.upper() != v:  # upper and lower case: not a hex digest
        return m.start() if entropy(v) >= 4.5 else None
    if len(v) != 32 or not _HEX.fullmatch(v) or v.isdigit() or v.isalpha():
        return None  # 40 and 64: commit ids and SHA digests far more often than keys
    line = text[max(text.rfind("\n", 0, m.start()) + 1, m.start() - 48) : m.start()]
    return m.start() if entropy(v) >= 3.0 and not _DIGEST_CONTEXT.search(line) else None


# A line that is one long random token and nothing else (detect-secrets flags a bare one): base64
# with both cases, or a 32-character hex key. Not inside a PEM block (certificates, public keys).
# Led by the newline (a literal `re` jumps between) or the text's start, not `(?m)^`, which
# `re` tries at every position (a quarter of a 6 MB scan).
_TOKEN_LINE = r"[ \t]*+(?P<value>[A-Za-z0-9+/_-]{32,400}+={0,2})[ \t]*+(?=\r?\n|\Z)"
_ALONE = re.compile(r"\n" + _TOKEN_LINE)
_FIRST_ALONE = re.compile(r"\A" + _TOKEN_LINE)


def _alone(text: str, m: re.Match[str]) -> int | None:
    v = m.group("value")
    if "-----BEGIN" in text or _SRI.match(v) or is_name(v):
        return None
    if v.lower() != v and v.upper() != v:
        digits = sum(c.isdigit() for c in v)
        return m.start("value") if digits and entropy(v) >= 4.5 else None
    ok = len(v) == 32 and _HEX.fullmatch(v) and not v.isdigit() and entropy(v) >= 3.0
    return m.start("value") if ok else None


# sqlplus user/password@host:1521/service: matched from the slash (a literal `re` finds fast),
# the user name checked behind it, only in a text that names sqlplus or Oracle's port.
_ORACLE = r"/(?P<value>[^\s/@\"']{4,64})@(?://)?[\w.-]+(?::\d{2,5})?"


@functools.lru_cache(maxsize=1)
def _names_oracle(text: str) -> bool:
    """Whether `text` names sqlplus or Oracle's port (once per text, not once per slash)."""
    return "sqlplus" in text or ":1521" in text


def _oracle(text: str, m: re.Match[str]) -> int | None:
    if not _names_oracle(text):
        return None
    if not re.search(
        r"(?:^|[\s\"'])[A-Za-z_][\w$#]{0,30}\Z", text[max(0, m.start() - 32) : m.start()]
    ):
        return None
    return m.start("value") if password_like(m.group("value"), quoted=True) else None


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
        r"://(?P<user>[^\s/:@]{0,64}):(?P<password>[^\s/]{1,128}(?:/[^\s/@]+){0,4})@[^\s/@:]+",
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
        lambda text, m: (
            (m.start(), m.end()) if password_like(m.group("value"), quoted=True) else None
        ),
    ),
    Detector(
        "password in NetworkCredential",
        ("networkcredential", "directoryentry"),
        _CREDENTIAL_CALL,
        lambda text, m: (
            m.start("value")
            if password_like(text[m.start("value") : m.end("value")], quoted=True)
            else None
        ),
        lower=True,
    ),
    _d("Kubernetes Secret data", ("kind: Secret",), _K8S_PAIR.pattern, _k8s_secret),
    Detector(
        "credential after a key word",
        ("pass", "pwd", "secret", "token", "key", "cred", "conn", "bearer", "pat", "auth"),
        _KEYVAL,
        _keyval,
        lower=True,
    ),
    Detector("credential in a name/value pair", ("value",), _NAME_VALUE, _name_value, lower=True),
    # detect-secrets' high-entropy strings, in quotes or backticks (unquoted hex and base64 in
    # notes are commit ids and digests far more often than keys).
    Detector("high-entropy string", ('"', "'", "`"), _QUOTED, _high_entropy),
    Detector("high-entropy string", ("\n",), _ALONE, _alone),
    Detector("high-entropy string", (), _FIRST_ALONE, _alone),
    _d("password in an Oracle connect string", ("@",), _ORACLE, _oracle),
]
