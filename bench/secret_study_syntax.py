"""How the maintained scanners write a credential into their own test inputs, rewritten as
functions of a name and a value (no string of theirs is copied; every value is made fresh).

Studied (issue 41, read through the search tool):
- gitleaks `cmd/generate/config/utils/generate.go` (GenerateSampleSecrets: INI, JSON and escaped
  JSON, XML elements, YAML plain/quoted/literal/folded, C#, Go, Java, Kotlin, PHP, Python, CSV,
  logstash, Makefile assignments) and `rules/generic.go`;
- trufflehog `pkg/detectors/*/*_test.go` (`<service> token - '<value>'`, a sentence with the
  value inside, a keyword then the value within 40 characters, log lines);
- Nosey Parker `data/default/builtin/rules/*.yml` examples (code literals in several languages,
  `:password => '…'`, "the password is '…'", .NET `<add key=… value=…/>`, NetworkCredential,
  user/password pairs on two lines);
- detect-secrets `tests/plugins/keyword_test.py` (`:=`, `:`, `=`, `@"…"`, `[]=`, dict index,
  `key "…";`, a key word inside a longer name) and `high_entropy_strings_test.py`.

Each syntax is `f(r, name, value) -> text`; `name` is a variable name such as STRIPE_SECRET_KEY.
"""

from __future__ import annotations

import random
from collections.abc import Callable

Syntax = Callable[[random.Random, str, str], str]


def _camel(name: str) -> str:
    parts = name.lower().replace("-", "_").split("_")
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def _snake(name: str) -> str:
    return name.lower().replace("-", "_")


# -- configuration files ---------------------------------------------------------------------------

CONFIG: dict[str, Syntax] = {
    ".env": lambda r, n, v: f"{n.upper()}={v}",
    ".env quoted": lambda r, n, v: f'{n.upper()}="{v}"',
    "shell export": lambda r, n, v: f"export {n.upper()}='{v}'",
    "INI": lambda r, n, v: f"[default]\n{_snake(n)} = {v}",
    "TOML": lambda r, n, v: f'[service]\n{_snake(n)} = "{v}"',
    "YAML": lambda r, n, v: f"service:\n  {_snake(n)}: {v}",
    "YAML quoted": lambda r, n, v: f"{_snake(n)}: '{v}'",
    "YAML literal block": lambda r, n, v: f"{_snake(n)}: |\n  {v}",
    "YAML folded block": lambda r, n, v: f"{_snake(n)}: >-\n    {v}",
    "JSON": lambda r, n, v: f'{{\n  "{_camel(n)}": "{v}"\n}}',
    "JSON escaped": lambda r, n, v: f'{{\\"{_snake(n)}\\": \\"{v}\\"}}',
    "XML element": lambda r, n, v: f"<{_camel(n)}>{v}</{_camel(n)}>",
    "XML element, value on its own line": lambda r, n, v: f"<{_camel(n)}>\n    {v}\n</{_camel(n)}>",
    ".NET appSettings": lambda r, n, v: f'<add key="{_camel(n).capitalize()}" value="{v}" />',
    "properties": lambda r, n, v: f"app.{_snake(n).replace('_', '.')}={v}",
    "Makefile": lambda r, n, v: f"{n.upper()} {r.choice(['?=', ':=', '::=', '+=', '='])} {v}",
    "docker run -e": lambda r, n, v: f"docker run -e {n.upper()}={v} acme/api:1.4",
    "Kubernetes env": lambda r, n, v: f'- name: {n.upper()}\n  value: "{v}"',
    "Terraform": lambda r, n, v: f'  {_snake(n)} = "{v}"',
    "CSV": lambda r, n, v: f"{_camel(n)},{v},",
    "logstash": lambda r, n, v: f'  "{_camel(n)}" => "{v}"',
}

# -- code ---------------------------------------------------------------------------------------------

CODE: dict[str, Syntax] = {
    "Python": lambda r, n, v: f"{n.upper()} = '{v}'",
    "Python dict": lambda r, n, v: f"config = {{'{_snake(n)}': \"{v}\"}}",
    "Python call": lambda r, n, v: f'client = Client({_snake(n)}="{v}")',
    "JavaScript": lambda r, n, v: f"const {_camel(n)} = '{v}';",
    "JS object": lambda r, n, v: f'  {_camel(n)}: "{v}",',
    "TypeScript env default": lambda r, n, v: f"process.env.{n.upper()} ?? '{v}'",
    "Go": lambda r, n, v: f'{_camel(n)} := "{v}"',
    "Go var": lambda r, n, v: f"var {_camel(n)} string = `{v}`",
    "Java": lambda r, n, v: f'private static final String {n.upper()} = "{v}";',
    "C#": lambda r, n, v: f'string {_camel(n)} = "{v}";',
    "Kotlin": lambda r, n, v: f'val {_camel(n)} = "{v}"',
    "PHP": lambda r, n, v: f"${_camel(n)} = '{v}';",
    "PHP define": lambda r, n, v: f"define('{n.upper()}', '{v}');",
    "Ruby hash": lambda r, n, v: f"  :{_snake(n)} => '{v}',",
    "Ruby": lambda r, n, v: f'{_snake(n)} = "{v}"',
    "Rust": lambda r, n, v: f'let {_snake(n)} = "{v}";',
    "Swift": lambda r, n, v: f'let {_camel(n)} = "{v}"',
    "Objective-C": lambda r, n, v: f'NSString *{_camel(n)} = @"{v}";',
    "C": lambda r, n, v: f'#define {n.upper()} "{v}"',
    "Go map": lambda r, n, v: f'"{_snake(n)}": "{v}",',
}

# -- commands, prose, logs ------------------------------------------------------------------------

PROSE: dict[str, Syntax] = {
    "CLI flag =": lambda r, n, v: f"acmectl login --{_snake(n).replace('_', '-')}={v}",
    "CLI flag space": lambda r, n, v: f"acmectl deploy --{_snake(n).replace('_', '-')} {v}",
    "sentence": lambda r, n, v: (
        f"The {_snake(n).replace('_', ' ')} for staging is {v} until we rotate it"
    ),
    "sentence quoted": lambda r, n, v: f"use '{v}' as the {_snake(n).replace('_', ' ')} for now",
    "Slack message": lambda r, n, v: f"here's the {_snake(n).replace('_', ' ')}: {v}",
    "log line": lambda r, n, v: f"2024-03-02T10:14:07Z DEBUG using {_camel(n)}={v} for request",
    "markdown table": lambda r, n, v: f"| {n.upper()} | `{v}` |",
    "inline code": lambda r, n, v: f"set `{n.upper()}` to `{v}`",
}

ALL: dict[str, Syntax] = {**CONFIG, **CODE, **PROSE}


# -- the four sources' own ways of writing a test input ----------------------------------------------


def gitleaks_style(r: random.Random, service: str, value: str) -> tuple[str, str]:
    """(syntax, text): `<service>Token`/`<service>_token` in one of GenerateSampleSecrets'
    kinds of file (INI, JSON, XML, YAML, code, CSV, logstash, Makefile)."""
    kinds = [
        ".env", ".env quoted", "INI", "JSON", "JSON escaped", "XML element",
        "XML element, value on its own line", "YAML", "YAML quoted", "YAML literal block",
        "YAML folded block", "C#", "Go", "Go var", "Java", "Kotlin", "PHP", "Python",
        "CSV", "logstash", "Makefile",
    ]  # fmt: skip
    kind = r.choice(kinds)
    return kind, ALL[kind](r, f"{service}_token", value)


def trufflehog_style(r: random.Random, service: str, value: str, word: str = "") -> tuple[str, str]:
    """(syntax, text) as trufflehog's pattern tests write them: the service's key word, then the
    value within a few dozen characters."""
    word = word or r.choice(["token", "secret", "key", "api key", "access token"])
    forms = {
        "keyword - 'value'": f"{service} {word} - '{value}'",
        "keyword = value": f"{service}_{word.replace(' ', '_')} = {value}",
        "sentence with the value": f"You can find a {service} {word} {value} within",
        "two lines": f"[INFO] connecting to {service}\n[DEBUG] {word}: {value}",
        "env": f"{service.upper()}_{word.upper().replace(' ', '_')}={value}",
    }
    kind = r.choice(list(forms))
    return kind, forms[kind]


def noseyparker_style(r: random.Random, name: str, value: str) -> tuple[str, str]:
    kinds = ["Python", "Java", "Ruby hash", "JS object", "C#", "PHP", ".NET appSettings", "JSON"]
    kind = r.choice(kinds)
    return kind, ALL[kind](r, name, value)


def detect_secrets_style(r: random.Random, name: str, value: str) -> tuple[str, str]:
    """The keyword plugin's shapes: the key word alone or inside a longer name, then `:=`, `:`,
    `=`, `@"…"`, `[]=`, a dict index, or a quoted value and `;`."""
    low = name.lower()
    forms = {
        ":=": f'{low} := "{value}"',
        ": unquoted": f"{low}: {value}",
        "name: unquoted, key word inside": f"the{low}: {value}",
        '"key": "value"': f'"the{low}": "{value}"',
        '= @"…"': f'{low} = @"{value}"',
        '[]= "…"': f'{low}[]= "{value}"',
        "dict index": f"config['{low}'] = '{value}'",
        '= "…"': f'the_{low}= "{value}"',
        "= unquoted": f"my_{low}={value}",
        'key "…";': f'{low} "{value}";',
        "key word inside, quoted;": f"foo{low}foo'{value}';",
    }
    kind = r.choice(list(forms))
    return kind, forms[kind]
