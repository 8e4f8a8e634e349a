"""A corpus for measuring memory.secrets: credential formats with fresh fake values (made at
run time, so the detector cannot be tuned to a fixed list), evasions, and realistic memory
entries that hold no credential. Shared by tests/memory/test_secret_corpus.py and bench/secret_scan.py."""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"

Gen = Callable[[random.Random], str]


def s(r: random.Random, alphabet: str, n: int) -> str:
    return "".join(r.choice(alphabet) for _ in range(n))


def uuid(r: random.Random) -> str:
    return f"{s(r, HEX, 8)}-{s(r, HEX, 4)}-4{s(r, HEX, 3)}-a{s(r, HEX, 3)}-{s(r, HEX, 12)}"


def jwt(r: random.Random) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = (
        base64.urlsafe_b64encode(
            json.dumps({"sub": s(r, DIGITS, 8), "iat": r.randint(10**9, 2 * 10**9)}).encode()
        )
        .decode()
        .rstrip("=")
    )
    return f"{head}.{body}.{s(r, URLSAFE, 43)}"


def password(r: random.Random) -> str:
    return s(r, LOWER, 4) + r.choice("!#%&*+") + s(r, DIGITS, 3) + s(r, UPPER, 3) + s(r, ALNUM, 3)


# name → a fresh value of that format, as it would be pasted
FORMATS: dict[str, Gen] = {
    "Slack bot token": lambda r: f"xoxb-{s(r, DIGITS, 12)}-{s(r, DIGITS, 13)}-{s(r, ALNUM, 24)}",
    "Slack user token": lambda r: (
        f"xoxp-{s(r, DIGITS, 12)}-{s(r, DIGITS, 12)}-{s(r, DIGITS, 13)}-{s(r, HEX, 32)}"
    ),
    "Slack app token": lambda r: (
        f"xapp-1-A{s(r, UPPER + DIGITS, 10)}-{s(r, DIGITS, 13)}-{s(r, HEX, 64)}"
    ),
    "Slack webhook": lambda r: (
        f"https://hooks.slack.com/services/T{s(r, UPPER + DIGITS, 8)}/B{s(r, UPPER + DIGITS, 10)}/{s(r, ALNUM, 24)}"
    ),
    "GitHub classic PAT": lambda r: "ghp_" + s(r, ALNUM, 36),
    "GitHub OAuth token": lambda r: "gho_" + s(r, ALNUM, 36),
    "GitHub app token": lambda r: "ghs_" + s(r, ALNUM, 36),
    "GitHub refresh token": lambda r: "ghr_" + s(r, ALNUM, 76),
    "GitHub fine-grained PAT": lambda r: (
        f"github_pat_11{s(r, UPPER + DIGITS, 20)}_{s(r, ALNUM, 59)}"
    ),
    "GitLab PAT": lambda r: "glpat-" + s(r, URLSAFE, 20),
    "GitLab deploy token": lambda r: "gldt-" + s(r, URLSAFE, 20),
    "GitLab runner token": lambda r: "glrt-" + s(r, URLSAFE, 20),
    "GitLab runner registration": lambda r: "GR1348941" + s(r, URLSAFE, 20),
    "Hugging Face token": lambda r: "hf_" + s(r, ALNUM, 34),
    "PyPI token": lambda r: "pypi-AgEIcHlwaS5vcmc" + s(r, URLSAFE, 60),
    "npm token": lambda r: "npm_" + s(r, ALNUM, 36),
    "SendGrid key": lambda r: f"SG.{s(r, URLSAFE, 22)}.{s(r, URLSAFE, 43)}",
    "Twilio account SID": lambda r: "AC" + s(r, HEX, 32),
    "Twilio API key": lambda r: "SK" + s(r, HEX, 32),
    "Mailgun key": lambda r: "key-" + s(r, HEX, 32),
    "Mailgun key (new)": lambda r: f"MAILGUN_API_KEY={s(r, HEX, 32)}-{s(r, HEX, 8)}-{s(r, HEX, 8)}",
    "Mailchimp key": lambda r: f"{s(r, HEX, 32)}-us{r.randint(1, 21)}",
    "DigitalOcean PAT": lambda r: "dop_v1_" + s(r, HEX, 64),
    "DigitalOcean OAuth": lambda r: "doo_v1_" + s(r, HEX, 64),
    "Shopify access token": lambda r: "shpat_" + s(r, HEX, 32),
    "Shopify shared secret": lambda r: "shpss_" + s(r, HEX, 32),
    "Datadog API key": lambda r: "DD_API_KEY=" + s(r, HEX, 32),
    "Datadog app key in prose": lambda r: "the datadog app key is " + s(r, HEX, 40),
    "Heroku API key": lambda r: "HEROKU_API_KEY=" + uuid(r),
    "Heroku key in prose": lambda r: "heroku api key " + uuid(r),
    "Heroku new-format key": lambda r: "HRKU-" + s(r, URLSAFE, 60),
    "Azure storage connection string": lambda r: (
        f"DefaultEndpointsProtocol=https;AccountName=acme{s(r, LOWER, 4)};AccountKey={s(r, B64, 86)}==;EndpointSuffix=core.windows.net"
    ),
    "Azure Service Bus connection string": lambda r: (
        f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={s(r, B64, 43)}="
    ),
    "Azure SAS URL": lambda r: (
        f"https://acme.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig={s(r, ALNUM, 43)}%3D"
    ),
    "Azure AD client secret": lambda r: (
        f"{s(r, ALNUM, 3)}{r.randint(0, 9)}Q~{s(r, ALNUM + '_~.-', 34)}"
    ),
    "AWS access key id": lambda r: "AKIA" + s(r, UPPER + "234567", 16),
    "AWS session key id": lambda r: "ASIA" + s(r, UPPER + "234567", 16),
    "AWS secret key (env)": lambda r: "AWS_SECRET_ACCESS_KEY=" + s(r, B64, 40),
    "AWS secret key in prose": lambda r: "the aws secret key is " + s(r, B64, 40),
    "GCP service account JSON": lambda r: json.dumps(
        {
            "type": "service_account",
            "project_id": "acme",
            "private_key_id": s(r, HEX, 40),
            "private_key": "-----BEGIN PRIVATE KEY-----\n"
            + s(r, B64, 64)
            + "\n-----END PRIVATE KEY-----\n",
        }
    ),
    "Google API key": lambda r: "AIza" + s(r, URLSAFE, 35),
    "Google OAuth client secret": lambda r: "GOCSPX-" + s(r, URLSAFE, 28),
    "Google OAuth access token": lambda r: "ya29." + s(r, URLSAFE, 60),
    "Stripe secret key": lambda r: "sk_live_" + s(r, ALNUM, 24),
    "Stripe restricted key": lambda r: "rk_live_" + s(r, ALNUM, 24),
    "Stripe webhook secret": lambda r: "whsec_" + s(r, ALNUM, 32),
    "Anthropic key": lambda r: "sk-ant-api03-" + s(r, URLSAFE, 93) + "AA",
    "OpenAI key": lambda r: "sk-proj-" + s(r, URLSAFE, 48),
    "JWT": jwt,
    "RSA private key": lambda r: "-----BEGIN RSA PRIVATE KEY-----\n" + s(r, B64, 64),
    "OpenSSH private key": lambda r: "-----BEGIN OPENSSH PRIVATE KEY-----\n" + s(r, B64, 70),
    "postgres URL": lambda r: f"postgres://app:{s(r, ALNUM, 12)}@db.internal:5432/prod",
    "redis URL without user": lambda r: f"redis://:{s(r, ALNUM, 16)}@cache.internal:6379/0",
    "URL password with @": lambda r: (
        f"mysql://admin:{s(r, LOWER, 4)}@{s(r, DIGITS, 4)}@db.acme.io/app"
    ),
    "capitalised scheme": lambda r: f"Postgres://app:{s(r, ALNUM, 12)}@db.acme.io/prod",
    "basic auth header": lambda r: (
        "Authorization: Basic " + base64.b64encode(f"deploy:{password(r)}".encode()).decode()
    ),
    "password assignment": lambda r: f'DB_PASSWORD="{password(r)}"',
    "password in prose": lambda r: f"the staging db password is {password(r)}",
    "secret in YAML": lambda r: f"client_secret: {s(r, ALNUM, 32)}",
    "token in JSON": lambda r: f'{{"access_token": "{s(r, ALNUM, 40)}"}}',
    "Discord bot token": lambda r: f"M{s(r, ALNUM, 23)}.{s(r, URLSAFE, 6)}.{s(r, URLSAFE, 27)}",
    "Telegram bot token": lambda r: f"{r.randint(10**8, 10**9 - 1)}:AA{s(r, URLSAFE, 33)}",
    "Artifactory API key": lambda r: "AKCp" + s(r, ALNUM, 69),
    "Square access token": lambda r: "EAAA" + s(r, URLSAFE, 60),
    "Square OAuth secret": lambda r: "sq0csp-" + s(r, URLSAFE, 43),
    "Vault token": lambda r: "hvs." + s(r, URLSAFE, 90),
    "Terraform Cloud token": lambda r: f"{s(r, ALNUM, 14)}.atlasv1.{s(r, URLSAFE, 67)}",
    "Grafana service account token": lambda r: f"glsa_{s(r, ALNUM, 32)}_{s(r, HEX, 8)}",
    "Sentry user token": lambda r: "sntryu_" + s(r, HEX, 64),
    "New Relic key": lambda r: "NRAK-" + s(r, UPPER + DIGITS, 27),
    "Databricks token": lambda r: "dapi" + s(r, HEX, 32),
    "Pulumi token": lambda r: "pul-" + s(r, HEX, 40),
    "Supabase token": lambda r: "sbp_" + s(r, HEX, 40),
    "Linear key": lambda r: "lin_api_" + s(r, ALNUM, 40),
    "Notion token": lambda r: "ntn_" + s(r, DIGITS, 11) + s(r, ALNUM, 35),
    "Postman key": lambda r: f"PMAK-{s(r, HEX, 24)}-{s(r, HEX, 34)}",
    "Doppler token": lambda r: "dp.pt." + s(r, ALNUM, 43),
    "Age secret key": lambda r: "AGE-SECRET-KEY-1" + s(r, UPPER + DIGITS, 58),
    "Docker Hub PAT": lambda r: "dckr_pat_" + s(r, URLSAFE, 27),
    "Tailscale auth key": lambda r: f"tskey-auth-{s(r, ALNUM, 12)}-{s(r, ALNUM, 32)}",
    "Groq key": lambda r: "gsk_" + s(r, ALNUM, 52),
    "IBM Cloud IAM key": lambda r: "IBM_CLOUD_API_KEY=" + s(r, URLSAFE, 44),
    "IBM COS HMAC secret": lambda r: "cos_hmac_secret_access_key: " + s(r, HEX, 48),
    "SoftLayer key": lambda r: "SOFTLAYER_API_KEY=" + s(r, HEX, 64),
    "Cloudant URL": lambda r: f"https://acme:{s(r, HEX, 64)}@acme.cloudant.com",
    "Okta token": lambda r: "OKTA_API_TOKEN=00" + s(r, URLSAFE, 40),
    "high-entropy quoted string": lambda r: f'signing key "{s(r, B64, 44)}"',
}

# How a value hides: each takes the pasted value and returns the text that reaches memory.
EVASIONS: dict[str, Callable[[str], str]] = {
    "plain sentence": lambda v: f"for the deploy use {v} until Friday",
    "a letter before": lambda v: f"GITHUB_TOKEN_{v}",
    "a digit before": lambda v: f"x9{v}",
    "escaped newline in JSON": lambda v: json.dumps({"env": f"A=1\n{v}"})[1:-1],
    "zero-width space inside": lambda v: v[: len(v) // 2] + "\u200b" + v[len(v) // 2 :],
    "base64-encoded": lambda v: "config blob " + base64.b64encode(f"TOKEN={v}".encode()).decode(),
}


# -- realistic entries without credentials ----------------------------------------------------

SERVICES = [
    "checkout-api",
    "billing",
    "search",
    "auth-gateway",
    "ledger",
    "notifier",
    "web",
    "mobile-bff",
    "ingest",
    "scheduler",
]
PEOPLE = ["U024BE7LH", "U0G9QF9C6", "U05ALICE1", "U07BOB22X", "W0123ABCD"]
WORDS = [
    "deploy",
    "retry",
    "cache",
    "timeout",
    "queue",
    "index",
    "shard",
    "replica",
    "canary",
    "rollout",
    "alert",
    "budget",
    "quota",
    "latency",
    "p99",
    "vendor",
    "sandbox",
    "staging",
    "prod",
    "migration",
    "schema",
    "webhook",
    "cron",
    "backfill",
]
TEMPLATES = [
    "{svc} 504s come from the vendor sandbox under parallel load",
    "{svc} deploys need the `{word}` flag since v{v}; see {pr}",
    "rotate the {svc} token every 90 days; it lives in Vault under secret/{svc}/ci",
    'the {svc} API key is stored in 1Password, vault "{svc}-prod"; never paste it here',
    "password policy: at least 12 characters, rotated quarterly by the platform team",
    "{svc} uses token bucket rate limiting (burst 50, refill 10/s)",
    "fixed in commit {sha} ({pr}); the {word} regression was a missing index",
    "image {svc}@sha256:{sha64} is the last known good build",
    "request id {uuid} reproduces the {word} bug on staging",
    "run `kubectl -n {svc} rollout restart deploy/{svc}` after changing the {word} config",
    "the {svc} dashboard is https://grafana.acme.dev/d/{short}/{svc}?orgId=1&from=now-6h",
    "Slack thread: https://acme.slack.com/archives/C0{chan}/p{ts}",
    "{svc} reads DATABASE_URL from the environment; locally it is postgres://localhost:5432/{svc}",
    "api keys are per environment; ask #platform for a new one, do not share them",
    "the secret key base is regenerated on every deploy, so sessions reset",
    "session tokens expire after 12 hours; refresh tokens after 30 days",
    "{svc} max {word} is {n} per minute since {date}",
    "ssh to the bastion with `ssh deploy@bastion.acme.dev -p 2222`",
    "git remote is git@github.com:acme/{svc}.git; main is protected",
    "feature flag `{svc}.{word}.enabled` defaults to false",
    "the {word} job runs at 03:00 UTC via cron `0 3 * * *`",
    "{person} owns {svc}; escalate in #{svc}-oncall",
    "auth header format is `Authorization: Bearer <token>` for the internal API",
    "Base64 of the config is too long for env vars; mount it as a file instead",
    "password reset emails come from no-reply@acme.dev via SES",
    "checksum of the release tarball: {sha64}",
    "use `openssl rand -hex 32` to make a new signing secret, then set it in Vault",
    "{svc} connection pool: max 20, idle timeout 30s, statement timeout 5s",
    "token counts: the summary prompt uses about {n} tokens per thread",
    "the webhook secret for {svc} is in Vault at secret/webhooks/{svc}",
    "S3 bucket acme-{svc}-{word} holds the exports; lifecycle deletes after 30 days",
    "ARN arn:aws:iam::{acct}:role/{svc}-deployer is assumed by CI",
    "the {svc} OAuth client id is {svc}-web; its secret rotates with the cert",
    "{svc} version {v} pinned because {v2} broke the {word} path",
    "tracking issue acme/{svc}#{n}; closed by {pr}",
    "{svc} uses the key prefix `{svc}:{word}:` in Redis",
    "color tokens: primary #{hex6}, danger #{hex6}",
    "TOTP codes are six digits; the seed lives only on the YubiKey",
    "k8s secret `{svc}-credentials` is managed by external-secrets, not by hand",
    "the public key fingerprint is SHA256:{fp}",
]


def entry(r: random.Random) -> str:
    svc = r.choice(SERVICES)
    text = r.choice(TEMPLATES).format(
        svc=svc,
        word=r.choice(WORDS),
        v=f"{r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)}",
        v2=f"{r.randint(1, 9)}.{r.randint(0, 30)}",
        pr=f"https://github.com/acme/{svc}/pull/{r.randint(1, 9999)}",
        sha=s(r, HEX, 40),
        sha64=s(r, HEX, 64),
        uuid=uuid(r),
        short=s(r, ALNUM, 9),
        chan=s(r, UPPER + DIGITS, 8),
        ts=f"17{s(r, DIGITS, 14)}",
        n=r.randint(2, 50000),
        date=f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
        person=f"<@{r.choice(PEOPLE)}>",
        acct=s(r, DIGITS, 12),
        hex6=s(r, HEX, 6),
        fp=s(r, B64, 43),
    )
    meta = [
        f"source: https://github.com/acme/{svc}/pull/{r.randint(1, 9999)}",
        f"added: 2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
    ]
    if r.random() < 0.5:
        meta.append(f"by: {r.choice(PEOPLE)}")
    if r.random() < 0.2:
        meta.append(f"status: {r.choice(['tentative', 'active'])}")
    return f"- {text} [{'; '.join(meta)}]"
