"""A held-out evaluation for the secret scanner (issue 41, second pass): credentials written the
way sources NOT used to write the rules write them, with fresh values each run. The rules were
written from gitleaks', trufflehog's, Nosey Parker's and detect-secrets' tests
(bench/secret_study_sets.py); this set was written afterwards, from, per source:

| source | what was read (through the search tool; nothing copied) |
| --- | --- |
| secretlint | rule sources: database-connection-string (and its additional test cases), generic-api-key, azure, aws, npm, docker, vercel, cloudflare, 1password, gcp, secp256k1-privatekey |
| kingfisher | rules and their examples: azure, azurestorage, cloudflare, auth0, okta, datadog, mongodb, gocardless, bitbucket, twilio, slack, stripe, jwt |
| semgrep | generic/secrets/security tests: ssh-password, generic-secret, snyk, npm-registry-auth-token (.npmrc), etc-shadow, sauce, codeclimate, kolide, onfido |
| GitGuardian docs | detectors: generic password (assignment tokens `:` `=` `||` `=>` `:=` `<-`), generic high entropy (`,` `>` `(` too; `secret`, `token`, `api key`, `credential`, `auth` names), SMTP credentials, specific-vs-generic intro |
| GitHub list + vendor docs | GitHub's supported secret scanning patterns (which providers), and the vendors' docs on the formats: Docker access tokens (PAT, OAT), New Relic keys, GitLab token prefixes, Stripe, Slack, Twilio, Okta, Datadog, Sentry, Doppler, Pulumi, npm, PyPI, Shopify, Atlassian, HashiCorp, Mollie, Paystack, Mailgun |

`heldout_cases(r, per_format)` yields bench.secret_study_sets.Case(family, fmt, syntax, source,
text); `heldout_negatives(r)` the look-alikes those sources list as not secrets.
"""

from __future__ import annotations

import base64
import json
import random
import re
from collections.abc import Iterator

from bench.secret_study_sets import Case
from bench.secret_study_values import b64url, make, password

Row = tuple[str, str, str, str, tuple[str, ...]]  # family, source, format, value spec, forms

SL, KF, SG, GG, GH = "secretlint", "kingfisher", "semgrep", "GitGuardian docs", "vendor docs"
CONN, CLOUD, VCS, CHAT = "connection strings", "cloud", "VCS", "chat"
OTHER, PAY, GEN, PEM, JWT = "other services", "payment", "generic/keyword", "private keys", "JWT"

ROWS: list[Row] = [
    # -- connection strings ------------------------------------------------------------------
    (CONN, SL, "MongoDB URI", "{pw}", (
        'CONNECTION_URI="mongodb://{user}:{v}@{host}:27017/{db}"',
        "mongodb+srv://{user}:{v}@gg-{L:5}.mongodb.net/{db}?retryWrites=true&w=majority",
    )),
    (CONN, SL, "MySQL", "{pw}", (
        'CONNECTION_URI="mysql://{user}:{v}@{host}:3306/{db}"',
        "mysql --user=doadmin --password={v} --host=db-mysql-ams3-{D:5}-do-user-{D:7}-0.b.db.ondigitalocean.com",
        "jdbc:mysql://{user}:{v}@[{host}:1111,{host}:2222]/{db}",
        "jdbc:mysql://[(host={host},port=1111,user={user},password={v}),(host=h2,port=2222,user=x,password={v})]/{db}",
        "Server={host};Database={db};Uid={user};Pwd={v};",
    )),
    (CONN, SL, "PostgreSQL", "{pw}", (
        'CONNECTION_URI="postgres://postgres:{v}@{host}:5434/{db}"',
        "PG_USERNAME={user}. PG_PASSWORD={v}",
        "PGPASSWORD={v} psql -h{host} -U{user} -p 25060",
        "create_engine('postgresql://{user}:{v}@{host}:5432/{db}')",
        "Host={host}; Port=5432; Database={db}; Username={user}; Password={v};",
    )),
    (CONN, KF, "MongoDB URI in code", "{pw}", (
        'client = mongoc_client_new ("mongodb+srv://{user}:{v}@my-atlas-{L:5}.mongodb.net/test");',
        '"mongodb://{user}:{v}@something.{L:4}.mongodb.net/myFirstDatabase"',
    )),
    (CONN, KF, "Azure Storage connection string", "{b64:64}", (
        "AzureWebJobsStorage=DefaultEndpointsProtocol=https;AccountName=acme{L:6};AccountKey={v};EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=http;AccountName=testacc{D:2};\nAccountKey={v};\nBlobEndpoint=http://127.0.0.1:8440/testacc1;",
        '"AZURE_STORAGE_CONNECTION_STRING": {{\n  "value": "DefaultEndpointsProtocol=https;AccountName=d1{L:8};AccountKey={v};EndpointSuffix=core.windows.net"\n}}',
    )),
    (CONN, KF, "IoT Hub / Service Bus", "{b64:32}", (
        '"IOTHUB_CONNECTION_STRING": {{\n  "value": "HostName=d1-{L:6}.azure-devices.net;SharedAccessKeyName=registryReadWrite;SharedAccessKey={v}"\n}}',
    )),
    (CONN, SG, "sshpass", "{pw}", ("sshpass -p '{v}' ssh {user}@{host}", "sshpass -p {v} scp dump.sql {user}@{host}:/tmp")),
    (CONN, GG, "SMTP credentials", "{pw}", (
        "SMTP_HOST=smtp.{host}\nSMTP_PORT=587\nSMTP_USER={user}@acme.io\nSMTP_PASSWORD={v}",
        "MAIL_HOST=smtp.mailgun.org\nMAIL_PORT=587\nMAIL_USERNAME=postmaster@mg.acme.io\nMAIL_PASSWORD={v}",
        'smtp_settings = {{ address: "smtp.{host}", port: 587, user_name: "{user}", password: "{v}" }}',
    )),
    # -- generic / keyword ---------------------------------------------------------------------
    (GEN, SL, "apikey in quotes", "{A:32}", (
        'const apikey = "{v}";', "api_key: '{v}'", '"apiKey": "{v}",', "APIKEY='{v}'",
    )),
    (GEN, SG, "secret = 40", "{A:40}", ("secret={v}", "SECRET: {v}")),
    (GEN, GG, "generic password", "{pw}", (
        'my_password = "{v}"', "db_password <- \"{v}\"", "password := \"{v}\"",
        "'password' => '{v}',", "const password = process.env.DB_PASSWORD || \"{v}\";",
        "admin_pwd: {v}",
    )),
    (GEN, GG, "generic high entropy", "{U:20}/{L:6}~{A:8}", (
        "secret_id := {v}", "service_credential <- \"{v}\"", 'config.set("auth_token", "{v}")',
        "<api.key>{v}</api.key>", "setApiKey(\"{v}\")", "refresh_token => '{v}'",
    )),
    (GEN, KF, "service-named key (camelCase)", "{A:40}", (
        "acmeAPIKey = {v}", "ACME_API_TOKEN: '{v}'", 'acme_key="{v}"', "const acmeApiSecret = '{v}'",
    )),
    (GEN, GH, "TOTP seed", "{X:32}", ("totpSecret: {v}", "OTP_SECRET={v}")),
    (GEN, SG, "/etc/shadow hash", "$6${A:16}${A:86}", ("{user}:{v}:19000:0:99999:7:::",)),
    # -- private keys ----------------------------------------------------------------------------
    (PEM, SL, "RSA/EC/OPENSSH/DSA PEM", "{pem}", ("{v}", 'PRIVATE_KEY="{v}"', "key: |\n  {v_indented}")),
    (PEM, SG, "PGP private key block", "{pgp}", ("{v}",)),
    (PEM, SL, "GCP service account JSON", "{gcp}", ("{v}",)),
    (PEM, SL, "secp256k1 (wallet) key", "0x{H:64}", (
        "ETH_PRIVATE_KEY={v}", 'privateKey: "{v}"', 'const wallet = new ethers.Wallet("{v}");',
        "DEPLOYER_PRIVATE_KEY={v_bare}",
    )),
    # -- JWT -------------------------------------------------------------------------------------
    (JWT, KF, "JWT", "{jwt}", ("{v}", "SUPABASE_ANON_KEY={v}", "localStorage.setItem('token', '{v}')")),
    # -- cloud -------------------------------------------------------------------------------------
    (CLOUD, SL, "AWS secret access key", "{B:40}", (
        "AWS_SECRET_ACCESS_KEY={v}", '"aws_secret_access_key": "{v}"', "SecretAccessKey: {v}",
        "aws_secret_access_key => '{v}'",
    )),
    (CLOUD, SL, "Azure client secret", "{L:3}8Q~{U:34}", (
        "AZURE_CLIENT_SECRET={v}", '"azure_client_secret": "{v}"', "client_secret => '{v}'",
    )),
    (CLOUD, KF, "Azure App Configuration", "{b64:32}", (
        "Endpoint=https://foo-{L:6}.azconfig.io;Id={A:4}-l0-s0:{A:20};Secret={v}",
        'private static string cs = "Endpoint=https://appcs-{L:4}.azconfig.io;Id={A:4}-l9-s0:{A:20};Secret={v}";',
    )),
    (CLOUD, KF, "Cloudflare API token", "{A:40}", (
        "cloudflareAPIKey = {v}", "CLOUDFLARE_API_TOKEN: '{v}'", 'cloudflare_key="{v}"',
    )),
    (CLOUD, KF, "Cloudflare origin CA key", "v1.0-{H:24}-{H:146}", (
        "X-Auth-User-Service-Key = {v}", 'cloudflare_service_key: "{v}"',
    )),
    (CLOUD, SL, "Cloudflare prefixed token", "{cfp}_{A:48}", ("CLOUDFLARE_API_TOKEN={v}", "{v}")),
    (CLOUD, KF, "MongoDB Atlas key", "{uuid}", ("ATLAS_PRIVATE_KEY={v}", "mongodb_atlas_private_key: {v}")),
    (CLOUD, KF, "MongoDB Atlas service account", "mdb_sa_sk_{U:6}{A:34}", ("{v}", "ATLAS_CLIENT_SECRET={v}")),
    (CLOUD, GH, "HashiCorp Vault / Terraform Cloud", "{hashi}", ("VAULT_TOKEN={v}", "token = \"{v}\"", "{v}")),
    # -- VCS ---------------------------------------------------------------------------------------
    (VCS, SL, "GitHub OAuth in a git URL", "{H:40}", (
        '"repository": "git+https://{v}:x-oauth-basic@github.com/acme/app.git"',
        "git clone https://{v}:x-oauth-basic@github.com/acme/infra",
    )),
    (VCS, KF, "Azure DevOps PAT (52)", "{b32:52}", (
        'var personalAccessToken = "{v}";', '$token = "{v}"', 'ado_pat =  "{v}"',
    )),
    (VCS, KF, "Bitbucket secret", "{U:44}", ("bitbucket_secret={v}", "bitbucket_key={v}")),
    (VCS, GH, "GitLab tokens", "{glp}-{U:20}", ("GITLAB_TOKEN={v}", "{v}", 'private_token: "{v}"')),
    (VCS, GH, "GitHub tokens", "{ghp}_{A:36}", ("GH_TOKEN={v}", "{v}", "export GITHUB_TOKEN={v}")),
    (VCS, GH, "Gitea token", "{H:40}", ("GITEA_TOKEN={v}", "gitea_access_token: {v}")),
    # -- chat --------------------------------------------------------------------------------------
    (CHAT, KF, "Slack tokens", "{slack}", ("{v}", "SLACK_BOT_TOKEN={v}", "token: '{v}'")),
    (CHAT, KF, "Slack webhook", "https://hooks.slack.com/services/T{X:10}/B{X:10}/{A:24}", ("{v}", 'webhook_url: "{v}"')),
    (CHAT, GH, "Discord webhook", "https://discord.com/api/webhooks/{D:18}/{U:68}", ("{v}", "DISCORD_WEBHOOK={v}")),
    (CHAT, GH, "Telegram bot token", "{D:10}:AA{U:33}", ("TELEGRAM_BOT_TOKEN={v}", "bot = Bot(token='{v}')")),
    (CHAT, GH, "Mattermost token", "{L:26}", ("MATTERMOST_TOKEN={v}", 'mattermost_access_token: "{v}"')),
    (CHAT, GH, "Zulip API key", "{A:32}", ("ZULIP_API_KEY={v}", "key={v}\nemail=bot@acme.zulipchat.com")),
    (CHAT, GH, "Teams webhook", "https://acme.webhook.office.com/webhookb2/{uuid}@{uuid}/IncomingWebhook/{H:32}/{uuid}", ("{v}",)),
    # -- payment -----------------------------------------------------------------------------------
    (PAY, KF, "Stripe secret key", "{sk}_live_{A:99}", ("{v}", "STRIPE_SECRET_KEY={v}", "Stripe.api_key = '{v}'")),
    (PAY, KF, "GoCardless token", "live_{U:40}", ('gocardless_token = "{v}"', 'GOCARDLESS_LIVE_KEY = "{v}"')),
    (PAY, GH, "Mollie key", "live_{A:30}", ("MOLLIE_API_KEY={v}", "$mollie->setApiKey(\"{v}\");")),
    (PAY, GH, "Paystack key", "sk_live_{H:40}", ("PAYSTACK_SECRET_KEY={v}", "{v}")),
    (PAY, GH, "Square token", "EAAA{U:60}", ("SQUARE_ACCESS_TOKEN={v}", "{v}")),
    (PAY, GH, "Braintree token", "access_token$production${L:16}${H:32}", ("{v}", "BRAINTREE_TOKEN={v}")),
    (PAY, GH, "Adyen credentials (documented headers)", "{U:64}", (
        "x-API-key: {v}", "Authorization: Basic {adyen_basic}",
    )),
    (PAY, SG, "Stripe restricted key", "rk_live_{A:99}", ("{v}", "STRIPE_KEY={v}")),
    # -- other services ----------------------------------------------------------------------------
    (OTHER, SL, "Docker PAT", "dckr_pat_{U:27}", ("DOCKERHUB_TOKEN={v}", "{v}", "docker login -u acme -p {v}")),
    (OTHER, GH, "Docker OAT", "dckr_oat_{U:32}", ("DOCKER_ORG_TOKEN={v}", "{v}")),
    (OTHER, SL, "Vercel token", "{vc}_{A:24}", ("VERCEL_TOKEN={v}", "{v}")),
    (OTHER, SL, "1Password service account", "{ops}", ("OP_SERVICE_ACCOUNT_TOKEN={v}", "{v}")),
    (OTHER, SL, "npm token", "npm_{A:36}", ("NPM_TOKEN={v}", "//registry.npmjs.org/:_authToken={v}")),
    (OTHER, SG, ".npmrc auth", "{uuid}", (
        "//registry.npmjs.org/:_authToken={v}", "_auth = {basic}", "//acme.npm/releases/:_password={b64pw}",
    )),
    (OTHER, KF, "Auth0 client secret", "{U:64}", (
        "auth0_client_secret: '{v}'", "auth0ClientSecret = '{v}'", "AUTH0_CLIENT_SECRET='{v}'",
    )),
    (OTHER, KF, "Okta API token", "00{U:40}", (
        "okta_api_token={v}", "Authorization: SSWS {v}", 'variable "corp_okta_api_token" {{\n  default = "{v}"\n}}',
    )),
    (OTHER, KF, "Datadog keys", "{H:32}", ("DD_API_KEY={v}", "datadog_api_key: {v}", "dd-apikey-{v}")),
    (OTHER, KF, "Datadog app key", "{H:40}", ("DD_APP_KEY={v}", "datadog_application_key = \"{v}\"")),
    (OTHER, KF, "Twilio secret", "{A:32}", (
        "const twilioApiKeySecret = '{v}'", "'API_KEY' => env('TWILIO_API_KEY', '{v}'),", "Twilio_key={v}",
    )),
    (OTHER, SG, "Snyk token", "{uuid}", ("SNYK_TOKEN={v}", "snyk auth {v}")),
    (OTHER, SG, "Sauce Labs key", "{uuid}", ("SAUCE_ACCESS_KEY={v}", "sauce_access_key:{v_upper}")),
    (OTHER, SG, "CodeClimate token", "{H:64}", ("CODECLIMATE_API_TOKEN={v}", 'CODECLIMATE_API_TOKEN="{v}"')),
    (OTHER, SG, "Kolide key", "k2sk_v1_{A:24}", ("{v}", "KOLIDE_API_KEY={v}")),
    (OTHER, SG, "Onfido token", "api_live.{U:11}.{U:32}", ("{v}", "ONFIDO_API_TOKEN={v}")),
    (OTHER, GH, "New Relic license key", "{H:36}NRAL", ("license_key: {v}", "export NEW_RELIC_LICENSE_KEY={v}")),
    (OTHER, GH, "New Relic user key", "NRAK-{X:27}", ("NEW_RELIC_API_KEY={v}", "{v}")),
    (OTHER, GH, "Sentry tokens", "{sentry}", ("SENTRY_AUTH_TOKEN={v}", "{v}")),
    (OTHER, GH, "Doppler token", "dp.{dp}.{A:43}", ("DOPPLER_TOKEN={v}", "{v}")),
    (OTHER, GH, "Pulumi token", "pul-{H:40}", ("PULUMI_ACCESS_TOKEN={v}", "{v}")),
    (OTHER, GH, "PyPI token", "pypi-AgEIcHlwaS5vcmc{U:120}", ("TWINE_PASSWORD={v}", "password = {v}", "{v}")),
    (OTHER, GH, "Shopify token", "{shp}_{H:32}", ("SHOPIFY_ACCESS_TOKEN={v}", "{v}")),
    (OTHER, GH, "Atlassian API token", "ATATT3xFfGF0{U:180}={h:8}", ("JIRA_API_TOKEN={v}", "{v}")),
    (OTHER, GH, "Mailgun key", "{H:32}-{H:8}-{H:8}", ("MAILGUN_API_KEY={v}", "mailgun_private_key: {v}")),
    (OTHER, GH, "Adafruit IO key", "aio_{A:28}", ("ADAFRUIT_IO_KEY={v}", "{v}")),
    (OTHER, GH, "Apify token", "apify_api_{A:36}", ("APIFY_TOKEN={v}", "{v}")),
    (OTHER, GH, "Linear key", "lin_api_{A:40}", ("LINEAR_API_KEY={v}", "{v}")),
    (OTHER, GH, "Postman key", "PMAK-{H:24}-{H:34}", ("POSTMAN_API_KEY={v}", "{v}")),
    (OTHER, GH, "Grafana service account", "glsa_{A:32}_{H:8}", ("GRAFANA_TOKEN={v}", "{v}")),
]  # fmt: skip

_CHOICES = {
    "cfp": ("cfk", "cfut", "cfat"),
    "glp": ("glpat", "gldt", "glrt", "glcbt", "glptt", "glft", "glimt", "gloas", "glsoat"),
    "ghp": ("ghp", "gho", "ghu", "ghs", "ghr"),
    "sk": ("sk", "rk"),
    "vc": ("vcp", "vci", "vca", "vcr", "vck"),
    "dp": ("pt", "st", "sa", "ct", "scim", "audit"),
    "shp": ("shpat", "shpca", "shppa", "shpss"),
    "user": ("deploy", "svc_app", "doadmin", "etl", "sandy"),
    "host": ("db.internal", "10.0.4.12", "prod-db.acme.io", "google.com"),
    "db": ("thegift", "app", "orders", "mydb"),
}
_FIELD = re.compile(r"\{(\w+)(?::(\d+))?\}")


def _pem(r: random.Random, kind: str) -> str:
    body = base64.b64encode(r.randbytes(r.choice([600, 1200]))).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {kind}-----\n{lines}\n-----END {kind}-----"


def _special(r: random.Random, kind: str) -> str | None:
    """Values a template cannot say in one field."""
    if kind == "pem":
        return _pem(r, r.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY",
                                 "DSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]))  # fmt: skip
    if kind == "pgp":
        return _pem(r, "PGP PRIVATE KEY BLOCK")
    if kind == "gcp":
        key = _pem(r, "PRIVATE KEY") + "\n"
        return json.dumps({"type": "service_account", "project_id": "acme-prod",
                           "private_key_id": make(r, "{H:40}"), "private_key": key,
                           "client_email": "ci@acme-prod.iam.gserviceaccount.com"}, indent=2)  # fmt: skip
    if kind == "jwt":
        head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        claims = {"iss": "supabase", "ref": make(r, "{L:20}"), "role": "anon",
                  "iat": r.randint(10**9, 2 * 10**9)}  # fmt: skip
        return f"{head}.{b64url(json.dumps(claims).encode())}.{b64url(r.randbytes(32))}"
    if kind == "ops":
        claims = {"signInAddress": "acme.1password.com", "email": make(r, "{L:13}@1passwordserviceaccounts.com"),
                  "secretKey": make(r, "A3-{X:6}-{X:6}-{X:5}"), "srpX": make(r, "{H:64}")}  # fmt: skip
        return "ops_" + b64url(json.dumps(claims).encode())
    if kind == "hashi":
        return r.choice(
            [make(r, "hvs.{U:90}"), make(r, "hvb.{U:130}"), make(r, "{A:14}.atlasv1.{U:67}")]
        )
    if kind == "slack":
        return r.choice([make(r, "xoxb-{D:12}-{D:13}-{A:24}"), make(r, "xoxp-{D:12}-{D:12}-{D:13}-{H:32}"),
                         make(r, "xapp-1-A{X:10}-{D:13}-{H:64}"), make(r, "xoxe.xoxp-1-{A:160}")])  # fmt: skip
    if kind == "sentry":
        claims = {"iat": r.randint(10**9, 2 * 10**9), "url": "https://sentry.io", "org": "acme"}
        org = "sntrys_" + b64url(json.dumps(claims).encode()) + "_" + make(r, "{U:43}")
        return r.choice([org, make(r, "sntryu_{H:64}")])
    return None


def _fill(r: random.Random, template: str, ctx: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        kind = m.group(1)
        if kind in ctx:
            return ctx[kind]
        if kind in _CHOICES:
            return r.choice(_CHOICES[kind])
        special = _special(r, kind)
        return special if special is not None else make(r, m.group())

    return _FIELD.sub(one, template)


def _case(r: random.Random, row: Row) -> Case:
    family, source, fmt, spec, forms = row
    form = r.choice(forms)
    value = _fill(r, spec, {})
    pw = password(r)
    ctx = {
        "v": value,
        "v_indented": value.replace("\n", "\n  "),
        "v_bare": value.removeprefix("0x"),
        "v_upper": value.upper(),
        "basic": base64.b64encode(f"{r.choice(_CHOICES['user'])}:{pw}".encode()).decode(),
        "b64pw": base64.b64encode(pw.encode()).decode(),
        "adyen_basic": base64.b64encode(
            f"ws_{r.randint(10**5, 10**6)}@Company.Acme:{pw}".encode()
        ).decode(),
    }
    text = _fill(r, form.replace("{{", "\0").replace("}}", "\1"), ctx)
    return Case(family, fmt, form[:40], source, text.replace("\0", "{").replace("\1", "}"))


def heldout_cases(r: random.Random, per_format: int) -> Iterator[Case]:
    """`per_format` texts per format, each in one of the ways its source writes it."""
    for row in ROWS:
        for _ in range(per_format):
            yield _case(r, row)


# What the held-out sources list as not secrets (their `ok` cases and negative examples, in
# fresh words): templates, placeholders, environment references, masked values.
NEGATIVES = (
    "//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}",
    "Host=your_host; Port=5432; Database=your_database; Username=your_username; Password=your_password;",
    "cmdInput := fmt.Sprintf(\"sshpass -p '%s'\", password)",
    "InstrumentationKey=00000000-0000-0000-0000-000000000000;EndpointSuffix=ai.contoso.com;",
    "az appconfig feature delete --connection-string Endpoint=https://contoso.azconfig.io;Id=xxx;Secret=xxx",
    "mongodb://{{username}}:{{password}}@localhost:27017/app",
    "postgres://user:password@localhost:5432/app",
    "AWS_SECRET_ACCESS_KEY=${{AWS_SECRET_ACCESS_KEY}}",
    'api_key: "<your-api-key>"',
    "SLACK_BOT_TOKEN=xoxb-your-token-here",
    "password = os.environ['DB_PASSWORD']",
    "export GITHUB_TOKEN=$(gh auth token)",
    "auth0_client_secret: '{{{{ .Values.auth0.clientSecret }}}}'",
    "The secret is rotated every 90 days; the token lives in Vault at secret/ci/{word}.",
    "okta_api_token = ENV.fetch('OKTA_API_TOKEN')",
    "STRIPE_SECRET_KEY=sk_live_...",
    "datadog_api_key: '{{{{ datadog_api_key }}}}'",
    "MAIL_PASSWORD=null",
    'token = "********"',
)


def heldout_negatives(r: random.Random, n: int) -> list[str]:
    words = ("staging", "prod", "billing", "deploy", "search")
    return [r.choice(NEGATIVES).replace("{word}", r.choice(words)).format() for _ in range(n)]
