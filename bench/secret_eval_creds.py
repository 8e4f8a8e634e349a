"""Credentials for bench/secret_eval.py, made fresh at each run from each format's documented
shape (vendor documentation of the prefix, alphabet and length; the rule sets' regexes where a
vendor documents nothing), each written the way people paste it: in an .env line, YAML, JSON,
code in several languages, a shell command or a sentence. Nothing here is copied from any
scanner's fixtures: every value is random.

FAMILIES maps a family (the rows of issue 27's table) to its formats, each a function of a
random.Random returning one text that holds one credential.
"""

from __future__ import annotations

import base64
import hashlib
import json
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


# -- families -------------------------------------------------------------------------------------


def pem(kind: str) -> Gen:
    def make(r: random.Random) -> str:
        body = b64(r, 600)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        block = f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----"
        return r.choice([block, block.replace("\n", "\\n"), "key = '''" + block + "'''"])

    return make


def putty(r: random.Random) -> str:
    return (
        f"PuTTY-User-Key-File-{r.choice('23')}: ssh-ed25519\nEncryption: none\n"
        f"Comment: deploy@ci\nPublic-Lines: 2\n{b64(r, 48)}\n{b64(r, 12)}\n"
        f"Private-Lines: 1\n{b64(r, 32)}\nPrivate-MAC: {s(r, HEX, 64)}"
    )


PRIVATE_KEYS: dict[str, Gen] = {
    "RSA PEM": pem("RSA PRIVATE KEY"),
    "PKCS#8 PEM": pem("PRIVATE KEY"),
    "EC PEM": pem("EC PRIVATE KEY"),
    "OpenSSH": pem("OPENSSH PRIVATE KEY"),
    "encrypted PKCS#8": pem("ENCRYPTED PRIVATE KEY"),
    "PGP block": pem("PGP PRIVATE KEY BLOCK"),
    "DSA PEM": pem("DSA PRIVATE KEY"),
    "PuTTY key": putty,
}


def jwt(r: random.Random, *, signed: bool = True, alg: str = "HS256") -> str:
    head = b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    claims = {"sub": s(r, DIGITS, 8), "name": word(r), "iat": r.randint(10**9, 2 * 10**9)}
    body = b64url(json.dumps(claims).encode())
    if not signed:
        return f"{head}.{body}" + r.choice(["", "."])
    sig = b64url(r.randbytes(256 if alg.startswith("RS") else 32))
    return f"{head}.{body}.{sig}"


CHAT: dict[str, Gen] = {
    "Slack bot token": prefixed(
        lambda r: f"xoxb-{s(r, DIGITS, 12)}-{s(r, DIGITS, 13)}-{s(r, ALNUM, 24)}"
    ),
    "Slack user token": prefixed(
        lambda r: f"xoxp-{s(r, DIGITS, 12)}-{s(r, DIGITS, 12)}-{s(r, DIGITS, 13)}-{s(r, HEX, 32)}"
    ),
    "Slack config token": prefixed(lambda r: f"xoxe.xoxp-1-{s(r, ALNUM, 140)}"),
    "Slack refresh token": prefixed(lambda r: f"xoxe-1-{s(r, ALNUM, 140)}"),
    "Slack app token": prefixed(
        lambda r: f"xapp-1-A{s(r, UPPER + DIGITS, 10)}-{s(r, DIGITS, 13)}-{s(r, HEX, 64)}"
    ),
    "Slack webhook": lambda r: (
        f"https://hooks.slack.com/services/T{s(r, UPPER + DIGITS, 10)}/B{s(r, UPPER + DIGITS, 10)}/{s(r, ALNUM, 24)}"
    ),
    "Slack workflow webhook": lambda r: (
        f"https://hooks.slack.com/workflows/T{s(r, UPPER + DIGITS, 10)}/A{s(r, UPPER + DIGITS, 10)}/{s(r, DIGITS, 18)}/{s(r, ALNUM, 24)}"
    ),
    "Discord bot token": prefixed(
        lambda r: f"{r.choice('MNO')}{s(r, ALNUM, 25)}.{s(r, URLSAFE, 6)}.{s(r, URLSAFE, 38)}"
    ),
    "Discord webhook": lambda r: (
        f"https://discord.com/api/webhooks/{s(r, DIGITS, 18)}/{s(r, URLSAFE, 68)}"
    ),
    "Telegram bot token": named(
        "TELEGRAM_BOT_TOKEN", lambda r: f"{r.randint(10**8, 10**10 - 1)}:AA{s(r, URLSAFE, 33)}"
    ),
    "Teams webhook": lambda r: (
        f"https://acme.webhook.office.com/webhookb2/{uuid(r)}@{uuid(r)}/IncomingWebhook/{s(r, HEX, 32)}/{uuid(r)}"
    ),
}

JWTS: dict[str, Gen] = {
    "HS256 JWT": prefixed(jwt),
    "RS256 JWT": prefixed(lambda r: jwt(r, alg="RS256")),
    "unsigned two-part JWT": prefixed(lambda r: jwt(r, signed=False, alg="none")),
    "JWT in a cookie": lambda r: f"Cookie: session={jwt(r)}; path=/",
}


def aws_secret(r: random.Random) -> str:
    return s(r, B64, 40)


def aws_credentials_file(r: random.Random) -> str:
    return (
        f"[default]\naws_access_key_id = AKIA{s(r, UPPER + '234567', 16)}\n"
        f"aws_secret_access_key = {aws_secret(r)}"
    )


CLOUD: dict[str, Gen] = {
    "AWS access key id": prefixed(lambda r: "AKIA" + s(r, UPPER + "234567", 16)),
    "AWS temporary key id": prefixed(lambda r: "ASIA" + s(r, UPPER + "234567", 16)),
    "AWS secret key": named("AWS_SECRET_ACCESS_KEY", aws_secret),
    "AWS secret key (JSON)": lambda r: f'{{"SecretAccessKey": "{aws_secret(r)}"}}',
    "AWS credentials file": aws_credentials_file,
    "AWS session token": named("AWS_SESSION_TOKEN", lambda r: "IQoJb3JpZ2luX2Vj" + b64(r, 300)),
    "Google API key": prefixed(lambda r: "AIza" + s(r, URLSAFE, 35)),
    "GCP service account": lambda r: json.dumps(
        {"type": "service_account", "private_key_id": s(r, HEX, 40), "client_id": s(r, DIGITS, 21)}
    ),
    "Google OAuth secret": prefixed(lambda r: "GOCSPX-" + s(r, URLSAFE, 28)),
    "Google OAuth refresh token": named("refresh_token", lambda r: "1//0" + s(r, URLSAFE, 100)),
    "Azure storage connection string": lambda r: (
        f"DefaultEndpointsProtocol=https;AccountName=acme{s(r, LOWER, 4)};AccountKey={b64(r, 64)};EndpointSuffix=core.windows.net"
    ),
    "Azure AD client secret": named(
        "AZURE_CLIENT_SECRET",
        lambda r: f"{s(r, ALNUM, 3)}{r.randint(0, 9)}Q~{s(r, URLSAFE + '~.', 34)}",
    ),
    "Azure SAS": lambda r: (
        f"https://acme.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-01&sig={b64(r, 32).replace('=', '%3D').replace('+', '%2B')}"
    ),
    "Azure Cosmos key": named("COSMOS_KEY", lambda r: b64(r, 64)),
    "Alibaba access key": prefixed(lambda r: "LTAI" + s(r, ALNUM, r.choice([16, 20, 24]))),
    "DigitalOcean token": prefixed(lambda r: "dop_v1_" + s(r, HEX, 64)),
    "Cloudflare origin CA key": prefixed(lambda r: f"v1.0-{s(r, HEX, 24)}-{s(r, HEX, 146)}"),
    "Cloudflare API token": named("CLOUDFLARE_API_TOKEN", lambda r: s(r, URLSAFE, 40)),
    "Cloudflare global key": named("CLOUDFLARE_API_KEY", lambda r: s(r, HEX, 37)),
    "Fly.io token": lambda r: bare(r, f"FlyV1 fm{r.choice(['1r', '1a', '2'])}_{b64(r, 200)}"),
    "Heroku API key": named("HEROKU_API_KEY", uuid),
    "Heroku new key": prefixed(lambda r: "HRKU-AA" + s(r, URLSAFE, 58)),
    "IBM Cloud API key": named("IBM_CLOUD_API_KEY", lambda r: s(r, URLSAFE, 44)),
    "Tencent secret id": prefixed(lambda r: "AKID" + s(r, ALNUM, 32)),
    "Yandex IAM token": prefixed(lambda r: "t1.9euelZ" + s(r, URLSAFE, 150)),
}

VCS: dict[str, Gen] = {
    "GitHub classic PAT": prefixed(lambda r: "ghp_" + s(r, ALNUM, 36)),
    "GitHub OAuth": prefixed(lambda r: "gho_" + s(r, ALNUM, 36)),
    "GitHub app installation": prefixed(lambda r: "ghs_" + s(r, ALNUM, 36)),
    "GitHub user-to-server": prefixed(lambda r: "ghu_" + s(r, ALNUM, 36)),
    "GitHub fine-grained PAT": prefixed(
        lambda r: f"github_pat_11{s(r, UPPER + DIGITS, 20)}_{s(r, ALNUM, 59)}"
    ),
    "GitLab PAT": prefixed(lambda r: "glpat-" + s(r, URLSAFE, 20)),
    "GitLab routable PAT": prefixed(
        lambda r: f"glpat-{s(r, URLSAFE, 27)}.01.{s(r, LOWER + DIGITS, 9)}"
    ),
    "GitLab pipeline trigger": prefixed(lambda r: "glptt-" + s(r, HEX, 40)),
    "GitLab runner token": prefixed(lambda r: "glrt-" + s(r, URLSAFE, 20)),
    "Bitbucket app password": named(
        "BITBUCKET_APP_PASSWORD", lambda r: "ATBB" + s(r, ALNUM, 32) + s(r, HEX.upper(), 8)
    ),
    "Bitbucket app password (bare)": prefixed(
        lambda r: "ATBB" + s(r, ALNUM, 32) + s(r, HEX.upper(), 8)
    ),
    "Atlassian API token": prefixed(
        lambda r: "ATATT3xFfGF0" + s(r, URLSAFE, 170) + "=" + s(r, HEX.upper(), 8)
    ),
    "Azure DevOps PAT": named("AZURE_DEVOPS_PAT", lambda r: s(r, B32, 52)),
    "Gitea token": named("GITEA_TOKEN", lambda r: s(r, HEX, 40)),
    "git credential URL": lambda r: (
        f"https://x-access-token:ghs_{s(r, ALNUM, 36)}@github.com/acme/api.git"
    ),
}


OTHER: dict[str, Gen] = {
    "OpenAI project key": prefixed(lambda r: "sk-proj-" + s(r, URLSAFE, 156)),
    "OpenAI legacy key": prefixed(lambda r: f"sk-{s(r, ALNUM, 20)}T3BlbkFJ{s(r, ALNUM, 20)}"),
    "Anthropic key": prefixed(lambda r: "sk-ant-api03-" + s(r, URLSAFE, 93) + "AA"),
    "Hugging Face token": prefixed(lambda r: "hf_" + s(r, ALNUM, 34)),
    "npm token": prefixed(lambda r: "npm_" + s(r, ALNUM, 36)),
    "npmrc auth token": lambda r: f"//registry.npmjs.org/:_authToken={uuid(r)}",
    "PyPI token": prefixed(lambda r: "pypi-AgEIcHlwaS5vcmc" + s(r, URLSAFE, 140)),
    "SendGrid key": prefixed(lambda r: f"SG.{s(r, URLSAFE, 22)}.{s(r, URLSAFE, 43)}"),
    "Twilio API key": prefixed(lambda r: "SK" + s(r, HEX, 32)),
    "Twilio auth token": named("TWILIO_AUTH_TOKEN", lambda r: s(r, HEX, 32)),
    "Mailgun key": prefixed(lambda r: "key-" + s(r, HEX, 32)),
    "Mailchimp key": prefixed(lambda r: f"{s(r, HEX, 32)}-us{r.randint(1, 21)}"),
    "Postman key": prefixed(lambda r: f"PMAK-{s(r, HEX, 24)}-{s(r, HEX, 34)}"),
    "Sentry auth token": prefixed(
        lambda r: (
            "sntrys_"
            + b64url(json.dumps({"iat": r.random(), "url": "https://sentry.io"}).encode())
            + "_"
            + s(r, URLSAFE, 43)
        )
    ),
    # Sentry DSNs are left out: Sentry documents them as public, safe in client code.
    "New Relic key": prefixed(lambda r: "NRAK-" + s(r, UPPER + DIGITS, 27)),
    "Databricks token": prefixed(lambda r: "dapi" + s(r, HEX, 32)),
    "Doppler token": prefixed(lambda r: "dp.st.prd." + s(r, ALNUM, 43)),
    "Grafana cloud token": prefixed(lambda r: "glc_" + b64(r, 60)),
    "Grafana service account": prefixed(lambda r: f"glsa_{s(r, ALNUM, 32)}_{s(r, HEX, 8)}"),
    "Linear key": prefixed(lambda r: "lin_api_" + s(r, ALNUM, 40)),
    "Notion token": prefixed(lambda r: "ntn_" + s(r, DIGITS, 11) + s(r, ALNUM, 35)),
    "Dropbox token": prefixed(lambda r: "sl." + s(r, URLSAFE, 138)),
    "Figma token": prefixed(lambda r: "figd_" + s(r, URLSAFE, 40)),
    "Vault service token": prefixed(lambda r: "hvs." + s(r, URLSAFE, 90)),
    "Vault legacy token": named("VAULT_TOKEN", lambda r: "s." + s(r, ALNUM, 24)),
    "Vault unseal key": lambda r: f"Unseal Key {r.randint(1, 5)}: {b64(r, 33)}",
    "Vault root token": lambda r: f"Initial Root Token: hvs.{s(r, ALNUM, 24)}",
    "Terraform Cloud token": prefixed(lambda r: f"{s(r, ALNUM, 14)}.atlasv1.{s(r, URLSAFE, 67)}"),
    "Docker Hub PAT": prefixed(lambda r: "dckr_pat_" + s(r, URLSAFE, 27)),
    "Tailscale key": prefixed(lambda r: f"tskey-auth-{s(r, ALNUM, 12)}CNTRL-{s(r, ALNUM, 33)}"),
    "Groq key": prefixed(lambda r: "gsk_" + s(r, ALNUM, 52)),
    "Replicate token": prefixed(lambda r: "r8_" + s(r, ALNUM, 37)),
    "Age secret key": prefixed(lambda r: "AGE-SECRET-KEY-1" + s(r, UPPER + DIGITS, 58)),
    "Artifactory key": prefixed(lambda r: "AKCp" + s(r, ALNUM, 69)),
    "Okta token": named("OKTA_API_TOKEN", lambda r: "00" + s(r, URLSAFE, 40)),
    "Datadog API key": named("DD_API_KEY", lambda r: s(r, HEX, 32)),
    "Mapbox secret token": prefixed(
        lambda r: "sk.eyJ1Ijoi" + s(r, URLSAFE, 60) + "." + s(r, URLSAFE, 22)
    ),
    "Contentful token": named("CONTENTFUL_ACCESS_TOKEN", lambda r: s(r, URLSAFE, 43)),
    "Algolia admin key": named("ALGOLIA_ADMIN_KEY", lambda r: s(r, HEX, 32)),
    "Firebase FCM server key": prefixed(
        lambda r: f"AAAA{s(r, URLSAFE, 7)}:APA91b{s(r, URLSAFE, 134)}"
    ),
    "Shopify token": prefixed(lambda r: "shpat_" + s(r, HEX, 32)),
    "Pulumi token": prefixed(lambda r: "pul-" + s(r, HEX, 40)),
    "Netlify token": prefixed(lambda r: "nfp_" + s(r, ALNUM, 36)),
    "Render key": prefixed(lambda r: "rnd_" + s(r, ALNUM, 32)),
    "Facebook access token": prefixed(lambda r: "EAA" + r.choice("BCGIJ") + s(r, ALNUM, 150)),
    "Facebook app secret": named("FACEBOOK_APP_SECRET", lambda r: s(r, HEX, 32)),
    "Twitter bearer token": prefixed(lambda r: "A" * 22 + s(r, ALNUM + "%", 90)),
    "Lark/Feishu secret": named("APP_SECRET", lambda r: s(r, ALNUM, 32)),
    "CircleCI token": prefixed(lambda r: f"CCIPAT_{s(r, ALNUM, 22)}_{s(r, HEX, 40)}"),
    "Planetscale password": prefixed(lambda r: "pscale_pw_" + s(r, URLSAFE, 43)),
    "1Password service token": prefixed(lambda r: "ops_eyJ" + s(r, URLSAFE, 200)),
    "Sendinblue key": prefixed(lambda r: f"xkeysib-{s(r, HEX, 64)}-{s(r, ALNUM, 16)}"),
}


def url_password(r: random.Random) -> str:
    return r.choice([s(r, ALNUM, 16), human_password(r), s(r, ALNUM + "!*", 20)])


CONNECTIONS: dict[str, Gen] = {
    "postgres URL": lambda r: f"postgresql://app:{url_password(r)}@db.internal:5432/prod",
    "mysql URL": lambda r: (
        f"DATABASE_URL=mysql://admin:{url_password(r)}@10.0.0.{r.randint(2, 250)}/shop"
    ),
    "mongodb+srv URL": lambda r: (
        f"mongodb+srv://svc:{url_password(r)}@cluster0.{s(r, LOWER, 5)}.mongodb.net/app"
    ),
    "redis URL": lambda r: f"redis://default:{url_password(r)}@cache.acme.io:6379/0",
    "amqp URL": lambda r: f"amqp://worker:{url_password(r)}@mq.acme.io:5672/",
    "JDBC with password": lambda r: (
        f"jdbc:mysql://db.acme.io:3306/app?user=app&password={url_password(r)}"
    ),
    "ODBC / ADO.NET": lambda r: (
        f"Server=tcp:acme.database.windows.net,1433;Database=app;User ID=app;Password={url_password(r)};Encrypt=True;"
    ),
    "ODBC Pwd": lambda r: (
        f"Driver={{ODBC Driver 18 for SQL Server}};Server=db;Uid=sa;Pwd={url_password(r)};"
    ),
    ".netrc": lambda r: f"machine api.acme.io login deploy password {url_password(r)}",
    ".netrc multi-line": lambda r: (
        f"machine github.com\n  login ci-bot\n  password {url_password(r)}"
    ),
    "curl -u": lambda r: f"curl -u deploy:{url_password(r)} https://ci.acme.io/api/json",
    "curl --user": lambda r: (
        f"curl --user 'admin:{url_password(r)}' -X POST https://jenkins.acme.io/job/x/build"
    ),
    "NetworkCredential": lambda r: (
        f'var cred = new NetworkCredential("svc-build", "{url_password(r)}");'
    ),
    "PGPASSWORD": lambda r: f"PGPASSWORD={url_password(r)} psql -h db -U app",
    "mysql -p": lambda r: f"mysql -u root -p{human_password(r)} -h 127.0.0.1",
    "SQLAlchemy URL": lambda r: (
        f'create_engine("postgresql+psycopg://app:{url_password(r)}@db/app")'
    ),
    "docker login": lambda r: f"docker login -u ci -p {url_password(r)} registry.acme.io",
    "git remote with token": lambda r: (
        f"git clone https://oauth2:{s(r, URLSAFE, 20)}@gitlab.acme.io/a/b.git"
    ),
}


PAYMENT: dict[str, Gen] = {
    "Stripe live secret": prefixed(lambda r: "sk_live_" + s(r, ALNUM, r.choice([24, 99]))),
    "Stripe test secret": prefixed(lambda r: "sk_test_" + s(r, ALNUM, r.choice([24, 99]))),
    "Stripe restricted live": prefixed(lambda r: "rk_live_" + s(r, ALNUM, r.choice([24, 99]))),
    "Stripe restricted test": prefixed(lambda r: "rk_test_" + s(r, ALNUM, 24)),
    "Stripe webhook secret": prefixed(lambda r: "whsec_" + s(r, ALNUM, 32)),
    "Square access token": prefixed(lambda r: "EAAA" + s(r, URLSAFE, 60)),
    "Square OAuth secret": prefixed(lambda r: "sq0csp-" + s(r, URLSAFE, 43)),
    "Square app token": prefixed(lambda r: "sq0atp-" + s(r, URLSAFE, 22)),
    "Braintree access token": prefixed(
        lambda r: f"access_token$production${s(r, LOWER + DIGITS, 16)}${s(r, HEX, 32)}"
    ),
    "PayPal client secret": named("PAYPAL_CLIENT_SECRET", lambda r: "E" + s(r, URLSAFE, 79)),
    "Razorpay key secret": named("RAZORPAY_KEY_SECRET", lambda r: s(r, ALNUM, 24)),
    "Paystack secret": prefixed(lambda r: "sk_live_" + s(r, HEX, 40)),
    "Flutterwave secret": prefixed(lambda r: f"FLWSECK-{s(r, HEX, 32)}-X"),
    "Adyen API key": named("ADYEN_API_KEY", lambda r: "AQE" + s(r, URLSAFE + "+", 120)),
    "Plaid secret": named("PLAID_SECRET", lambda r: s(r, HEX, 30)),
}


def keyword_value(r: random.Random) -> str:
    return r.choice([s(r, ALNUM, 32), s(r, HEX, 40), b64(r, 30), s(r, URLSAFE, 24), uuid(r)])


GENERIC: dict[str, Gen] = {
    "bare Key=": lambda r: f"Key={s(r, ALNUM, 32)}",
    "bare ID= and Secret=": lambda r: f"ID={s(r, UPPER + DIGITS, 20)}\nSecret={s(r, ALNUM, 40)}",
    "bare Secret:": lambda r: f"Secret: {s(r, ALNUM + '+/', 40)}",
    "api key (uuid)": named("API_KEY", uuid),
    "apiKey (uuid, quoted)": lambda r: f'apiKey: "{uuid(r)}"',
    "secret (quoted hex)": lambda r: f'secret = "{s(r, HEX, r.choice([32, 40, 64]))}"',
    "token (quoted base64)": lambda r: f"auth_token: '{b64(r, r.choice([24, 32, 48]))}'",
    "signing key (hex)": named("SIGNING_KEY", lambda r: s(r, HEX, 64)),
    "client secret": named("CLIENT_SECRET", keyword_value),
    "access token": named("ACCESS_TOKEN", keyword_value),
    "private token": named("PRIVATE_TOKEN", keyword_value),
    "api secret": named("API_SECRET", keyword_value),
    "password (human)": named("DB_PASSWORD", human_password),
    "password = rootpasswd": lambda r: f'password = "{word(r)}passwd"',
    "passwd in YAML": lambda r: f"passwd: {human_password(r)}",
    "password (random)": named("PASSWORD", lambda r: s(r, ALNUM + "!@#%^&*", 16)),
    "pwd in dict": lambda r: f"{{'user': 'etl', 'pwd': '{human_password(r)}'}}",
    "secret_key_base": named("SECRET_KEY_BASE", lambda r: s(r, HEX, 128)),
    "Django SECRET_KEY": lambda r: f"SECRET_KEY = '{s(r, LOWER + DIGITS + '!@#$%^&*(-_=+)', 50)}'",
    "encryption key": named("ENCRYPTION_KEY", lambda r: b64(r, 32)),
    "webhook secret": named("WEBHOOK_SECRET", keyword_value),
    "Authorization Basic": lambda r: (
        "Authorization: Basic " + base64.b64encode(f"ci:{human_password(r)}".encode()).decode()
    ),
    "Authorization Bearer": lambda r: f"Authorization: Bearer {s(r, URLSAFE, 40)}",
}


def k8s_secret(r: random.Random) -> str:
    def enc(v: str) -> str:
        return base64.b64encode(v.encode()).decode()

    doc = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n"
        f"  username: {enc(word(r))}\n  {r.choice(['password', 'token', 'api-key', 'DB_PASS'])}: "
        f"{enc(r.choice([human_password(r), s(r, ALNUM, 24)]))}\n"
    )
    return doc if r.random() < 0.5 else " ".join(doc.split())


KUBERNETES: dict[str, Gen] = {"Secret manifest data": k8s_secret}


FAMILIES: dict[str, dict[str, Gen]] = {
    "private keys": PRIVATE_KEYS,
    "chat tokens": CHAT,
    "JWT": JWTS,
    "cloud keys": CLOUD,
    "VCS tokens": VCS,
    "other service tokens": OTHER,
    "connection strings": CONNECTIONS,
    "payment": PAYMENT,
    "generic after a keyword": GENERIC,
    "Kubernetes Secret data": KUBERNETES,
}


# -- texts that hold no credential but look close: for the false-positive side ------------------


def lockfile_lines(r: random.Random, n: int) -> list[str]:
    """Lines of npm, yarn, pnpm, Go, Cargo, Poetry and pip lock files, hashes computed the way
    each tool does (SRI sha512/sha1 in base64, hex sha256, Go's h1: base64)."""
    out: list[str] = []
    names = ["left-pad", "lodash", "@babel/core", "react-dom", "chalk", "semver", "tslib", "debug"]
    for _ in range(n):
        data = r.randbytes(64)
        name = r.choice(names)
        version = f"{r.randint(0, 20)}.{r.randint(0, 30)}.{r.randint(0, 9)}"
        sri = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
        sha1 = "sha1-" + base64.b64encode(hashlib.sha1(data).digest()).decode()
        hexsha = hashlib.sha256(data).hexdigest()
        tail = name.split("/")[-1]
        out.append(
            r.choice(
                [
                    f'      "integrity": "{sri}",',
                    f'      "integrity": "{sha1}",',
                    f'      "resolved": "https://registry.npmjs.org/{name}/-/{tail}-{version}.tgz",',
                    f"  integrity {sri}",
                    f'  resolved "https://registry.yarnpkg.com/{name}/-/{tail}-{version}.tgz#{hashlib.sha1(data).hexdigest()}"',
                    f"    resolution: {{integrity: {sri}}}",
                    f"github.com/acme/{tail} v{version} h1:{base64.b64encode(hashlib.sha256(data).digest()).decode()}",
                    f'checksum = "{hexsha}"',
                    f'    {{file = "{tail}-{version}-py3-none-any.whl", hash = "sha256:{hexsha}"}},',
                    f"    --hash=sha256:{hexsha} \\",
                    f'"{name}@^{version}": {{ "version": "{version}", "integrity": "{sri}" }}',
                ]
            )
        )
    return out
