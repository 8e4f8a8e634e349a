"""Packaging a user can trust: name, version, licence, declared imports, and the lock files."""

from __future__ import annotations

import ast
import importlib.metadata as md
import subprocess
import sys
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT
from tests.parsing import parse

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
OURS = {"bot", "demo", "jobs", "memory", "integrations", "tests", "bench"}
# Imported only under TYPE_CHECKING, or provided by the standard library's stubs.
TYPING_ONLY = {"_typeshed"}


def imported(*tops: str) -> set[str]:
    """Top-level third-party modules imported by the .py files under `tops`."""
    out: set[str] = set()
    for top in tops:
        for path in (ROOT / top).rglob("*.py"):
            for node in ast.walk(parse(path.read_text())):
                if isinstance(node, ast.Import):
                    out.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    out.add(node.module.split(".")[0])
    return out - set(sys.stdlib_module_names) - OURS - TYPING_ONLY


def names(requirements: list[str]) -> set[str]:
    return {canonicalize_name(Requirement(r).name) for r in requirements}


def distributions(modules: set[str]) -> dict[str, set[str]]:
    """module -> the installed distributions that provide it."""
    provided = md.packages_distributions()
    return {m: {canonicalize_name(d) for d in provided.get(m, [])} for m in modules}


def undeclared(modules: set[str], declared: set[str]) -> list[str]:
    return sorted(
        f"{m} (from {sorted(dists) or 'nothing installed'})"
        for m, dists in distributions(modules).items()
        if not dists & declared
    )


def test_every_import_of_the_code_is_a_declared_dependency() -> None:
    """What bot/, jobs/, memory/ and integrations/ import, pyproject's dependencies install."""
    code = imported("bot", "jobs", "memory", "integrations")
    assert "requests" in code and "werkzeug" in code  # the check sees real imports
    assert undeclared(code, names(PROJECT["dependencies"])) == []


def test_every_import_of_tests_and_benchmarks_is_declared() -> None:
    """Tests and benchmarks import only what the dependencies or the dev extra install, and the
    dev extra is not carrying a runtime dependency (no package only it installs is imported by
    the code; pyyaml, once read by tests only, now reads .hippo/checks.yml at run time)."""
    runtime, dev = names(PROJECT["dependencies"]), names(PROJECT["optional-dependencies"]["dev"])
    assert undeclared(imported("tests", "bench", "demo"), runtime | dev) == []
    code = imported("bot", "jobs", "memory", "integrations")
    used = set().union(*distributions(code).values())
    assert "pyyaml" in used and used & (dev - runtime) == set()


def pins(lock: str) -> dict[str, str]:
    out = {}
    for line in (ROOT / lock).read_text().splitlines():
        if line and not line.startswith((" ", "#", "-")):
            name, version = line.split("==")
            out[canonicalize_name(name)] = version.strip()
    return out


def test_the_locks_pin_every_declared_dependency_within_its_range() -> None:
    """requirements.lock pins the runtime dependencies, requirements-dev.lock those and the dev
    extra, each at a version pyproject.toml allows. Fails after a new dependency: `make lock`."""
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    for lock, wanted in (
        (runtime, PROJECT["dependencies"]),
        (dev, PROJECT["dependencies"] + PROJECT["optional-dependencies"]["dev"]),
    ):
        for text in wanted:
            req = Requirement(text)
            name = canonicalize_name(req.name)
            assert name in lock, f"{name} is not in the lock: run make lock"
            assert req.specifier.contains(lock[name], prereleases=True), (name, lock[name])
    assert all(dev.get(name) == version for name, version in runtime.items())


def test_the_tests_run_on_the_locked_versions() -> None:
    """This environment holds exactly the versions requirements-dev.lock pins (`make setup`)."""
    drift = {
        name: (version, installed)
        for name, version in pins("requirements-dev.lock").items()
        if (installed := md.version(name)) != version
    }
    assert drift == {}, "run make setup to install the locked versions"


def test_name_version_and_licence() -> None:
    """Distribution hippo-memory (hippo on the index is another project), command `hippo`, an
    SPDX licence with its file, and `hippo --version` saying the installed version."""
    assert PROJECT["name"] == "hippo-memory"
    assert PROJECT["scripts"] == {"hippo": "bot.cli.main:main"}
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert any(
        c.startswith("Programming Language :: Python :: 3.11") for c in PROJECT["classifiers"]
    )
    assert {"Source", "Issues"} <= set(PROJECT["urls"])
    assert md.version("hippo-memory") == PROJECT["version"]
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout == f"hippo {PROJECT['version']}\n"
