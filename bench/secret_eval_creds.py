"""Credentials for bench/secret_eval.py, made fresh at each run from each format's documented
shape (vendor documentation of the prefix, alphabet and length; the rule sets' regexes where a
vendor documents nothing), each written the way people paste it: in an .env line, YAML, JSON,
code in several languages, a shell command or a sentence. Nothing here is copied from any
scanner's fixtures: every value is random.

FAMILIES maps a family (the rows of issue 27's table) to its formats, each a function of a
random.Random returning one text that holds one credential: bench/secret_services.py and
bench/secret_configs.py hold the formats, bench/secret_shapes.py how a value is made and written.
"""

from __future__ import annotations

import base64
import hashlib
import random

from bench.secret_configs import CONNECTIONS, GENERIC, KUBERNETES, PAYMENT
from bench.secret_services import CHAT, CLOUD, JWTS, OTHER, PRIVATE_KEYS, VCS
from bench.secret_shapes import Gen

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
