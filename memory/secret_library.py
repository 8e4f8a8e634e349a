"""detect-secrets' detectors, run from the library itself, beside hippo's own.

detect-secrets (Yelp) keeps a rule set of its own for about 25 formats; running its plugins
rather than copies of their patterns means every credential it recognises is refused here too,
and its fixes arrive with an upgrade. Its keyword and high-entropy plugins are left out: they
judge a line without knowing prose from config, and hippo's own (memory.secret_context) replace
them; so is its basic-auth plugin, which flags `redis://user:password@host` placeholders that
memory.secret_context's URL check knows to pass, and its public-IP plugin (an address is no
credential).

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

from memory.secret_values import is_code, names_a_secret, placeholder


@dataclass(frozen=True)
class Plugin:
    module: str  # detect_secrets.plugins.<module>
    cls: str
    anchors: tuple[str, ...]  # any of them in the lower-cased text
    gate: re.Pattern[str] | None = None  # and, when set, a match of it in the text
    keyword: bool = False  # a key word then a value: placeholders, names and code pass


_RUN24 = re.compile(r"[\w+/=-]{24}")
_RUN40 = re.compile(r"[\w+/=-]{40}")

PLUGINS: list[Plugin] = [
    Plugin(
        "artifactory", "ArtifactoryDetector", ("akc", "ap"), re.compile(r"AKC\w{10}|AP[\dA-F]\w{8}")
    ),
    Plugin(
        "aws",
        "AWSKeyDetector",
        ("akia", "asia", "abia", "acca", "a3t", "aws"),
        re.compile(r"[0-9A-Z]{16}|[0-9a-zA-Z/+]{40}"),
    ),
    Plugin("azure_storage_key", "AzureStorageKeyDetector", ("accountkey=",)),
    Plugin("cloudant", "CloudantDetector", ("cl",), _RUN24, keyword=True),
    Plugin(
        "discord",
        "DiscordBotTokenDetector",
        (".",),
        re.compile(r"[MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27}"),
    ),
    Plugin("github_token", "GitHubTokenDetector", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Plugin(
        "gitlab_token",
        "GitLabTokenDetector",
        (
            "glpat-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glrt-",
            "glcbt-",
            "glimt-",
            "glptt-",
            "glagent-",
            "gloas-",
            "gr1348941",
        ),
    ),
    Plugin("ibm_cloud_iam", "IbmCloudIamDetector", ("key", "pwd", "pass", "token"), _RUN40, True),
    Plugin("ibm_cos_hmac", "IbmCosHmacDetector", ("secret",), _RUN40, keyword=True),
    Plugin("jwt", "JwtTokenDetector", ("eyj",)),
    Plugin("mailchimp", "MailchimpDetector", ("-us",), re.compile(r"[0-9a-z]{32}-us\d")),
    Plugin("npm", "NpmDetector", ("_authtoken",)),
    Plugin("openai", "OpenAIDetector", ("t3blbkfj",)),
    Plugin("private_key", "PrivateKeyDetector", ("private key", "putty-user-key-file")),
    Plugin("pypi_token", "PypiTokenDetector", ("pypi-",)),
    Plugin("sendgrid", "SendGridDetector", ("sg.",)),
    Plugin("slack", "SlackDetector", ("xox", "hooks.slack.com")),
    Plugin("softlayer", "SoftlayerDetector", ("sl",), _RUN40, keyword=True),
    Plugin("square_oauth", "SquareOAuthDetector", ("sq0csp-",)),
    Plugin("stripe", "StripeDetector", ("k_live_",)),
    Plugin("telegram_token", "TelegramBotTokenDetector", (":",), re.compile(r"\d{8,10}:[\w-]{35}")),
    Plugin("twilio", "TwilioKeyDetector", ("ac", "sk"), re.compile(r"(?:AC|SK)[a-z0-9]{32}")),
]


@cache
def _load(plugin: Plugin) -> Any:
    module = importlib.import_module(f"detect_secrets.plugins.{plugin.module}")
    return getattr(module, plugin.cls)()


@cache
def _sequential() -> Any:
    from detect_secrets.filters.heuristic import is_sequential_string

    return is_sequential_string


def wanted(text: str, lowered: str) -> list[Plugin]:
    """The plugins whose anchors (and gate) are in `text`: nothing is imported for the others."""
    return [
        p
        for p in PLUGINS
        if any(a in lowered for a in p.anchors) and (p.gate is None or p.gate.search(text))
    ]


def scan(text: str, lowered: str | None = None) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every value detect-secrets' plugins report in `text`."""
    lowered = text.lower() if lowered is None else lowered
    out: list[tuple[str, int, int]] = []
    for plugin in wanted(text, lowered):
        detector = _load(plugin)
        for value in set(detector.analyze_string(text)):
            if len(set(value)) < 10 or _sequential()(value):
                continue  # xoxb-1234-1243: docs' made-up examples repeat a few characters
            if plugin.keyword and (placeholder(value) or names_a_secret(value) or is_code(value)):
                continue
            start = text.find(value)
            while start >= 0:
                out.append((f"{detector.secret_type} (detect-secrets)", start, start + len(value)))
                start = text.find(value, start + 1)
    return out
