"""Service tokens for bench/secret_eval_creds.py, one generator per documented format: private
keys, chat apps' tokens, JWTs, cloud keys, version control tokens and other services' keys.
"""

from __future__ import annotations

import json
import random

from bench.secret_shapes import (
    ALNUM,
    B32,
    B64,
    DIGITS,
    HEX,
    LOWER,
    UPPER,
    URLSAFE,
    Gen,
    b64,
    b64url,
    bare,
    named,
    prefixed,
    s,
    uuid,
    word,
)


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
