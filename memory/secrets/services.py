"""The long tail of prefixed service credentials (issue 41): formats the studied rule sets
(gitleaks' rules, trufflehog's detectors, Nosey Parker's rules) recognise and
memory.secrets.patterns did not, each from its vendor's documented shape. Same Detector rules
as patterns.py: a literal anchor, no leading word boundary unless the prefix is short and
common (then `_not_after_alnum`).
"""

from __future__ import annotations

import re

from memory.secrets.patterns import Check, Detector, back

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

B = r"(?![A-Za-z0-9])"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _not_after_alnum(text: str, m: re.Match[str]) -> int | None:
    return None if m.start() and text[m.start() - 1].isalnum() else m.start()


def _mixed_after_word(text: str, m: re.Match[str]) -> int | None:
    """A short prefix: both cases and a digit after it, not inside a word."""
    v = m.group()[3:]
    mixed = (
        any(c.isupper() for c in v) and any(c.islower() for c in v) and any(c.isdigit() for c in v)
    )
    return _not_after_alnum(text, m) if mixed else None


def _d(kind: str, anchors: tuple[str, ...], pattern: str, check: Check | None = None) -> Detector:
    return Detector(kind, anchors, pattern, check)


SERVICES: list[Detector] = [
    # cloud
    _d("Amazon MWS token", ("amzn.mws.",), r"amzn\.mws\." + _UUID),
    _d("AWS AppSync key", ("da2-",), r"da2-[a-z0-9]{26}" + B, _not_after_alnum),
    _d(
        "Amazon Bedrock key",
        ("ABSKQmVkcm9ja0FQSUtle",),
        r"ABSKQmVkcm9ja0FQSUtle[A-Za-z0-9+/]{40,}={0,2}",
    ),
    _d("Dynatrace token", ("dt0c01.",), r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    # payment
    _d(
        "Braintree tokenization key",
        ("production_", "sandbox_"),
        r"(?:production|sandbox)_[a-z0-9]{8}_[a-z0-9]{16}" + B,
        _not_after_alnum,
    ),
    _d("Xendit secret key", ("xnd_",), r"xnd_(?:production|development)_[A-Za-z0-9]{40,}"),
    _d("PayPal access token", ("A21AA",), r"A21AA[A-Za-z0-9_-]{80,}"),
    _d("Razorpay key", ("rzp_",), r"rzp_(?:live|test)_[A-Za-z0-9]{14}" + B),
    _d(
        "Paddle API key",
        ("pdl_",),
        r"pdl_(?:live|sdbx)_apikey_[a-z0-9]{26}_[A-Za-z0-9]{22}_[A-Za-z0-9]{3}",
    ),
    _d("Midtrans server key", ("Mid-server-",), r"Mid-server-[A-Za-z0-9_-]{20,}"),
    _d("EasyPost key", ("EZAK", "EZTK"), r"EZ[AT]K[A-Za-z0-9]{54}" + B),
    _d("Checkout.com secret key", ("sk_sbox_",), r"sk_sbox_[a-z0-9]{26}" + B),
    _d("Checkout.com secret key", ("sk_",), r"sk_" + _UUID, _not_after_alnum),
    _d("Adyen API key", ("AQE",), r"AQE[a-z0-9]{5,}\.[A-Za-z0-9_=-]{50,80}", _not_after_alnum),
    _d("Duffel token", ("duffel_",), r"duffel_(?:live|test)_[A-Za-z0-9_-]{43}"),
    _d("Flutterwave key", ("FLWSECK", "FLWPUBK"), r"FLW(?:SECK|PUBK)_TEST[a-f0-9]{12}" + B),
    _d("Plaid token", ("access-",), r"access-(?:sandbox|development|production)-" + _UUID),
    # developer services
    _d("RubyGems key", ("rubygems_",), r"rubygems_[0-9a-f]{48}" + B),
    _d("NuGet key", ("oy2",), r"oy2[a-z0-9]{43}" + B, _not_after_alnum),
    _d("crates.io token", ("cio",), r"cio[A-Za-z0-9]{32}" + B, _mixed_after_word),
    _d("Clojars token", ("CLOJARS_",), r"CLOJARS_[a-z0-9]{60}" + B),
    _d("HubSpot token", ("pat-na", "pat-eu"), r"pat-(?:na|eu)\d-" + _UUID),
    _d("Zoho token", ("1000.",), r"1000\.[0-9a-f]{32}\.[0-9a-f]{32}" + B),
    _d("Infisical token", ("st.",), r"st\." + _UUID + r"\.[0-9a-f]{32}\.[0-9a-f]{32}"),
    _d("Scalingo token", ("tk-us-",), r"tk-us-[A-Za-z0-9_-]{48}"),
    _d("Firecrawl key", ("fc-",), r"fc-[0-9a-f]{32}" + B, _not_after_alnum),
    _d("JFrog reference token", ("cmVmdGtu",), r"cmVmdGtuOjAx[A-Za-z0-9]{40,}"),
    _d(
        "Sentry DSN",
        (".ingest.",),
        r"https://[0-9a-f]{32}@o\d+\.ingest\.(?:[a-z]{2}\.)?sentry\.io/\d+",
    ),
    _d("Honeycomb key", ("hc",), r"hc[a-z]i[kc]_[a-z0-9]{58}" + B, _not_after_alnum),
    _d("Asana token", ("/",), r"/\d{16}:[0-9a-f]{32}" + B, lambda t, m: _asana(t, m)),
    _d(
        "Salesforce token", ("00D",), r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9_.-]{80,}", _not_after_alnum
    ),
    _d("SonarQube token", ("squ_", "sqp_", "sqa_"), r"sq[upa]_[0-9a-f]{40}" + B),
    _d("LaunchDarkly key", ("sdk-", "api-", "mob-"), r"(?:sdk|api|mob)-" + _UUID, _not_after_alnum),
    _d("Django secret key", ("django-insecure-",), r"django-insecure-[^\s'\"`]{40,}"),
    _d("Sourcegraph token", ("sgp_",), r"sgp_(?:[0-9a-f]{16}_)?[0-9a-f]{40}" + B),
    _d("Pinecone key", ("pcsk_",), r"pcsk_[A-Za-z0-9]{5,8}_[A-Za-z0-9]{50,}"),
    _d("LangSmith key", ("lsv2_",), r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}" + B),
    _d("ElevenLabs key", ("sk_",), r"sk_[0-9a-f]{48}" + B, _not_after_alnum),
    _d("Tavily key", ("tvly-",), r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}" + B),
    _d("dbt Cloud token", ("dbtc_",), r"dbtc_[A-Za-z0-9_-]{40,}"),
    _d("Prefect key", ("pnu_",), r"pnu_[A-Za-z0-9]{36}" + B),
    _d("Neon key", ("napi_",), r"napi_[a-z0-9]{64}" + B),
    _d("Contentful token", ("CFPAT-",), r"CFPAT-[A-Za-z0-9_-]{43}"),
    _d("Typeform token", ("tfp_",), r"tfp_[A-Za-z0-9_-]{44}_[A-Za-z0-9_-]{14}"),
    _d("Trello token", ("ATTA",), r"ATTA[0-9a-f]{64}[0-9A-Fa-f]{8}" + B),
    _d("ClickUp token", ("pk_",), r"pk_\d{6,10}_[A-Z0-9]{32}" + B, _not_after_alnum),
    _d("Intercom token", ("dG9rOj",), r"dG9rOj[A-Za-z0-9+/]{40,}={0,2}"),
    _d("Instagram token", ("IGQV",), r"IGQV[A-Za-z0-9_-]{100,}"),
    _d("Octopus Deploy key", ("API-",), r"API-[A-Z0-9]{25,32}" + B, _not_after_alnum),
    _d(
        "Harness token",
        ("pat.", "sat."),
        r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}",
    ),
    _d("Frame.io token", ("fio-u-",), r"fio-u-[A-Za-z0-9_=-]{64}"),
    _d("Beamer key", ("b_",), r"b_[A-Za-z0-9_-]{44}=" + B, _not_after_alnum),
    _d("ReadMe key", ("rdme_",), r"rdme_[a-z0-9]{70}" + B),
    _d("Defined Networking key", ("dnkey-",), r"dnkey-[A-Z0-9]{26}-[A-Z0-9]{52}"),
    _d("New Relic license key", ("NRAL",), r"NRAL" + B, back("0123456789abcdef", 36, 36)),
    _d("Azure DevOps PAT", ("AZDO",), r"AZDO[A-Za-z0-9]{4,}", back(ALNUM, 52, 52)),
    _d("Slack token", ("xoxe",), r"xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,}"),
    _d(
        "Azure App Configuration secret",
        ("azconfig.io",),
        r"azconfig\.io;Id=[^;\s]{4,40};Secret=[A-Za-z0-9+/]{36,50}={0,2}",
    ),
]


def _asana(text: str, m: re.Match[str]) -> int | None:
    """`1/` or `2/`, a 16-digit user id, `/`, then what the pattern matched."""
    start = m.start() - 18
    head = text[max(start, 0) : m.start()]
    return start if start >= 0 and re.fullmatch(r"[12]/\d{16}", head) else None
