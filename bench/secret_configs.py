"""Credentials as configuration holds them, for bench/secret_eval_creds.py: passwords in
connection strings, payment keys, a secret after a keyword, a Kubernetes Secret's data.
"""

from __future__ import annotations

import base64
import random

from bench.secret_shapes import (
    ALNUM,
    DIGITS,
    HEX,
    LOWER,
    UPPER,
    URLSAFE,
    Gen,
    b64,
    human_password,
    named,
    prefixed,
    s,
    uuid,
    word,
)


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
