"""Credentials by family, written the way the four studied scanners write their own test inputs
(bench/secret_study_syntax.py), with values made fresh from each format's documented shape
(bench/secret_study_values.py). Nothing is copied from any scanner's fixtures.

`cases(r, per_format)` yields Case(family, fmt, syntax, source, text). Per family, the sources
whose rules and tests shaped it (read through the search tool, issue 41):

| family | studied |
| --- | --- |
| keyword assignments | detect-secrets keyword_test.py; gitleaks generic.go + GenerateSampleSecrets; Nosey Parker generic.yml (np.generic.2-14) |
| generic high-entropy | detect-secrets high_entropy_strings_test.py; gitleaks generic.go tps; Nosey Parker np.generic.1 |
| connection strings | trufflehog uri, postgres, mongodb, jdbc, sqlserver, redis tests; Nosey Parker odbc.yml, azure.yml, postgres.yml, mongo.yml |
| private keys, JWT | gitleaks PKCS8.go, RSA.go, jwt.go; Nosey Parker pem.yml, jwt.yml; detect-secrets private_key/jwt tests |
| cloud keys | Nosey Parker aws.yml, google.yml, azure.yml; gitleaks aws.go, gcp.go, azure.go, alibaba.go |
| VCS, chat | gitleaks github.go, gitlab.go, bitbucket.go; Nosey Parker azure.yml (np.azure.3); trufflehog slack/discord tests |
| payment | gitleaks adyen.go, braintree.go; trufflehog razorpay, squareapp, paypaloauth tests |
| other service tokens | gitleaks rules/*.go (service list, semi-generic identifiers); trufflehog detectors (keyword + value) |
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bench.secret_study_services import CHAT, CLOUD, OTHER, PAYMENT, VCS, Service
from bench.secret_study_syntax import (
    ALL,
    detect_secrets_style,
    gitleaks_style,
    noseyparker_style,
    trufflehog_style,
)
from bench.secret_study_values import b64url, make, password, s, uuid


@dataclass(frozen=True)
class Case:
    family: str
    fmt: str
    syntax: str
    source: str
    text: str


Gen = Callable[[random.Random], tuple[str, str, str]]  # (syntax, source, text)

SOURCES = ("gitleaks", "trufflehog", "noseyparker", "detect-secrets")
KEY_NAMES = {
    "password": ["password", "db_password", "admin_pass", "passwd", "pwd", "mysql_root_password"],
    "secret": ["client_secret", "secret", "app_secret", "api_secret", "secret_key"],
    "key": ["api_key", "apikey", "access_key", "private_key", "auth_key", "secret_access_key"],
    "token": ["auth_token", "access_token", "api_token", "refresh_token", "token", "bearer_token"],
    "credential": ["credentials", "creds", "service_credential"],
}


def _keyword_value(r: random.Random, word: str) -> str:
    if word == "password":
        return password(r)
    return make(r, r.choice(["{A:32}", "{H:40}", "{b64:30}", "{U:24}", "{A:20}", "{L:40}"]))


def keyword_case(r: random.Random) -> tuple[str, str, str]:
    word = r.choice(list(KEY_NAMES))
    name = r.choice(KEY_NAMES[word])
    value = _keyword_value(r, word)
    source = r.choice(SOURCES)
    if source == "detect-secrets":
        syntax, text = detect_secrets_style(r, name, value)
    elif source == "gitleaks":
        syntax = r.choice(list(ALL))
        text = ALL[syntax](r, name, value)
    elif source == "noseyparker":
        syntax, text = noseyparker_pair(r, name, value)
    else:
        service = r.choice(["acme", "billing", "internal"])
        syntax, text = trufflehog_style(r, service, value, word)
    return syntax, source, text


def noseyparker_pair(r: random.Random, name: str, value: str) -> tuple[str, str]:
    """Nosey Parker's generic rules: code literals, and the user/password forms."""
    user = r.choice(["deploy", "svc_backup", "jdoe@acme.io", "etl"])
    forms = {
        "user then password, two lines": f"user = '{user}'\npassword = '{value}'",
        "user then password, unquoted": f"USERNAME={user}\nPASSWORD={value}",
        "the password is '…'": f"The default password is '{value}'",
        "ruby hash rocket": f"  :password => '{value}',",
        "NetworkCredential": f'new NetworkCredential("{user}", "{value}");',
        "DirectoryEntry": f'new DirectoryEntry("LDAP://dc1.acme.local", "ACME\\\\{user}", "{value}")',
        ".NET add key": f'<add key="SmtpPassword" value="{value}"/>',
    }
    if r.random() < 0.5:
        return noseyparker_style(r, name, value)
    kind = r.choice(list(forms))
    return kind, forms[kind]


def high_entropy_case(r: random.Random) -> tuple[str, str, str]:
    value = make(r, r.choice(["{H:32}", "{H:40}", "{b64:45}", "{U:64}", "{b64:33}", "{A:40}"]))
    source = r.choice(["detect-secrets", "gitleaks", "noseyparker"])
    if source == "detect-secrets":
        forms = {
            "quoted": f'"{value}"',
            "single-quoted": f"'{value}'",
            "alone on a line": value,
            "two strings on a line": f'String #1: "{make(r, "{L:6}")}"; String #2: "{value}"',
        }
    elif source == "gitleaks":
        forms = {
            "JSON client_secret": f'"client_secret" : "{value}",',
            "creds =": f"creds = {value}",
            "mySecretString=": f"mySecretString={value}",
            "env getter default": f' cfg.GetEnvOrDefault("api_token", "{value}")',
            "user_auth JSON": f'"user_auth": "{value}"',
        }
    else:
        forms = {
            "CLIENT_SECRET constant": f'    private static String CLIENT_SECRET = "{value}";',
            "API_KEY constant": f'API_KEY = "{value}"',
            "buildConfigField": f"buildConfigField 'String', 'API_KEY', '\"{value}\"'",
        }
    kind = r.choice(list(forms))
    return kind, source, forms[kind]


def connection_case(r: random.Random, db: str) -> tuple[str, str, str]:
    pw = password(r).replace("@", "%40").replace("/", "%2F").replace(":", "%3A")
    host = r.choice(["db.internal", "10.2.3.4", "prod-db.acme.io", "localhost"])
    user = r.choice(["app", "admin", "svc_reader", "root", "postgres"])
    b64pw = base64.b64encode(r.randbytes(64)).decode()
    forms = {
        "postgres": [
            f"postgres://{user}:{pw}@{host}:5432/app",
            f"DATABASE_URL=postgresql://{user}:{pw}@{host}/app?sslmode=require",
            f'engine = create_engine("postgresql+psycopg2://{user}:{pw}@{host}/db")',
            f"host={host} port=5432 dbname=app user={user} password={pw}",
        ],
        "mysql": [
            f"mysql://{user}:{pw}@{host}:3306/shop",
            f"jdbc:mysql://{host}:3306/shop?user={user}&password={pw}",
            f"mysql -u {user} -p{pw} -h {host} shop",
        ],
        "mongodb": [
            f"mongodb+srv://{user}:{pw}@cluster0.{make(r, '{L:5}')}.mongodb.net/app?retryWrites=true",
            f"mongodb://{user}:{b64pw}@acct.mongo.cosmos.azure.com:10255/?ssl=true",
            f"MONGO_URI=mongodb://{user}:{pw}@{host}:27017,{host}:27018/?authSource=admin",
        ],
        "redis": [f"redis://default:{pw}@{host}:6379/0", f"rediss://:{pw}@{host}:6380"],
        "amqp": [f"amqp://{user}:{pw}@{host}:5672/vhost", f"amqps://{user}:{pw}@mq.acme.io"],
        "mssql ADO.NET": [
            f"Server=tcp:{host},1433;Initial Catalog=app;User ID={user};Password={pw};Encrypt=True;",
            f'"DefaultConnection": "Data Source={host};Database=app;User Id={user};Password={pw};"',
            f'optionsBuilder.UseSqlServer("Server={host};Database=app;User ID={user};Password={pw};")',
        ],
        "JDBC": [
            f"jdbc:sqlserver://{host}:1433;databaseName=app;user={user};password={pw};encrypt=true",
            f"jdbc:postgresql://{host}:5432/app?user={user}&password={pw}",
            f"spring.datasource.password={pw}",
        ],
        "ODBC": [
            f"Driver={{ODBC Driver 18 for SQL Server}};Server={host};Uid={user};Pwd={pw};",
            f"Provider=SQLOLEDB;Data Source={host};User Id={user};Password={pw};",
        ],
        "Oracle": [
            f"sqlplus {user}/{pw}@{host}:1521/ORCLPDB1",
            f"oracle://{user}:{pw}@{host}:1521/x",
        ],
        "LDAP/SMTP/FTP": [
            f"ldaps://cn=admin,dc=acme,dc=io:{pw}@{host}",
            f"smtp://mailer:{pw}@smtp.acme.io:587",
            f"ftp://{user}:{pw}@files.acme.io/in",
        ],
        "Azure Storage": [
            f"DefaultEndpointsProtocol=https;AccountName=acme{make(r, '{L:6}')};AccountKey={b64pw};EndpointSuffix=core.windows.net",
            f"AccountName=acme{make(r, '{L:4}')};\nAccountKey={b64pw};",
        ],
        "Azure Service Bus": [
            f"Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={make(r, '{b64:32}')}",
            f"HostName=acme.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={make(r, '{b64:32}')}",
        ],
    }
    source = (
        "trufflehog" if db not in ("ODBC", "Azure Storage", "Azure Service Bus") else "noseyparker"
    )
    text = r.choice(forms[db])
    return "connection string", source, text


CONNECTION_KINDS = (
    "postgres", "mysql", "mongodb", "redis", "amqp", "mssql ADO.NET", "JDBC", "ODBC", "Oracle",
    "LDAP/SMTP/FTP", "Azure Storage", "Azure Service Bus",
)  # fmt: skip


def pem_case(r: random.Random, kind: str) -> tuple[str, str, str]:
    body = base64.b64encode(r.randbytes(r.choice([400, 1200]))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    block = f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----"
    forms = {
        "file": block,
        "JSON escaped": json.dumps({"private_key": block + "\n"})[1:-1],
        "YAML block": "tls:\n  key: |\n    " + block.replace("\n", "\n    "),
        "env quoted": f'PRIVATE_KEY="{block}"',
        "header only and a line": f"-----BEGIN {kind}-----\n{lines[0]}",
    }
    syntax = r.choice(list(forms))
    return syntax, r.choice(["gitleaks", "noseyparker", "detect-secrets"]), forms[syntax]


def jwt_case(r: random.Random) -> tuple[str, str, str]:
    alg = r.choice(["HS256", "RS256", "ES256", "none"])
    head = b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    claims = {
        "sub": uuid(r),
        "iat": r.randint(10**9, 2 * 10**9),
        "role": r.choice(["svc", "admin"]),
    }
    body = b64url(json.dumps(claims).encode())
    sig = "" if alg == "none" else b64url(r.randbytes(32 if alg != "RS256" else 256))
    token = f"{head}.{body}.{sig}"
    forms = {
        "bare": token,
        "Authorization Bearer": f"Authorization: Bearer {token}",
        "env": f"JWT_TOKEN={token}",
        "JSON": f'{{"id_token": "{token}"}}',
        "curl header": f'curl -H "Authorization: Bearer {token}" https://api.acme.io/v1',
    }
    syntax = r.choice(list(forms))
    return syntax, r.choice(["gitleaks", "noseyparker", "detect-secrets"]), forms[syntax]


def service_case(r: random.Random, svc: Service) -> tuple[str, str, str]:
    value = make(r, svc.spec)
    sources = ["gitleaks", "trufflehog", "noseyparker"]
    source = r.choice(sources)
    if svc.self_evident and r.random() < 0.4:
        forms = {
            "bare": value,
            "sentence": f"rotated, the new one is {value}",
            "quoted": f'"{value}"',
        }
        syntax = r.choice(list(forms))
        return syntax, source, forms[syntax]
    if source == "gitleaks":
        syntax, text = gitleaks_style(r, svc.word, value)
    elif source == "trufflehog":
        syntax, text = trufflehog_style(r, svc.word, value)
    else:
        syntax, text = noseyparker_style(r, svc.env, value)
    return syntax, source, text


def _services(table: list[Service]) -> dict[str, Gen]:
    return {svc.name: (lambda r, svc=svc: service_case(r, svc)) for svc in table}  # type: ignore[misc]


FAMILIES: dict[str, dict[str, Gen]] = {
    "keyword assignments": {"key word, then a value": keyword_case},
    "generic high-entropy": {"high-entropy string": high_entropy_case},
    "connection strings": {
        db: (lambda r, db=db: connection_case(r, db))
        for db in CONNECTION_KINDS  # type: ignore[misc]
    },
    "private keys": {
        k: (lambda r, k=k: pem_case(r, k))  # type: ignore[misc]
        for k in (
            "RSA PRIVATE KEY",
            "PRIVATE KEY",
            "EC PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "DSA PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        )
    },
    "JWT": {"JWT": jwt_case},
    "cloud keys": _services(CLOUD),
    "VCS tokens": _services(VCS),
    "chat tokens": _services(CHAT),
    "payment": _services(PAYMENT),
    "other service tokens": _services(OTHER),
}


def cases(
    r: random.Random, per_format: int, *, weight: dict[str, int] | None = None
) -> Iterator[Case]:
    """`per_format` texts per format (times `weight[family]`: the keyword and high-entropy
    families have one format each, so they get more)."""
    weight = weight or {"keyword assignments": 40, "generic high-entropy": 20}
    for family, formats in FAMILIES.items():
        for fmt, gen in formats.items():
            for _ in range(per_format * weight.get(family, 1)):
                syntax, source, text = gen(r)
                yield Case(family, fmt, syntax, source, text)


__all__ = ["FAMILIES", "SOURCES", "Case", "cases", "s"]
