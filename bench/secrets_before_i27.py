"""The secret scanner as it was before issue 27 (memory/secret_patterns.py and memory/secrets.py,
frozen in one file), the baseline of bench/secret_eval.py and bench/secret_scan.py."""

from __future__ import annotations

import base64
import binascii
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

Check = Callable[[str, re.Match[str]], int | None]


@dataclass(frozen=True)
class Detector:
    kind: str
    anchors: tuple[str, ...]  # any of them (lower-cased) in the lower-cased text; () = always
    rx: re.Pattern[str]
    # Where the secret starts (a pattern may match from a literal in its middle, which `re`
    # finds fast, and reach back), or None when the match is not a secret. Default: the match.
    check: Check | None = None
    # The pattern is lower-case and runs on the lower-cased text (positions are the same for
    # ASCII text; other text gets the pattern case-insensitively): far faster than "(?i)".
    lower: bool = False


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$|\{\{|<|%|\*{3}|\[|\(|x{4}|\.{3}|…)|example|placeholder|changeme|redacted|"
    r"your[_-]|dummy|sample|xxxx|0{8}|1234567|abcdef|\.\.\."
)
_WORDY = re.compile(r"^[A-Za-z]+(?:[-'][A-Za-z]+)*[.,!?:;)]*$")
_PATHY = re.compile(r"^(?:[\w.-]*/)+[\w.-]*$|://|^@|^#|^~")


def random_looking(value: str, *, strict: bool = False) -> bool:
    """A value after a key/secret/token/password word that looks like a credential, not prose,
    a placeholder, a path or a number. `strict` for values after a bare space (no `=` or `:`)."""
    value = value.rstrip(".,;:!?)]}'\"`")
    if len(value) < 8 or len(value) > 400:
        return False
    if _PLACEHOLDER.search(value) or _PATHY.search(value):
        return False
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    others = len(value) - letters - digits
    if letters == 0:
        return False  # a number
    if digits == 0 and others == 0:
        # Letters only: random mixed case (about half upper), not camelCase or a word.
        upper = sum(c.isupper() for c in value) / len(value)
        return len(value) >= 20 and 0.25 <= upper <= 0.75 and entropy(value) >= 4.0
    if _WORDY.match(value):
        return False
    bits = entropy(value)
    if strict or len(value) < 12:
        return bits >= 3.0 and digits > 0 and (len(value) >= 16 or others > 0 or bits >= 3.2)
    return bits >= 2.8


# Matched from the keyword on (the rest of an identifier may follow), then `=`/`:`/`=>`/" is "
# or a bare space, then the value. A bare "key" counts only after api/access/auth/… (_keyval).
_KEYVAL = re.compile(
    r"(?P<key>pass(?:word|wd|phrase)?|pwd|secret|token|credentials?|bearer|key|"
    r"conn(?:ection)?[ _.-]?string)[A-Za-z0-9_.-]{0,24}[\"']?"
    r"(?P<sep>\s*(?::=|=>|[:=])\s*|\s+(?:is|was|are|=)\s+|\s+)"
    r"[\"'`]?(?P<value>[^\s\"'`<>,;]{8,400})"
)  # lower-case: runs on lower-cased text (Detector.lower)


def _keyval(text: str, m: re.Match[str]) -> int | None:
    if m.group("key").lower() == "key" and not _KEY_PREFIX.search(
        text, max(0, m.start() - 16), m.start()
    ):
        return None  # a bare "key" (idempotency keys, map keys): only api/access/… keys count
    bare = not m.group("sep").strip()  # "password is X" is as explicit as "password: X"
    value = text[m.start("value") : m.end("value")]  # the original case, not the lowered
    return m.start() if random_looking(value, strict=bare) else None


_KEY_PREFIX = re.compile(
    r"(?i)(?:api|access|auth|account|signing|encryption|master|private|app|application|client|"
    r"sas|storage|hmac|license|subscription|secret|consumer|service)[ _.-]?$"
)
_QUOTED = re.compile(r"[\"'`](?P<value>[A-Za-z0-9+/_=-]{32,})[\"'`]")


def _high_entropy(text: str, m: re.Match[str]) -> int | None:
    v = m.group("value")
    mixed = v.lower() != v and v.upper() != v  # upper and lower case: not a hex digest
    return m.start() if mixed and entropy(v) >= 4.5 else None


def _back(chars: str, least: int = 1, most: int = 64) -> Check:
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


URLSAFE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
SCHEME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-"


def _d(
    kind: str,
    anchors: tuple[str, ...],
    pattern: str,
    check: Check | None = None,
) -> Detector:
    return Detector(kind, anchors, re.compile(pattern), check)


B = r"(?![A-Za-z0-9])"  # the token ends here (a trailing boundary that counts `_` as its own)

DETECTORS: list[Detector] = [
    # The whole block through its END line (or, cut short, the key lines that follow).
    _d(
        "private key block",
        ("PRIVATE KEY",),
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?:\\n|[A-Za-z0-9+/=\s:,-])*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:\\n|\r?\n|[A-Za-z0-9+/=])*)",
    ),
    _d("Slack token", ("xox",), r"xox[abposre]-[0-9A-Za-z-]{10,}"),
    _d("Slack app token", ("xapp-",), r"xapp-\d-[0-9A-Za-z-]{10,}"),
    _d(
        "Slack webhook URL",
        ("hooks.slack.com",),
        r"(?i)hooks\.slack\.com/(?:services|workflows)/T[0-9A-Z]+/[A-Z0-9]+/\w+",
    ),
    _d(
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        r"(?:ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{30,}",
    ),
    _d("GitHub fine-grained token", ("github_pat_",), r"github_pat_[0-9A-Za-z_]{40,}"),
    _d(
        "GitLab token",
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
            "GR1348941",
        ),
        r"(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas)-[0-9A-Za-z_-]{20,}|GR1348941[0-9A-Za-z_-]{20,}",
    ),
    _d("Anthropic API key", ("sk-ant-",), r"sk-ant-[0-9A-Za-z_-]{20,}"),
    _d("OpenAI API key", ("sk-",), r"sk-(?:proj-|svcacct-|admin-)?[0-9A-Za-z_-]{32,}"),
    _d("Hugging Face token", ("hf_", "api_org_"), r"(?:hf|api_org)_[A-Za-z0-9]{30,}"),
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
    _d(
        "Google OAuth secret",
        ("GOCSPX-", "ya29."),
        r"GOCSPX-[0-9A-Za-z_-]{28}|ya29\.[0-9A-Za-z_-]{30,}",
    ),
    _d(
        "GCP service account key", ("private_key_id",), r"\"private_key_id\"\s*:\s*\"[0-9a-f]{40}\""
    ),
    _d("Stripe secret key", ("_live_",), r"(?:sk|rk)_live_[0-9A-Za-z]{20,}"),
    _d("Stripe webhook secret", ("whsec_",), r"whsec_[0-9A-Za-z+/]{32,}"),
    _d("JWT", ("eyJ",), r"eyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}"),
    _d(
        "password in a URL",
        ("://",),
        r"://[^\s/:@]{0,64}:[^\s/]{3,128}@[^\s/@:]+",
        _back(SCHEME_CHARS),
    ),
    _d("basic auth header", ("basic",), r"(?i)authorization\W{0,4}basic\s+[A-Za-z0-9+/]{8,}={0,2}"),
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
        _back("0123456789abcdef", 32, 32),
    ),
    _d("DigitalOcean token", ("do", "dor_v1_"), r"do[opr]_v1_[a-f0-9]{64}"),
    _d("Shopify token", ("shp",), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _d(
        "Heroku API key",
        ("HRKU-", "heroku"),
        r"HRKU-[0-9A-Za-z_-]{40,}|(?i:heroku).{0,40}?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
    ),
    _d(
        "Datadog key",
        ("dd", "datadog", "DD", "Datadog", "DATADOG"),
        r"(?i:dd|datadog)[_ -]?(?i:api|app(?:lication)?)[_ -]?(?i:key)\W{0,4}[0-9a-f]{32,40}" + B,
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
        _back("0123456789", 8, 10),
    ),
    _d("Artifactory token", ("AKC",), r"AKC[a-zA-Z0-9]{60,}"),
    _d("Artifactory token", ("AP",), r"AP[0-9A-F][a-zA-Z0-9]{40,}"),
    _d(
        "Square token",
        ("sq0", "EAAA"),
        r"sq0(?:csp|atp|idp)-[0-9A-Za-z_-]{22,43}|EAAA[0-9A-Za-z_-]{60}",
    ),
    _d("Meta access token", ("EAA",), r"EAA[BC][0-9A-Za-z]{80,}"),
    _d("Twitter bearer token", ("AAAAAAAAAAAAAAAAAAAAA",), r"A{21}[0-9A-Za-z%]{30,}"),
    _d("HashiCorp Vault token", ("hvs.", "hvb."), r"hv[sb]\.[0-9A-Za-z_-]{24,}"),
    _d("Terraform Cloud token", ("atlasv1",), r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}"),
    _d(
        "Grafana token",
        ("glc_", "glsa_"),
        r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}",
    ),
    _d("Sentry token", ("sntry",), r"sntry[su]_[A-Za-z0-9+/=_]{40,}"),
    _d("New Relic key", ("NRAK-", "NRII-", "NRJS-"), r"NR(?:AK|II|JS)-[A-Z0-9]{20,}"),
    _d("Databricks token", ("dapi",), r"dapi[a-f0-9]{32}(?:-\d)?" + B),
    _d("Pulumi token", ("pul-",), r"pul-[a-f0-9]{40}" + B),
    _d("Supabase token", ("sbp_",), r"sbp_[a-f0-9]{40}" + B),
    _d("Airtable token", ("pat",), r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + B),
    _d("Dropbox token", ("sl.",), r"(?<![A-Za-z0-9])sl\.[A-Za-z0-9_-]{130,}"),
    _d("Figma token", ("figd_",), r"figd_[A-Za-z0-9_-]{40,}"),
    _d("Linear API key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}" + B),
    _d(
        "Notion token",
        ("secret_", "ntn_"),
        r"secret_[A-Za-z0-9]{43}" + B + r"|ntn_[0-9]{11}[A-Za-z0-9]{35}" + B,
    ),
    _d("Postman API key", ("PMAK-",), r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _d("Doppler token", ("dp.",), r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    _d("Atlassian API token", ("ATATT",), r"ATATT[A-Za-z0-9_=-]{50,}"),
    _d("Age secret key", ("AGE-SECRET-KEY-",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    _d("PlanetScale token", ("pscale_",), r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}"),
    _d("Netlify token", ("nfp_",), r"nfp_[A-Za-z0-9]{36}" + B),
    _d("Buildkite token", ("bkua_",), r"bkua_[a-f0-9]{40}" + B),
    _d("CircleCI token", ("CCIPAT_",), r"CCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}"),
    _d("Docker Hub token", ("dckr_pat_",), r"dckr_pat_[A-Za-z0-9_-]{27,}"),
    _d("Replicate token", ("r8_",), r"(?<![A-Za-z0-9])r8_[A-Za-z0-9]{37}" + B),
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
    _d("Alibaba access key", ("LTAI",), r"LTAI[A-Za-z0-9]{12,20}" + B),
    _d("Shippo token", ("shippo_",), r"shippo_(?:live|test)_[a-f0-9]{40}"),
    _d("Mapbox secret token", ("sk.eyJ",), r"sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}"),
    _d("Fly.io token", ("fo1_", "fm2_"), r"(?:fo1|fm2)_[A-Za-z0-9_+/=-]{40,}"),
    _d("Render API key", ("rnd_",), r"rnd_[A-Za-z0-9]{32}" + B),
    _d(
        "Plaid token",
        ("access-",),
        r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
    ),
    # Words that name a credential, then a value that looks random (detect-secrets' keyword
    # detector, tightened for prose: the value must look like a credential, not a word).
    Detector(
        "credential after a key word",
        ("pass", "pwd", "secret", "token", "key", "cred", "conn", "bearer"),
        _KEYVAL,
        _keyval,
        lower=True,
    ),
    # detect-secrets' high-entropy strings, in quotes or backticks (unquoted hex and base64 in
    # notes are commit ids and digests far more often than keys).
    Detector("high-entropy string", ('"', "'", "`"), _QUOTED, _high_entropy),
]


# -- the scanner (memory/secrets.py) --

# Characters that render as nothing: removed before matching (Cf format characters and friends).
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
_ESCAPE = re.compile(r"\\(?:[nrtfbv0]|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|(?P<char>[\"'\\/`]))")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")


@dataclass(frozen=True)
class Hit:
    kind: str
    start: int
    end: int


class _Index:
    """Detectors by lower-cased anchor, so a text costs one `in` per distinct anchor."""

    def __init__(self, detectors: list[Detector]) -> None:
        self.detectors = detectors
        self.always = [i for i, d in enumerate(detectors) if not d.anchors]
        self.by_anchor: dict[str, list[int]] = {}
        for i, d in enumerate(detectors):
            for a in d.anchors:
                self.by_anchor.setdefault(a.lower(), []).append(i)
        self.anchors = tuple(self.by_anchor)
        self.folded = [re.compile(d.rx.pattern, re.IGNORECASE) for d in detectors]

    def wanted(self, lowered: str) -> list[int]:
        chosen = set(self.always)
        # One `in` per distinct anchor (C speed; a combined alternation regex measured slower).
        for a in [a for a in self.anchors if a in lowered]:
            chosen.update(self.by_anchor[a])
        return sorted(chosen)  # detector order decides the kind reported for an overlap


_DEFAULT = _Index(DETECTORS)
_INDEXES: dict[int, _Index] = {id(DETECTORS): _DEFAULT}


def _raw(text: str, detectors: list[Detector] = DETECTORS) -> list[Hit]:
    """Pass 1: anchored detectors over `text` as it is."""
    index = _INDEXES.get(id(detectors))
    if index is None or index.detectors is not detectors:
        index = _INDEXES[id(detectors)] = _Index(detectors)
    lowered = text.lower()
    ascii_ = text.isascii()
    hits: list[Hit] = []
    for i in index.wanted(lowered):
        d = detectors[i]
        if not d.lower:
            matches = d.rx.finditer(text)
        elif ascii_:
            matches = d.rx.finditer(lowered)
        else:
            matches = index.folded[i].finditer(text)
        for m in matches:
            start = m.start() if d.check is None else d.check(text, m)
            if start is not None:
                hits.append(Hit(d.kind, start, m.end()))
    return hits


def _normalised(text: str) -> tuple[str, list[int]] | None:
    """The normalised view and, per character of it, its index in `text`; None if identical."""
    if text.isascii() and "\\" not in text:
        return None
    out: list[str] = []
    where: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            m = _ESCAPE.match(text, i)
            if m:
                out.append(m.group("char") or " ")  # \" is a quote; \n and friends a space
                where.append(i)
                i = m.end()
                continue
        if not ch.isascii():
            if _INVISIBLE.match(ch):
                i += 1
                continue
            for part in unicodedata.normalize("NFKC", ch):
                out.append(part)
                where.append(i)
            i += 1
            continue
        out.append(ch)
        where.append(i)
        i += 1
    view = "".join(out)
    return (view, where) if view != text else None


def _decoded(run: str) -> str | None:
    """A base64 (or base64url) run decoded, if it decodes to printable text."""
    if run.lower() == run or run.upper() == run:
        return None  # hex digests, words: not encoded text
    body = run.rstrip("=")
    body = body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if text and printable >= 0.95 * len(text) else None


def scan(text: str) -> list[Hit]:
    """Every credential-shaped span in `text`, in order (overlaps reported once)."""
    hits = _raw(text)
    view = _normalised(text)
    if view is not None:
        norm, where = view
        for h in _raw(norm):
            hits.append(Hit(h.kind, where[h.start], where[h.end - 1] + 1))
    for m in _BASE64.finditer(text):
        decoded = _decoded(m.group())
        if decoded is not None and _raw(decoded):
            hits.append(Hit(f"base64-encoded {_raw(decoded)[0].kind}", m.start(), m.end()))
    return _merge(hits)


def _merge(hits: list[Hit]) -> list[Hit]:
    """In order of start; a hit inside (or overlapping) an earlier kept one is dropped."""
    out: list[Hit] = []
    for h in sorted(hits, key=lambda h: (h.start, -h.end)):
        if out and h.start < out[-1].end:
            if h.end > out[-1].end:
                out[-1] = Hit(out[-1].kind, out[-1].start, h.end)
            continue
        out.append(h)
    return out


def first(text: str) -> str | None:
    """The kind of the first credential in `text`, or None. Cheap when there is none."""
    hits = scan(text)
    return hits[0].kind if hits else None


def redact(text: str) -> str:
    out, pos = [], 0
    for h in scan(text):
        out.append(text[pos : h.start] + f"[redacted {h.kind}]")
        pos = h.end
    return "".join(out) + text[pos:]
