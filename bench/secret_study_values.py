"""Fresh credential values by documented shape, for bench/secret_study.py.

`make(r, spec)` fills a template: `{H:32}` hex, `{h:32}` upper-case hex, `{A:20}` letters and
digits, `{L:30}` lower-case letters and digits, `{X:24}` upper-case letters and digits, `{U:43}`
URL-safe base64 characters, `{B:40}` base64 characters, `{D:10}` digits, `{b32:52}` lower-case
base32, `{uuid}`, `{b64:33}` base64 of 33 random bytes, `{pw}` a password a person chose.
"""

from __future__ import annotations

import base64
import random
import re
import string

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALPHABETS = {
    "H": "0123456789abcdef",
    "h": "0123456789ABCDEF",
    "A": LOWER + UPPER + DIGITS,
    "L": LOWER + DIGITS,
    "X": UPPER + DIGITS,
    "U": LOWER + UPPER + DIGITS + "_-",
    "B": LOWER + UPPER + DIGITS + "+/",
    "D": DIGITS,
    "b32": LOWER + "234567",
}
_FIELD = re.compile(r"\{(\w+)(?::(\d+))?\}")
WORDS = [
    "orchid",
    "harbor",
    "falcon",
    "granite",
    "velvet",
    "maple",
    "cobalt",
    "willow",
    "ember",
    "lantern",
    "quartz",
    "meadow",
    "saffron",
    "tundra",
    "juniper",
    "beacon",
    "pepper",
    "summit",
    "copper",
    "violet",
]


def s(r: random.Random, alphabet: str, n: int) -> str:
    """`n` random characters of `alphabet`, with at least one digit and one letter when the
    alphabet has both (as a real key almost always has: an all-letter 32-character hex key is
    one in 2,000)."""
    while True:
        out = "".join(r.choice(alphabet) for _ in range(n))
        mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
        if not mixed or n < 8 or (any(c.isdigit() for c in out) and any(c.isalpha() for c in out)):
            return out


def uuid(r: random.Random) -> str:
    h = ALPHABETS["H"]
    return f"{s(r, h, 8)}-{s(r, h, 4)}-4{s(r, h, 3)}-{r.choice('89ab')}{s(r, h, 3)}-{s(r, h, 12)}"


def password(r: random.Random) -> str:
    """What people choose (Nosey Parker's and trufflehog's examples are of these kinds): words
    with digits and symbols, a passphrase with a separator, or a random string."""
    w1, w2 = r.choice(WORDS), r.choice(WORDS)
    forms = [
        f"{w1.capitalize()}{r.randint(10, 9999)}{r.choice('!@#$%&*?')}",
        f"{w1}{r.choice('$@!')}{w2}{r.randint(1, 99)}",
        f"{w1}-{w2}-{r.randint(100, 999)}",
        f"{w1[:3]}{r.randint(1000, 9999)}{w2[:3].upper()}",
        s(r, ALPHABETS["A"] + "!@#%^*", r.randint(12, 24)),
        f"{w1.capitalize()}.{w2.capitalize()}{r.randint(1, 9)}",
        f"{r.randint(1, 9)}{w1}{w2}",
    ]
    return r.choice(forms)


def make(r: random.Random, spec: str) -> str:
    def fill(m: re.Match[str]) -> str:
        kind, n = m.group(1), int(m.group(2) or 0)
        if kind == "uuid":
            return uuid(r)
        if kind == "jwt":
            return jwt(r)
        if kind == "pw":
            return password(r)
        if kind == "b64":
            return base64.b64encode(r.randbytes(n)).decode()
        return s(r, ALPHABETS[kind], n)

    return _FIELD.sub(fill, spec)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(r: random.Random, alg: str = "RS256") -> str:
    """A signed JWT whose header and claims decode, as real ones do."""
    import json

    head = b64url(json.dumps({"typ": "JWT", "alg": alg}).encode())
    claims = {"aud": s(r, ALPHABETS["D"], 4), "jti": uuid(r), "iat": r.randint(10**9, 2 * 10**9)}
    return f"{head}.{b64url(json.dumps(claims).encode())}.{b64url(r.randbytes(128))}"
