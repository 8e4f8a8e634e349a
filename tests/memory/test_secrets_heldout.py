"""Issue 41, second pass: what the held-out evaluation (bench/secret_heldout.py, written from
secretlint, kingfisher, semgrep, GitGuardian's docs and vendors' docs) found the scanner missing,
and the look-alikes it must still pass. Values are made up for these tests."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from bench.secret_heldout import NEGATIVES, heldout_cases
from memory import secrets

MISSED = [
    # semgrep: sshpass, /etc/shadow, .npmrc's base64 _password, Kolide, Onfido
    "sshpass -p 'mrl7741KTE' ssh deploy@10.0.4.12",
    "sshpass -p quartz!lantern62 scp dump.sql etl@db.internal:/tmp",
    "deploy:$6$Qx3vT9bLk2Wm8Zp1$Jd83kfQ0aLm2nV7cPz9RtY4uE6wS1xB5hG8jK0oI3qN7vM2lC9dF4sA6zX1yT8r"
    "U5eW3iO0pL7kJ2hG9fD:19700:0:99999:7:::",
    "admin:$apr1$8x2Kp1Lq$W9cR3tY7uI1oP5aS8dF2g.",
    "//npm.acme.io/releases/:_password=bWFwbGUtdHVuZHJhLTQ0Mg==",
    "k2sk_v1_Hq7Lm2Xp9Rt4Wz8Kc3Vb6Nd1",
    "api_live.Qm3xT8pLw2K.Zr7Yt4Vb9Nc2Xk6Jh1Gf5Ds8Ap3Lq0We",
    # GitGuardian: `<-` assignments, a secret_id that is no identifier
    'db_password <- "Tq#8rLm2@Vz6pWk"',
    'service_credential <- "nV4q8Lz2Xw7T/kp3m~Rb9Ys6"',
    "secret_id := Hk72_plmz/Qr8vTx~3wLn",
    # kingfisher: Okta's SSWS header; secretlint: Vercel tokens, a wallet key in code
    "Authorization: SSWS 00Tx9Lm2Qp7Rz4Kw8Vb3Nc6Yd1Hf5Gj0Sa2Xe7Ui4O",
    "vcp_8Lq2Xm7Rt3Wz9Kp4Vb6Nc1Yd",
    'const wallet = new ethers.Wallet("0x5c1e8a3f7b2d9e4c6a0f1b8d3e7c2a9f4b6d0e1c8a3f5b7d2e9c4a6f0b1d8e3c");',
    # secretlint's JDBC multi-host form; vendor-documented prefixes
    "jdbc:mysql://[(host=db1,port=1111,user=svc,password=Cobalt.Meadow7),(host=db2,port=2222)]/app",
    "aio_Kx8Lm2Qp7Rz4Tw9Vb3Nc6Yd1Hf5G",
    "CLOUDFLARE=cfut_Kx8Lm2Qp7Rz4Tw9Vb3Nc6Yd1Hf5Gj0Sa2Xe7Ui4Oq8Lm2Qp7",
    "dckr_oat_Kx8Lm2Qp7Rz4Tw9Vb3Nc6Yd1Hf5Gj0S",
    "mdb_sa_sk_Kx8Lm2Qp7Rz4Tw9Vb3Nc6Yd1Hf5Gj0Sa2Xe7Ui4O",
    # the study set's own misses at seed 41: a chosen password after `password:` and in CSV
    "password: Granite.Harbor7",
    "pwd,Granite.Velvet3,",
    # kingfisher's Okta example in Terraform (seed 777)
    'variable "corp_okta_api_token" {\n  default = "00kq3Lm8Xw2Rz7Tp4Vb9Nc1Yd6Hf0Gj5Sa8Xe3Ui7"\n}',
]

LOOK_ALIKES = [
    *(n.replace("{word}", "billing").format() for n in NEGATIVES),
    "auth-13 schema-370 timeouts come from the pool",  # a generated note main took for a secret
    "github.com/acme/checkout v7.29.14/go.mod h1:AP0Xls0KVEyJsmBkkFnxbYiz7Mz3YBNB6r4WzOCCqPs=",
    '"integrity": "sha512-R3lBNNAnUNUDO/MbMO0CeWPckvEAAZSUGKHNq1aaYz67Uufo0yDDrykyugImOnz0Vl+7n6Oo'
    'rgcCoMT+t7hFgQ==",',
    "password = os.environ['DB_PASSWORD']  # never password=getpass",
    'variable "db_password_length" {\n  default = "thirty-two"\n}',
    "password = Config.Value7",
    "password: Optional[str]",
]


@pytest.mark.parametrize("text", MISSED)
def test_what_the_held_out_set_found_missing_is_refused(text: str) -> None:
    """Each was missed before this pass (bench/secret_study.py --set heldout, seed 41)."""
    assert secrets.scan(text), text


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_what_the_held_out_sources_call_no_secret_passes(text: str) -> None:
    assert secrets.scan(text) == [], text


@pytest.mark.parametrize("seed", [3, 5])
def test_the_held_out_set_is_refused_in_every_family(seed: int) -> None:
    """Per family at least 90%, overall at least 95% (the issue's bar), on fresh values."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed = []
    for case in heldout_cases(random.Random(seed), 2):
        hit = bool(secrets.scan(case.text))
        per[case.family][0] += 1
        per[case.family][1] += hit
        if not hit:
            missed.append((case.family, case.fmt, case.text[:80]))
    total = sum(n for n, _ in per.values())
    assert sum(h for _, h in per.values()) / total >= 0.95, missed
    assert {f: h / n for f, (n, h) in per.items() if h / n < 0.9} == {}, missed
