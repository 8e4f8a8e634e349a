"""How bench/secret_eval_creds.py makes a credential and writes it the way people paste it: random
values of a format's alphabet and length, then the value in an .env line, YAML, JSON, code in
several languages, a shell command or a sentence (`in_context`), or alone in a header or a
command (`bare`).
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
B32 = LOWER + "234567"

Gen = Callable[[random.Random], str]


def s(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def b64(r: random.Random, nbytes: int) -> str:
    return base64.b64encode(r.randbytes(nbytes)).decode()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def uuid(r: random.Random) -> str:
    return f"{s(r, HEX, 8)}-{s(r, HEX, 4)}-4{s(r, HEX, 3)}-{r.choice('89ab')}{s(r, HEX, 3)}-{s(r, HEX, 12)}"


def word(r: random.Random) -> str:
    return r.choice(
        ["orchid", "harbor", "falcon", "granite", "velvet", "maple", "cobalt", "willow", "ember"]
    )


def human_password(r: random.Random) -> str:
    """A password a person chose: words, a year or digits, maybe a symbol."""
    w = word(r)
    forms = [
        f"{w}{r.randint(1, 99)}",
        f"{w.capitalize()}{r.randint(1990, 2030)}!",
        f"{w}_{word(r)}{r.randint(0, 9)}",
        f"{w}passwd",
        f"{w}{r.choice('!@#$%')}{word(r)}",
        f"{w.capitalize()}{word(r).capitalize()}{r.randint(10, 99)}",
    ]
    return r.choice(forms)


# -- how a value is written: a context picks a variable name and a syntax ------------------------


def in_context(r: random.Random, name: str, value: str) -> str:
    """`value` assigned to `name` in one of the syntaxes a note might quote."""
    lower = name.lower()
    camel = lower.split("_")[0] + "".join(p.capitalize() for p in lower.split("_")[1:])
    forms = [
        f"{name}={value}",
        f'export {name}="{value}"',
        f"{lower}: {value}",
        f'{lower}: "{value}"',
        f'"{camel}": "{value}"',
        f'{lower} = "{value}"',
        f"const {camel} = '{value}';",
        f'{camel} := "{value}"',
        f'private static final String {name} = "{value}";',
        f'var {camel} = "{value}";',
        f"set the {lower.replace('_', ' ')} to {value} in the deploy env",
        f'os.environ["{name}"] = "{value}"',
        f"{lower} = '{value}'",
        f"- name: {name}\n  value: {value}",
        f"{name}: {value}",
    ]
    return r.choice(forms)


def bare(r: random.Random, value: str) -> str:
    """A token whose prefix names it, pasted with or without a variable around it."""
    forms = [
        f"{value}",
        f"token: {value}",
        f"use {value} for the CI job",
        f'"{value}"',
        f"Authorization: Bearer {value}",
        f"curl -H 'Authorization: token {value}' https://api.example.net/v1/me",
    ]
    return r.choice(forms)


def named(name: str, make: Callable[[random.Random], str]) -> Gen:
    return lambda r: in_context(r, name, make(r))


def prefixed(make: Callable[[random.Random], str]) -> Gen:
    return lambda r: bare(r, make(r))
