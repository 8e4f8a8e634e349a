"""detect-secrets' detectors, run from the library itself, beside hippo's own.

detect-secrets (Yelp) keeps a rule set of its own for about 25 formats; running its plugins
rather than copies of their patterns means every credential it recognises is refused here too,
and its fixes arrive with an upgrade. Its keyword and high-entropy plugins are left out: they
judge a line without knowing prose from config, and hippo's own (memory.secrets.contextual)
replace them; so are its IBM Cloud IAM, IBM COS HMAC, Cloudant and SoftLayer plugins, keyword
plugins too (a key word, then 24+ characters: hippo's key-word detector refuses every case they
did, and they cost a quarter of a 6 MB scan, issue 41); so is its basic-auth plugin, which
flags `redis://user:password@host` placeholders that memory.secrets.contextual's URL check knows
to pass, and its public-IP plugin (an address is no credential).

Importing detect-secrets costs a fifth of a second or more (it brings requests and PyYAML), so
nothing is imported until a text holds what one of its formats needs: a literal every match
contains (the anchors, lower-cased) and, where that literal is common, a run long enough for the
value. A note without either never loads the library.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from memory.secrets.anchors import Anchors
from memory.secrets.patterns import GITLAB_PREFIXES


@dataclass(frozen=True)
class Plugin:
    module: str  # detect_secrets.plugins.<module>
    cls: str
    anchors: tuple[str, ...]  # any of them in the lower-cased text
    # And, when set, a match of one of these patterns (`lower`: lower-case ones, searched in the
    # lower-cased text): a necessary part of every match, each led by a literal so that `re`
    # searches it fast (the plugins' own patterns start with classes and look-behinds).
    gate: tuple[re.Pattern[str], ...] = ()
    lower: tuple[re.Pattern[str], ...] = ()
    # When set, the plugin reads each match of this pattern (group `token`), not whole lines:
    # its own pattern is quadratic in a long line, and this one finds the same spans in one pass.
    spans: re.Pattern[str] | None = None


# What detect-secrets' JWT pattern, `eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?…*?`, matches: from the
# first `eyJ` of a run of those characters that ends in `.` and another, through the next run and
# a dot. Searched from each `eyJ`, a run of `eyJ-eyJ-…` cost a pass to its end per `eyJ` (2.7 s
# for 80 KB); here the run is checked once, from its start.
_JWT_SPANS = re.compile(
    r"(?<![A-Za-z0-9_=-])(?=[A-Za-z0-9_=-]*+\.[A-Za-z0-9_=-])[A-Za-z0-9_=-]*?"
    r"(?P<token>eyJ[A-Za-z0-9_=-]++\.[A-Za-z0-9_=-]++\.?)"
)


def _rx(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


PLUGINS: list[Plugin] = [
    Plugin(
        "artifactory", "ArtifactoryDetector", ("akc", "ap"), _rx(r"AKC\w{10}", r"AP[\dA-F]\w{8}")
    ),
    Plugin(
        "aws",
        "AWSKeyDetector",
        ("akia", "asia", "abia", "acca", "a3t", "aws"),
        _rx(*(rf"{p}[0-9A-Z]{{16}}" for p in ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"))),
        _rx(r"aws[^\n]{0,80}?[\"'][0-9a-z/+]{40}[\"']"),
    ),
    Plugin("azure_storage_key", "AzureStorageKeyDetector", ("accountkey=",)),
    Plugin(
        "discord",
        "DiscordBotTokenDetector",
        (".",),
        _rx(r"\.[\w-]{6}\.[\w-]{27}"),
    ),
    Plugin("github_token", "GitHubTokenDetector", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Plugin("gitlab_token", "GitLabTokenDetector", (*GITLAB_PREFIXES, "gr1348941")),
    Plugin("jwt", "JwtTokenDetector", ("eyj",), spans=_JWT_SPANS),
    Plugin("mailchimp", "MailchimpDetector", ("-us",), _rx(r"-us\d")),
    Plugin("npm", "NpmDetector", ("_authtoken",)),
    Plugin("openai", "OpenAIDetector", ("t3blbkfj",)),
    Plugin("private_key", "PrivateKeyDetector", ("private key", "putty-user-key-file")),
    Plugin("pypi_token", "PypiTokenDetector", ("pypi-",)),
    Plugin("sendgrid", "SendGridDetector", ("sg.",)),
    Plugin("slack", "SlackDetector", ("xox", "hooks.slack.com")),
    Plugin("square_oauth", "SquareOAuthDetector", ("sq0csp-",)),
    Plugin("stripe", "StripeDetector", ("k_live_",)),
    Plugin("telegram_token", "TelegramBotTokenDetector", (":",), _rx(r":[\w-]{35}")),
    Plugin("twilio", "TwilioKeyDetector", ("ac", "sk"), _rx(r"AC[a-z0-9]{32}", r"SK[a-z0-9]{32}")),
]


# Plugins by anchor: a text costs one `in` per distinct anchor, not one per plugin and anchor.
_BY_ANCHOR: dict[str, list[int]] = {}
for _i, _plugin in enumerate(PLUGINS):
    for _anchor in _plugin.anchors:
        _BY_ANCHOR.setdefault(_anchor, []).append(_i)
ANCHORS = tuple(_BY_ANCHOR)
_ANCHORS = Anchors(ANCHORS)


@cache
def _load(plugin: Plugin) -> Any:
    module = importlib.import_module(f"detect_secrets.plugins.{plugin.module}")
    return getattr(module, plugin.cls)()


@cache
def _sequential() -> Any:
    from detect_secrets.filters.heuristic import is_sequential_string

    return is_sequential_string


def _positions(
    text: str,
    lowered: str,
    plugin: Plugin,
    gated: dict[re.Pattern[str], list[int]],
    present: set[str],
) -> list[int]:
    """Where the plugin's gates match (each gate searched once per text, for every plugin that
    shares it), or where its anchors are when it has no gate (or lower-cased positions would
    not be the text's: a non-ASCII text)."""
    if (plugin.gate or plugin.lower) and (text.isascii() or not plugin.lower):
        positions: list[int] = []
        for gate, haystack in [(g, text) for g in plugin.gate] + [
            (g, lowered) for g in plugin.lower
        ]:
            if gate not in gated:
                gated[gate] = [m.start() for m in gate.finditer(haystack)]
            positions += gated[gate]
        return positions
    positions = []
    for anchor in [a for a in plugin.anchors if a in present]:
        at = lowered.find(anchor)
        while at >= 0:
            positions.append(at)
            at = lowered.find(anchor, at + 1)
    return positions


def _lines(text: str, lowered: str, plugin: Plugin, positions: list[int]) -> dict[int, int]:
    """Start → end of each line of `text` at `positions` that holds the plugin's anchor: its
    patterns, which `re` cannot search fast, run on those lines only."""
    spans: dict[int, int] = {}
    for pos in positions:
        start = text.rfind("\n", 0, pos) + 1
        if start not in spans:
            end = text.find("\n", pos)
            spans[start] = len(text) if end < 0 else end
    return {s: e for s, e in spans.items() if any(a in lowered[s:e] for a in plugin.anchors)}


def scan(
    text: str, lowered: str | None = None, present: set[str] | None = None
) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every value detect-secrets' plugins report in `text` (`lowered`:
    text.lower(), and `present`: the anchors it holds, a superset of ANCHORS', if known)."""
    lowered = text.lower() if lowered is None else lowered
    present = _ANCHORS.present(lowered) if present is None else present
    out: list[tuple[str, int, int]] = []
    chosen = {i for a in ANCHORS if a in present for i in _BY_ANCHOR.get(a, ())}
    gated: dict[re.Pattern[str], list[int]] = {}
    for plugin in [PLUGINS[i] for i in sorted(chosen)]:
        if plugin.spans is not None:
            for m in plugin.spans.finditer(text):
                out += _found(plugin, m.group("token"), m.start("token"))
            continue
        positions = _positions(text, lowered, plugin, gated, present)
        if positions:
            for start, end in _lines(text, lowered, plugin, positions).items():
                out += _found(plugin, text[start:end], start)
    return out


def _found(plugin: Plugin, line: str, offset: int) -> list[tuple[str, int, int]]:
    detector = _load(plugin)
    out = []
    for value in set(detector.analyze_string(line)):
        if len(set(value)) < 10 or _sequential()(value):
            continue  # xoxb-1234-1243: docs' made-up examples repeat a few characters
        at = line.find(value)
        while at >= 0:
            out.append(
                (f"{detector.secret_type} (detect-secrets)", offset + at, offset + at + len(value))
            )
            at = line.find(value, at + 1)
    return out
