"""What bench/duplicate_pairs.py's templates are filled with, and how one is written down.

Each template names a pool of subjects ({x} and {y}, two of one pool); every template is filled
FILLS times with a team ({t}), a person ({p}) and a region ({r}) beside them.
"""

from __future__ import annotations

from collections.abc import Callable

SERVICES = ["checkout-api", "billing", "the ledger", "search", "the gateway", "payouts", "auth"]
PEOPLE = ["Alice", "Bob", "Priya", "Tomás", "Mei", "Olu", "Dana"]
COMPANIES = ["Revco", "CVS", "Acme", "Initech", "Globex", "Hooli", "Umbrella"]
TEAMS = ["platform", "payments", "growth", "security", "data", "mobile", "infra"]
REGIONS = ["us-east-1", "eu-west-1", "ap-south-1", "us-west-2", "eu-central-1", "sa-east-1"]
THINGS = ["the cache", "the queue", "the scheduler", "the exporter", "the importer", "the CDN"]
FILLS = 7  # subjects per template

# (style, label, a, b); {x} and {y} are two different subjects of one pool, {t} a team,
# {p} a person, {r} a region.
T = tuple[str, str, str, str]
Template = tuple[str, list[str], T]  # (style, pool, (style, label, a, b))
Add = Callable[..., None]  # add(style, label, a, b, pool=SERVICES)


def collector(into: list[Template]) -> Add:
    """`add(style, label, a, b, pool=SERVICES)`, appending one template to `into`."""

    def add(style: str, label: str, a: str, b: str, pool: list[str] = SERVICES) -> None:
        into.append((style, pool, (style, label, a, b)))

    return add
