"""Issue 27 through the doors: `hippo note` refuses every credential shape the issue lists (and
what detect-secrets alone recognises), naming the kind, never the value; it saves placeholder
URLs, names of secrets and lock-file lines; `hippo lint` finds a Kubernetes Secret manifest."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from pathlib import Path

import pytest

from bot.cli.main import main
from memory.format.lint import lint

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
R = random.Random(27)  # fixed: a failure names the shape, and reruns see the same value


def s(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def b64(n: int) -> str:
    return base64.b64encode(R.randbytes(n)).decode()


def jwt_unsigned() -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"none","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(b'{"sub":"4471","admin":true}').decode().rstrip("=")
    return f"{head}.{body}."


# shape → (a text holding one, the kind the refusal names)
REFUSED = {
    "bare Key=": (f"Key={s(ALNUM, 32)}", "credential after a key word"),
    "bare Secret:": (f"Secret: {b64(30)}", "credential after a key word"),
    "UUID after a key word": (
        f'api_key = "{s(HEX, 8)}-{s(HEX, 4)}-4{s(HEX, 3)}-a{s(HEX, 3)}-{s(HEX, 12)}"',
        "credential after a key word",
    ),
    "quoted hex after a key word": (f'secret = "{s(HEX, 64)}"', "credential after a key word"),
    "human password after a key word": ('password = "rootpasswd"', "credential after a key word"),
    "curl -u": ("curl -u deploy:granite17 https://ci.acme.test/api", "command line"),
    ".netrc": ("machine api.acme.test login deploy password Cobalt2006!", ".netrc"),
    "ODBC Password=;": ("Server=db;Uid=sa;Password=harbor75;", "connection string"),
    "NetworkCredential": ('new NetworkCredential("svc", "harbor73");', "NetworkCredential"),
    "Stripe sk_test_": ("sk_test_" + s(ALNUM, 24), "Stripe secret key"),
    "Stripe rk_live_": ("rk_live_" + s(ALNUM, 24), "Stripe secret key"),
    "Cloudflare origin CA": (f"v1.0-{s(HEX, 24)}-{s(HEX, 146)}", "Cloudflare origin CA key"),
    "Fly.io": (f"FlyV1 fm1r_{b64(120)}", "Fly.io token"),
    "Facebook": ("EAAG" + s(ALNUM, 120), "Meta access token"),
    "Bitbucket": ("ATBB" + s(ALNUM, 32) + s(HEX.upper(), 8), "Bitbucket app password"),
    "Vault unseal key": (f"Unseal Key 1: {b64(33)}", "Vault unseal key"),
    "unsigned JWT": (f"session {jwt_unsigned()}", "JWT"),
    "Kubernetes Secret, one line": (
        "apiVersion: v1 kind: Secret metadata: name: db type: Opaque data: password: "
        + base64.b64encode(b"Harbor2024!").decode(),
        "Kubernetes Secret data",
    ),
    # Only detect-secrets' own plugins know these: a Telegram token not starting AA, a Twilio
    # key in lower-case letters and digits.
    "detect-secrets Telegram": (f"bot {R.randint(10**8, 10**9)}:Bz{s(ALNUM, 33)}", "Telegram"),
    "detect-secrets Twilio": (f"AC{s(string.ascii_lowercase + string.digits, 32)}", "Twilio"),
}

SAVED = {
    "placeholder redis URL": "cache: redis://username:password@host:port/db",
    "placeholder transport URL": "broker is transport://user:password@hostname",
    "demo account URL": "RabbitMQ's default: amqp://guest:guest@localhost//",
    "a name, not a value": '"secret_access_key": AWS_SECRET_ACCESS_KEY',
    "a dotted name": '"sasl.password": sasl_password',
    "code": "cancelToken: source.token",
    "npm lock-file line": '"integrity": "sha512-'
    + base64.b64encode(hashlib.sha512(b"left-pad").digest()).decode()
    + '",',
    "yarn lock-file line": "integrity sha1-"
    + base64.b64encode(hashlib.sha1(b"chalk").digest()).decode(),
}


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    return ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]


@pytest.mark.parametrize("shape", REFUSED)
def test_note_refuses_each_shape_naming_the_kind_not_the_value(
    shape: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    text, kind = REFUSED[shape]
    assert main([*argv, "init"]) == 0
    capsys.readouterr()
    assert main([*argv, "note", f"for the deploy: {text}", "--json"]) == 1
    out = capsys.readouterr()
    said = out.out + out.err
    assert "secret" in said and kind in said, said
    value = text.split()[-1].strip("\"';,")
    assert value not in said


@pytest.mark.parametrize("shape", SAVED)
def test_note_saves_placeholders_names_and_lock_files(
    shape: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "init"]) == 0
    capsys.readouterr()
    assert main([*argv, "note", SAVED[shape], "--json"]) == 0, capsys.readouterr()
    assert json.loads(capsys.readouterr().out)["saved"] is True


def test_lint_reports_a_kubernetes_secret_manifest_by_line() -> None:
    """A Secret's base64 `data:` value is a secret wherever it sits; lint names path and line."""
    manifest = (
        "# k8s\n\n```yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n"
        f"  password: {base64.b64encode(b'Orchid_velvet9').decode()}\n```\n"
    )
    [problem] = lint({"MEMORY.md": b"# Memory\n\n- [[k8s]]\n", "k8s.md": manifest.encode()})
    assert (problem.path, problem.line, problem.code) == ("k8s.md", 9, "secret")
    assert "Kubernetes Secret data" in problem.message
