"""Text that holds no credential but looks close, for the false-alarm side of
bench/secret_study.py, made at run time in the shapes real tools write: Dependabot's commit
messages, Kubernetes manifests and annotations, identifiers (UUIDs, digests, commit ids),
base64 of things that are not secrets, public keys and certificates, and lock files of eight
package managers (hashes computed as each tool computes them). The real text of this
repository and of the installed packages comes from bench/secret_eval.real_texts.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random

from bench.secret_study_values import WORDS, make, uuid

PACKAGES = [
    ("lodash", "lodash/lodash"), ("axios", "axios/axios"), ("urllib3", "urllib3/urllib3"),
    ("jsonwebtoken", "auth0/node-jsonwebtoken"), ("golang.org/x/crypto", "golang/crypto"),
    ("serde", "serde-rs/serde"), ("django", "django/django"), ("actions/checkout", "actions/checkout"),
    ("next", "vercel/next.js"), ("requests", "psf/requests"), ("tokio", "tokio-rs/tokio"),
    ("passport", "jaredhanson/passport"), ("secretlint", "secretlint/secretlint"),
]  # fmt: skip


def _version(r: random.Random) -> str:
    return f"{r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 20)}"


def dependabot(r: random.Random) -> str:
    """A Dependabot commit message: title, links, release notes with commit ids, the YAML
    trailer of updated dependencies, sign-off."""
    name, repo = r.choice(PACKAGES)
    old, new = _version(r), _version(r)
    sha = make(r, "{H:40}")
    notes = r.choice([
        "Fix token refresh when the secret is rotated",
        "Support `kind: Secret` data from an existing secret (`existingSecret`)",
        "Add `password_file` option; deprecate `password`",
        "Bump the credentials provider to read `AWS_WEB_IDENTITY_TOKEN_FILE`",
        "Do not log the Authorization header",
    ])  # fmt: skip
    return (
        f"Bump {name} from {old} to {new}\n\n"
        f"Bumps [{name}](https://github.com/{repo}) from {old} to {new}.\n"
        f"- [Release notes](https://github.com/{repo}/releases)\n"
        f"- [Commits](https://github.com/{repo}/compare/v{old}...v{new})\n\n"
        f'<li><a href="https://github.com/{repo}/commit/{sha}"><code>{sha[:7]}</code></a> {notes}</li>\n'
        f'<li>See full diff in <a href="https://github.com/{repo}/compare/v{old}...v{new}">compare view</a></li>\n\n'
        "---\nupdated-dependencies:\n"
        f"- dependency-name: {name}\n  dependency-type: {r.choice(['direct:production', 'indirect'])}\n"
        f"  update-type: version-update:semver-{r.choice(['patch', 'minor', 'major'])}\n...\n\n"
        "Signed-off-by: dependabot[bot] <support@github.com>"
    )


ANNOTATIONS = [
    "eks.amazonaws.com/role-arn: arn:aws:iam::{D:12}:role/{w}-reader",
    "iam.gke.io/gcp-service-account: {w}@acme-prod.iam.gserviceaccount.com",
    "vault.hashicorp.com/agent-inject-secret-{w}-creds: database/creds/{w}",
    "vault.hashicorp.com/role: {w}",
    "credentials.acme.io/secret-name: {w}-registry-credentials",
    "credentials.acme.io/provider: ecr-credential-provider",
    "acme.io/credential-rotation: {w}-weekly-v2",
    "azure.workload.identity/client-id: {uuid}",
    'azure.workload.identity/use-credentials: "true"',
    "cert-manager.io/cluster-issuer: letsencrypt-prod",
    'secret.reloader.stakater.com/reload: "{w}-tls,{w}-db"',
    'external-secrets.io/force-sync: "{D:10}"',
    "token.acme.io/audience: api-{w}",
    "kubernetes.io/service-account.name: {w}-sa",
    'argocd.argoproj.io/sync-wave: "{D:1}"',
    "checksum/config: {H:64}",
    "checksum/secret: {H:64}",
]


def kubernetes(r: random.Random) -> str:
    w = r.choice(WORDS)
    picked = r.sample(ANNOTATIONS, 3)
    notes = "\n".join("    " + make(r, a.replace("{w}", w)) for a in picked)
    doc = (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {w}-api\n  annotations:\n{notes}\n"
        f"spec:\n  template:\n    spec:\n      containers:\n      - name: api\n        env:\n"
        f"        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n"
        f"              name: {w}-db\n              key: password\n"
    )
    return r.choice([doc, make(r, r.choice(ANNOTATIONS).replace("{w}", w))])


def identifiers(r: random.Random) -> str:
    u, sha = uuid(r), make(r, "{H:40}")
    return r.choice([
        f"request_id: {u}",
        f'clientId = "{u}"',
        f"credentialsId: '{u}'",
        f"Reverted in {sha}; see the build for {sha[:12]}",
        f"sha256: {make(r, '{H:64}')}",
        f'"checksum": "{make(r, "{H:64}")}"',
        f"git checkout {sha}",
        f"image: ghcr.io/acme/api@sha256:{make(r, '{H:64}')}",
        f"tenant_id = \"{u}\"",
        f"trace {make(r, '{H:32}')} span {make(r, '{H:16}')}",
        f"subscription: {u} resource group rg-{r.choice(WORDS)}",
        f"ETag: \"{make(r, '{H:32}')}\"",
        f"correlation-id={u}",
    ])  # fmt: skip


def base64_not_secret(r: random.Random) -> str:
    cfg = json.dumps({"region": "eu-west-1", "replicas": r.randint(1, 9), "name": r.choice(WORDS)})
    enc = base64.b64encode(cfg.encode()).decode()
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + r.randbytes(60)).decode()
    key = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + r.randbytes(32)).decode()
    cert = base64.b64encode(r.randbytes(96)).decode()
    return r.choice([
        f"config: {enc}",
        f"![logo](data:image/png;base64,{png})",
        f"ssh-ed25519 {key} {r.choice(WORDS)}@laptop",
        f"-----BEGIN CERTIFICATE-----\n{cert[:64]}\n{cert[64:]}\n-----END CERTIFICATE-----",
        f"-----BEGIN PUBLIC KEY-----\n{cert[:64]}\n-----END PUBLIC KEY-----",
        f"echo {enc} | base64 -d",
    ])  # fmt: skip


def lockfile(r: random.Random) -> str:
    data = r.randbytes(64)
    name, _ = r.choice(PACKAGES)
    tail = name.split("/")[-1]
    v = _version(r)
    sri = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    hexsha = hashlib.sha256(data).hexdigest()
    sha1 = hashlib.sha1(data).hexdigest()
    h1 = base64.b64encode(hashlib.sha256(data).digest()).decode()
    return r.choice([
        f'      "integrity": "{sri}",',
        f'  resolved "https://registry.yarnpkg.com/{tail}/-/{tail}-{v}.tgz#{sha1}"\n  integrity {sri}',
        f"    resolution: {{integrity: {sri}}}",
        f"github.com/acme/{tail} v{v} h1:{h1}",
        f"github.com/acme/{tail} v{v}/go.mod h1:{h1}",
        f'[[package]]\nname = "{tail}"\nversion = "{v}"\nchecksum = "{hexsha}"',
        f'    {{file = "{tail}-{v}-py3-none-any.whl", hash = "sha256:{hexsha}"}},',
        f"{tail}=={v} \\\n    --hash=sha256:{hexsha}",
        f'            "shasum": "{sha1}",',
        f'            "reference": "{sha1}",',
        f"    {tail} ({v})\n      sha256={hexsha}",
        f'"{tail}@^{v}": {{ "version": "{v}", "integrity": "{sri}" }}',
    ])  # fmt: skip


GENERATED = {
    "Dependabot commit messages": dependabot,
    "Kubernetes manifests and annotations": kubernetes,
    "identifiers: UUIDs, digests, commit ids": identifiers,
    "base64 of non-secrets, public keys, certificates": base64_not_secret,
    "lock files (npm, yarn, pnpm, Go, Cargo, Poetry, pip, Composer)": lockfile,
}


def generated_texts(r: random.Random, per_kind: int) -> dict[str, list[str]]:
    return {kind: [make_(r) for _ in range(per_kind)] for kind, make_ in GENERATED.items()}
