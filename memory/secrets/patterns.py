"""The credential shapes memory.secrets looks for: one Detector per documented token format,
plus key/secret/token/password words followed by a value that looks random.

Coverage: every detector of detect-secrets 1.5 (Artifactory, AWS, Azure storage, basic auth,
Cloudant, Discord, GitHub, GitLab, high-entropy strings, IBM Cloud IAM and COS HMAC, JWT,
keywords, Mailchimp, npm, OpenAI, private keys, PyPI, SendGrid, Slack, SoftLayer, Square, Stripe,
Telegram, Twilio; the IP-address detectors are left out: an address is not a credential), the
formats named in issue 12, and the prefixed tokens of common developer services. The IBM,
Cloudant, SoftLayer, Datadog and Okta keys carry no prefix; the keyword detector finds them by
the name written before them.

Each detector runs only when one of its literal anchors is in the text (lower-cased text for
"(?i)" patterns): patterns that start with a class make `re` try every position. Prefixes do not
require a word boundary before them: `GITHUB_TOKEN_ghp_…` or an escaped `\\nghp_…` in JSON
must still be found.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

# Where the secret starts, or None; or its (start, end) when it does not end with the match.
Check = Callable[[str, re.Match[str]], int | tuple[int, int] | None]


@dataclass(frozen=True)
class Detector:
    kind: str
    anchors: tuple[str, ...]  # any of them (lower-cased) in the lower-cased text; () = always
    # A pattern given as a string is compiled when a text first holds one of its anchors: most
    # notes wake a few of ~100 detectors, and compiling them all cost every CLI start ~25 ms.
    pattern: str | re.Pattern[str]
    # Where the secret starts (a pattern may match from a literal in its middle, which `re`
    # finds fast, and reach back), or None when the match is not a secret. Default: the match.
    check: Check | None = None
    # The pattern is lower-case and runs on the lower-cased text (positions are the same for
    # ASCII text; other text gets the pattern case-insensitively): far faster than "(?i)".
    lower: bool = False

    @property
    def rx(self) -> re.Pattern[str]:
        return self.pattern if isinstance(self.pattern, re.Pattern) else _compiled(self.pattern)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def back(chars: str, least: int = 1, most: int = 64) -> Check:
    """A check that extends the match back over `chars` (at least `least`, at most `most`)."""
    allowed = frozenset(chars)

    def check(text: str, m: re.Match[str]) -> int | None:
        i = m.start()
        while i > 0 and m.start() - i < most and text[i - 1] in allowed:
            i -= 1
        return i if m.start() - i >= least else None

    return check


def _discord(text: str, m: re.Match[str]) -> int | None:
    """The first segment is 24-26 characters starting with M, N or O (a base64 user id)."""
    for length in (24, 25, 26):
        start = m.start() - length
        if (
            start >= 0
            and text[start] in "MNO"
            and all(c in URLSAFE_CHARS for c in text[start : m.start()])
        ):
            return start
    return None


def _azure_ad(text: str, m: re.Match[str]) -> int | None:
    """Three characters and a digit come before the `Q~` the pattern starts at."""
    start = m.start() - 4
    head = text[max(start, 0) : m.start()]
    ok = start >= 0 and head[3].isdigit() and all(c in URLSAFE_CHARS + "~." for c in head)
    return start if ok else None


def _mixed(text: str, m: re.Match[str]) -> int | None:
    """Random tokens mix upper case, lower case and digits; words and constants do not."""
    v = m.group()
    ok = (
        any(c.isupper() for c in v[3:])
        and any(c.islower() for c in v)
        and any(c.isdigit() for c in v)
    )
    return m.start() if ok else None


def _not_after_alnum(text: str, m: re.Match[str]) -> int | None:
    return None if m.start() and text[m.start() - 1].isalnum() else m.start()


def _token_start(text: str, m: re.Match[str]) -> int | None:
    """Not inside a longer base64 run (a lock file's integrity hash holds every prefix)."""
    before = text[m.start() - 1] if m.start() else " "
    return None if before.isalnum() or before in "+/" else m.start()


def _legacy_vault(text: str, m: re.Match[str]) -> int | None:
    """Vault's older `s.` + 24 characters: only with a digit and both cases, not after a word."""
    return _not_after_alnum(text, m) if _mixed(text, m) is not None else None


URLSAFE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
SCHEME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-"


# GitLab's token prefixes (its docs' "token prefixes" table); detect-secrets' GitLab plugin is
# gated on the same list (library_detectors.py), plus the runner registration token GR1348941.
GITLAB_PREFIXES = (
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
)


def _d(
    kind: str,
    anchors: tuple[str, ...],
    pattern: str,
    check: Check | None = None,
) -> Detector:
    return Detector(kind, anchors, pattern, check)


B = r"(?![A-Za-z0-9])"  # the token ends here (a trailing boundary that counts `_` as its own)

PREFIXED: list[Detector] = [
    # The whole block through its END line (or, cut short, the key lines that follow). The
    # search for END stops at the next BEGIN: from each of many headers without an END it ran
    # to the end of the text (quadratic: 4 s for 128 KB of headers).
    _d(
        "private key block",
        ("PRIVATE KEY",),
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?:\\n|(?!-----BEGIN )[A-Za-z0-9+/=\s:,-])*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:\\n|\r?\n|[A-Za-z0-9+/=])*)",
    ),
    _d("Slack token", ("xox",), r"xox[abposre]-[0-9A-Za-z-]{10,}"),
    _d("Slack app token", ("xapp-",), r"xapp-\d-[0-9A-Za-z-]{10,}"),
    _d(
        "Slack webhook URL",
        ("hooks.slack.com",),
        r"hooks\.slack\.com/(?:services|workflows)/T[0-9A-Z]+/[A-Z0-9]+/\w+",
    ),
    _d(
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        r"gh[pousr]_[0-9A-Za-z]{30,}",
    ),
    _d("GitHub fine-grained token", ("github_pat_",), r"github_pat_[0-9A-Za-z_]{40,}"),
    _d(
        "GitLab token",
        (*GITLAB_PREFIXES, "GR1348941"),
        r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[0-9A-Za-z_.-]{20,}",
    ),
    _d("GitLab token", ("GR1348941",), r"GR1348941[0-9A-Za-z_-]{20,}"),
    _d("Anthropic API key", ("sk-ant-",), r"sk-ant-[0-9A-Za-z_-]{20,}"),
    _d("OpenAI API key", ("sk-",), r"sk-(?:proj-|svcacct-|admin-)?[0-9A-Za-z_-]{32,}"),
    _d("Hugging Face token", ("hf_",), r"hf_[A-Za-z0-9]{30,}"),
    _d("Hugging Face token", ("api_org_",), r"api_org_[A-Za-z0-9]{30,}"),
    _d(
        "AWS access key id",
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ABIA", "ACCA", "A3T"),
        r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}" + B,
    ),
    Detector(
        "AWS secret access key",
        ("aws", "secret"),
        re.compile(
            r"(?:aws.{0,24}secret|secret.{0,12}access).{0,24}?[\s:=\"'`]+[0-9a-z/+]{40}(?![0-9a-z/+])"
        ),
        lower=True,
    ),
    _d("Google API key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}"),
    _d("Google OAuth secret", ("GOCSPX-",), r"GOCSPX-[0-9A-Za-z_-]{28}"),
    _d("Google OAuth token", ("ya29.",), r"ya29\.[0-9A-Za-z_-]{30,}"),
    _d("Google OAuth refresh token", ("1//0",), r"1//0[0-9A-Za-z_-]{40,}"),
    _d(
        "AWS session token",
        ("IQoJb3JpZ2lu", "FwoGZXIvYXdz"),
        r"(?:IQoJb3JpZ2lu|FwoGZXIvYXdz)[A-Za-z0-9+/=]{80,}",
    ),
    _d("Tencent Cloud secret id", ("AKID",), r"AKID[A-Za-z0-9]{32}" + B),
    _d("Yandex Cloud key", ("AQVN",), r"AQVN[A-Za-z0-9_-]{35,38}" + B),
    _d(
        "Yandex Cloud IAM token",
        ("t1.",),
        r"t1\.[A-Za-z0-9_-]{60,}={0,2}(?:\.[A-Za-z0-9_-]{40,}={0,2})?",
        _mixed,
    ),
    _d("Cloudflare origin CA key", ("v1.0-",), r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    _d(
        "GCP service account key", ("private_key_id",), r"\"private_key_id\"\s*:\s*\"[0-9a-f]{40}\""
    ),
    _d(
        "Stripe secret key",
        ("_live_", "_test_"),
        r"k_(?:live|test)_[0-9A-Za-z]{16,}",
        back("sr", 1, 1),
    ),
    _d("Stripe webhook secret", ("whsec_",), r"whsec_[0-9A-Za-z+/]{32,}"),
    Detector(
        "basic auth header",
        ("basic",),
        re.compile(r"authorization\W{0,4}basic\s+[a-z0-9+/]{8,}={0,2}"),
        lower=True,
    ),
    _d("npm token", ("npm_",), r"npm_[0-9A-Za-z]{36}" + B),
    _d("PyPI token", ("pypi-",), r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    _d("SendGrid API key", ("SG.",), r"SG\.[0-9A-Za-z_-]{22}\.[0-9A-Za-z_-]{43}"),
    _d("Twilio key", ("AC",), r"AC[0-9a-f]{32}" + B),
    _d("Twilio key", ("SK",), r"SK[0-9a-f]{32}" + B),
    _d("Mailgun API key", ("key-",), r"key-[0-9a-zA-Z]{32}" + B),
    _d(
        "Mailchimp API key",
        ("-us",),
        r"-us[0-9]{1,2}" + B,
        back("0123456789abcdef", 32, 32),
    ),
    _d("DigitalOcean token", ("do", "dor_v1_"), r"do[opr]_v1_[a-f0-9]{64}"),
    _d("Shopify token", ("shp",), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _d("Heroku API key", ("HRKU-",), r"HRKU-[0-9A-Za-z_-]{40,}"),
    Detector(
        "Heroku API key",
        ("heroku",),
        re.compile(r"heroku.{0,40}?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
        lower=True,
    ),
    Detector(
        "Datadog key",
        ("dd", "datadog"),
        re.compile(
            r"(?:dd|datadog)[_ -]?(?:api|app(?:lication)?)[_ -]?key\W{0,4}[0-9a-f]{32,40}(?![a-z0-9])"
        ),
        lower=True,
    ),
    _d(
        "Azure storage key",
        ("AccountKey=", "SharedAccessKey="),
        r"(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{30,}={0,2}",
    ),
    _d("Azure SAS token", ("sig=",), r"sig=[A-Za-z0-9%+/]{30,}(?:%3D|=){0,2}"),
    _d("Azure AD client secret", ("Q~",), r"Q~[A-Za-z0-9_~.-]{31,34}", _azure_ad),
    _d(
        "Discord bot token",
        (".",),
        r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}" + B,
        _discord,
    ),
    _d(
        "Telegram bot token",
        (":aa",),
        r":AA[0-9A-Za-z_-]{33}" + B,
        back("0123456789", 8, 10),
    ),
    _d("Artifactory token", ("AKC",), r"AKC[a-zA-Z0-9]{60,}"),
    _d("Artifactory token", ("AP",), r"AP[0-9A-F][a-zA-Z0-9]{40,}" + B, _token_start),
    _d("PuTTY private key", ("PuTTY-User-Key-File-",), r"PuTTY-User-Key-File-\d+: \S+"),
    _d("Square token", ("sq0",), r"sq0(?:csp|atp|idp)-[0-9A-Za-z_-]{22,43}"),
    _d("Square token", ("EAAA",), r"EAAA[0-9A-Za-z_-]{60}"),
    _d("Meta access token", ("EAA",), r"EAA[A-Z][0-9A-Za-z]{30,}" + B, _mixed),
    _d("Twitter bearer token", ("AAAAAAAAAAAAAAAAAAAAA",), r"A{21}[0-9A-Za-z%]{30,}"),
    _d("HashiCorp Vault token", ("hvs.", "hvb.", "hvr."), r"hv[sbr]\.[0-9A-Za-z_-]{24,}"),
    _d("HashiCorp Vault token", ("s.",), r"s\.[A-Za-z0-9]{24}" + B, _legacy_vault),
    _d(
        "HashiCorp Vault unseal key",
        ("unseal",),
        r"[Uu]nseal [Kk]ey[^:\n]{0,6}:\s*[A-Za-z0-9+/]{40,}={0,2}",
    ),
    _d(
        "HashiCorp Vault unseal key",
        ("operator unseal",),
        r"operator unseal\s+[A-Za-z0-9+/]{40,}={0,2}",
    ),
    _d("Bitbucket app password", ("ATBB",), r"ATBB[A-Za-z0-9_=.-]{28,}"),
    _d("Discord webhook URL", ("/api/webhooks/",), r"/api/webhooks/\d{5,}/[A-Za-z0-9_-]{40,}"),
    _d(
        "Microsoft Teams webhook URL",
        ("webhookb2/", ".office.com/webhook/"),
        r"\.office\.com/webhook(?:b2)?/[\w@.-]+/IncomingWebhook/[a-f0-9]{32}/[\w-]+",
    ),
    _d(
        "Firebase Cloud Messaging key",
        ("APA91b",),
        r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}",
    ),
    _d(
        "Braintree access token",
        ("access_token$",),
        r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}(?:\$[0-9a-f]{32})?",
    ),
    _d("Flutterwave secret key", ("FLWSECK",), r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X"),
    _d("Terraform Cloud token", ("atlasv1",), r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}"),
    _d("Grafana token", ("glc_",), r"glc_[A-Za-z0-9+/]{32,}={0,2}"),
    _d("Grafana token", ("glsa_",), r"glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}"),
    _d("Sentry token", ("sntry",), r"sntry[su]_[A-Za-z0-9+/=_]{40,}"),
    _d("New Relic key", ("NRAK-", "NRII-", "NRJS-"), r"NR(?:AK|II|JS)-[A-Z0-9]{20,}"),
    _d("Databricks token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?" + B),
    _d("Pulumi token", ("pul-",), r"pul-[a-f0-9]{40}" + B),
    _d("Supabase token", ("sbp_",), r"sbp_[a-f0-9]{40}" + B),
    _d("Airtable token", ("pat",), r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + B),
    _d("Dropbox token", ("sl.",), r"sl\.[A-Za-z0-9_-]{130,}", _not_after_alnum),
    _d("Figma token", ("figd_",), r"figd_[A-Za-z0-9_-]{40,}"),
    _d("Linear API key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}" + B),
    _d(
        "Notion token",
        ("secret_", "ntn_"),
        r"secret_[A-Za-z0-9]{43}" + B,
    ),
    _d("Notion token", ("ntn_",), r"ntn_[0-9]{11}[A-Za-z0-9]{35}" + B),
    _d("Postman API key", ("PMAK-",), r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _d(
        "Doppler token",
        ("dp.",),
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,32}\.)?[A-Za-z0-9]{40,}",
    ),
    _d("Atlassian API token", ("ATATT", "ATCTT"), r"AT[AC]TT[A-Za-z0-9_=-]{50,}"),
    _d("Age secret key", ("AGE-SECRET-KEY-",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    _d("PlanetScale token", ("pscale_",), r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}"),
    _d("Netlify token", ("nfp_",), r"nfp_[A-Za-z0-9]{36}" + B),
    _d("Buildkite token", ("bkua_",), r"bkua_[a-f0-9]{40}" + B),
    _d("CircleCI token", ("CCIPAT_",), r"CCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}"),
    _d("Docker Hub token", ("dckr_pat_",), r"dckr_pat_[A-Za-z0-9_-]{27,}"),
    _d("Replicate token", ("r8_",), r"r8_[A-Za-z0-9]{37}" + B, _not_after_alnum),
    _d("Groq API key", ("gsk_",), r"gsk_[A-Za-z0-9]{52}" + B),
    _d("xAI API key", ("xai-",), r"xai-[A-Za-z0-9]{70,}"),
    _d("Perplexity API key", ("pplx-",), r"pplx-[A-Za-z0-9]{48}" + B),
    _d("1Password service token", ("ops_",), r"ops_eyJ[A-Za-z0-9_-]{40,}"),
    _d(
        "Tailscale key",
        ("tskey-",),
        r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}",
    ),
    _d("Brevo API key", ("xkeysib-",), r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _d("Alibaba access key", ("LTAI",), r"LTAI[A-Za-z0-9]{12,28}" + B),
    _d("Shippo token", ("shippo_",), r"shippo_(?:live|test)_[a-f0-9]{40}"),
    _d("Mapbox secret token", ("sk.eyJ",), r"sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}"),
    _d("Fly.io token", ("fo1_", "fm1", "fm2_"), r"f(?:o1|m\d[a-z]?)_[A-Za-z0-9_+/=-]{40,}"),
    _d("Render API key", ("rnd_",), r"rnd_[A-Za-z0-9]{32}" + B),
    _d(
        "Plaid token",
        ("access-",),
        r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),
]
