"""Is this value a credential? The judgements shared by the detectors that find a value by its
context (a key word, a URL, a command line) rather than by a documented prefix.

A value is refused when it is neither a placeholder (`<password>`, `${TOKEN}`, `changeme`,
`your_api_key`), nor a name that points at a secret kept elsewhere (`AWS_SECRET_ACCESS_KEY`,
`sasl_password`, `source.token`, `DefaultAzureCredential`), nor code (`get_token(url)`), nor a
path or a word of prose; and, after a word other than password, when it looks random.
"""

from __future__ import annotations

import math
import re


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


# Templates, elisions and the words docs put where a secret goes.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$|\{\{|<|%[s(]|\*{3}|x{4}|\.{3}|…|#\{|@\{|\{[a-z_]+\}$)|\.\.\.|…|"
    r"not[-_ ]?a[-_ ]?real|fake|bogus|invalid|notreal|"
    r"example|placeholder|changeme|change[_-]me|redacted|your[_-]?|dummy|sample|"
    r"^my[_-]?(?:pass|secret|token|key|api|app|db|user|name|pw)|"
    r"xxxx|\*\*\*|0{8}|1234567|abcdef|abc123|^(?:fake|test|demo|foo|bar)[_-]?[a-z]*\d{0,3}$|"
    r"^(?:pass(?:word|wd|phrase)?|pwd|secret|token|key|api[_-]?key|credentials?|none|null|nil|true|false|"
    r"undefined|string|str|bytes|required|optional|hidden|empty|default|admin|root|user(?:name)?|"
    r"guest|letmein|qwerty|s3cr3t|p@ssw0rd|passw0rd|tiger|scott)\d{0,4}$"
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|->|::)[A-Za-z_][A-Za-z0-9_]*)*")
_SEGMENTS = re.compile(r"\.|->|::|_+")
# A segment of a delimited name: a word in one case or in camel humps (each lower-case run of
# two or more letters, an upper-case run before it, another at the end), a digit or two after.
# The runs are possessive so a segment splits one way only: `(?:[A-Z]?[a-z]{2,}|[A-Z]{2,})+`
# tried every split of a long run (2^n steps: `A`*40 + `1e1_x` took minutes).
_WORD_SEGMENT = re.compile(r"(?:[a-z]+|[A-Z]+|(?:[A-Z]*+[a-z]{2,}+)+(?:[A-Z]{2,}+)?)\d{0,5}")
_PARTS = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CODE = re.compile(r"[()\[\]{}]|^(?:self|this|os|process|config|settings|env|ENV|cls)\W")
_NAMING = {
    "pass",
    "passwd",
    "password",
    "passphrase",
    "pwd",
    "pw",
    "secret",
    "token",
    "key",
    "cred",
    "creds",
    "credential",
    "credentials",
    "auth",
    "env",
    "var",
    "config",
    "input",
    "hash",
    "value",
    "field",
}
_WORDY = re.compile(r"^[A-Za-z]+(?:[-'][A-Za-z]+)*[.,!?:;)]*$")


def placeholder(value: str) -> bool:
    """A value that says it is not real (`changeme`, `<token>`, `FAKE_KEY`, `myExampleKey`).
    A placeholder word counts only in one case (fake, FAKE, Fake): a random 44-character key
    holds `fAkE` or `ExAmple` now and then (a corpus seed found one) and is no placeholder."""
    return any(_one_case(m.group()) for m in _PLACEHOLDER.finditer(value))


def _one_case(word: str) -> bool:
    letters = "".join(c for c in word if c.isalpha())
    return letters.islower() or letters.isupper() or letters.istitle() or not letters


def is_name(value: str) -> bool:
    """An identifier made of words (`AWS_SECRET_ACCESS_KEY`, `sasl.password`, `tokenProvider`,
    `source.token`): it names a secret, it does not hold one. A random token is no such name:
    its letters do not split into words, or digits sit inside them."""
    if not _IDENT.fullmatch(value):
        return False
    segments = [s for s in _SEGMENTS.split(value) if s]
    if len(segments) >= 2:  # snake_case, dotted: every segment a word
        return all(_WORD_SEGMENT.fullmatch(s) for s in segments) and max(map(len, segments)) >= 4
    parts = _PARTS.findall(value)
    if not parts or len(parts) > 10:
        return False
    words = [p for p in parts if not p.isdigit()]
    digit_runs = [p for p in parts if p.isdigit()]
    if len(digit_runs) > 1 or any(len(p) > 4 for p in digit_runs):
        return False  # names hold a number at most once (sha256Hash); random tokens often
    if len(words) == 1:  # one word: a name when it reads as one (token, password, apiKey)
        w: str = words[0]
        return bool(w.islower() or w.isupper() or w[1:].islower())
    mean = sum(len(w) for w in words) / len(words)
    tiny = sum(len(w) <= 2 for w in words)
    return mean >= 4.0 and tiny <= len(words) // 3


def names_a_secret(value: str) -> bool:
    """A name with a secret-naming word in it (`sasl_password`, `USER_PW`, `tokenField`)."""
    return is_name(value) and bool({p.lower() for p in _PARTS.findall(value)} & _NAMING)


def is_code(value: str) -> bool:
    """A call, an index, a literal or an attribute of a well-known object: code, not a value."""
    return bool(_CODE.search(value))


def _reference(value: str) -> bool:
    """`argon2id.PASSWD_MIN`, `settings->token`: an attribute or a module's constant."""
    if not _IDENT.fullmatch(value):
        return False
    segments = re.split(r"\.|->|::", value)
    if all(re.fullmatch(r"[A-Z][a-z]+\d*", s) for s in segments) and value[-1].isdigit():
        return False  # Tundra.Maple8: words a person chose, not an attribute
    return len(segments) > 1 and any(re.fullmatch(r"[A-Za-z_]{4,}", s) for s in segments)


def _pathy(value: str) -> bool:
    if value.startswith(("./", "../", "~/", "file:", "urn:")) or "://" in value:
        return True
    if "/" not in value and value.count(":") < 2:
        return False
    # Words between slashes or colons (docs/api/v2, secret/webhooks/ci, a:b:c) make a path;
    # base64 has no words.
    segs = re.split(r"[/:]", value)
    return all(re.fullmatch(r"[a-z0-9._-]*", seg) or is_name(seg) for seg in segs)


def _kebab_words(value: str) -> bool:
    """`harbor-weekly-v2`, `ecr-credential-provider`: words joined by hyphens, a name."""
    parts = value.split("-")
    return (
        len(parts) > 1
        and all(_WORD_SEGMENT.fullmatch(p) for p in parts)
        and max(map(len, parts)) >= 4
    )


def random_looking(value: str, *, strict: bool = False, quoted: bool = False) -> bool:
    """A value after a key/secret/token word that looks like a credential, not prose, a
    placeholder, a name, code, a path or a number. `strict` for values after a bare space;
    `quoted` values may hold `=` (a quoted string is one value, not settings)."""
    value = value.rstrip(".,;:!?)]}'\"`")
    if len(value) < 8 or len(value) > 400:
        return False
    if placeholder(value) or _pathy(value) or is_name(value) or (not quoted and _reference(value)):
        return False
    if value[0] in "@#" and re.fullmatch(r"[@#][\w.-]+", value):
        return False  # a handle or a channel
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    others = len(value) - letters - digits
    if letters == 0:
        return False  # a number, a date, a version
    if re.match(r"[A-Za-z][\w.-]{2,}=[^\s=]", value) or (not quoted and "=" in value.rstrip("=")):
        return False  # key=value pairs inside the value: a setting, not a token
    if digits == 0 and others == 0:
        # Letters only: random mixed case (about half upper), not camelCase or a word.
        upper = sum(c.isupper() for c in value) / len(value)
        return len(value) >= 20 and 0.25 <= upper <= 0.75 and entropy(value) >= 4.0
    if _WORDY.match(value) or _kebab_words(value):
        return False
    bits = entropy(value)
    if strict or len(value) < 12:
        return bits >= 3.0 and digits > 0 and (len(value) >= 16 or others > 0 or bits >= 3.2)
    return bits >= 2.8


# What people choose: words then digits or a symbol (harbor80, Granite2003!, orchid_harbor3).
_HUMAN = re.compile(
    r"(?=[A-Za-z_]*[A-Za-z]{4})[A-Za-z_]+\d{2,4}[!@#$%^&*?.]*|[A-Za-z]{5,}\d[!@#$%^&*?.]*|"
    r"[a-z]+(?:_[a-z]+)+\d{1,4}|[A-Za-z]{3,}[!@#$%^&*?][A-Za-z0-9]{2,}[!@#$%^&*?]?"
)


_SETTING = re.compile(r"[A-Za-z_][\w.]*=")


def password_like(value: str, *, quoted: bool, config: bool = False) -> bool:
    """A value after a password word: people choose passwords (`rootpasswd`, `Winter2024!`), so
    a word counts when it is quoted (or `config`: after a name like DB_PASSWORD) or carries a
    digit or symbol; placeholders, names and code do not."""
    value = value.strip()
    value = value.strip("\"'`") if quoted else value.rstrip(".,;:!?)]}'\"`")
    if not 6 <= len(value) <= 128 or placeholder(value) or placeholder(value.rstrip("?!*.")):
        return False
    if not quoted and (is_code(value) or _reference(value) or _SETTING.match(value)):
        return False  # a call, an attribute, `first_pass=False`
    if random_looking(value, quoted=quoted):
        return True
    if _pathy(value) or names_a_secret(value):
        return False  # `sasl_password`, `user_pw` name one
    if _HUMAN.fullmatch(value):
        return True
    if is_name(value):  # `PasswordField`, `passphrase`; a quoted lower-case word may be one,
        # and a quoted name with a digit is one (Tundra.Maple8)
        lower_word = value.isalpha() and value.islower()
        return (quoted or config) and (lower_word or any(c.isdigit() for c in value))
    if any(c in value for c in " \t") or value.isdigit():
        return False
    if quoted or config:
        return True
    return any(not c.isalpha() for c in value)
