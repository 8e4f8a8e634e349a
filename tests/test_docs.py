"""The docs say what the code does: docs/CONFIGURATION.md lists exactly the variables
Config.from_env reads (jobs/config.py, through each area's reader in jobs/config_areas.py; the
only module that reads the environment: tests/test_architecture.py),
the README fits on a screen or two, and every link between the docs leads somewhere."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.parsing import parse

ROOT = Path(__file__).resolve().parents[1]
CONFIG = (ROOT / "jobs" / "config.py", ROOT / "jobs" / "config_areas.py")
TABLE = ROOT / "docs" / "CONFIGURATION.md"
NAME = re.compile(r"[A-Z][A-Z0-9_]*")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def variables_read(source: str) -> set[str]:
    """Every name the code looks up: the first argument of `get("NAME", …)` or `x.get("NAME")`."""
    found = set()
    for node in ast.walk(parse(source)):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        func = node.func
        named_get = (isinstance(func, ast.Name) and func.id == "get") or (
            isinstance(func, ast.Attribute) and func.attr == "get"
        )
        first = node.args[0]
        if named_get and isinstance(first, ast.Constant) and NAME.fullmatch(str(first.value)):
            found.add(str(first.value))
    return found


def variables_documented(text: str) -> list[str]:
    """The names in the first column of the table's rows (a row may name two)."""
    names = []
    for line in text.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([^`]+)`", line.split(" | ")[0])
    return names


def test_the_finders_find_what_they_should() -> None:
    """The check is real: lookups by name are found, other calls and lower-case keys are not."""
    source = 'get("A_B")\nenv.get("PORT", "1")\nget(name)\nd.get("key")\nf("NOT_READ")\n'
    assert variables_read(source) == {"A_B", "PORT"}
    table = "| `A` | 1 | a | web |\n| `B`, `C` | | `not_me` | all |\n| variable | default |\n"
    assert variables_documented(table) == ["A", "B", "C"]


def test_the_configuration_table_and_the_code_agree() -> None:
    """Every variable the configuration reads has one row, and every row is read by the code."""
    read = set().union(*(variables_read(path.read_text()) for path in CONFIG))
    documented = variables_documented(TABLE.read_text())
    assert len(read) > 40  # the finder still sees the settings
    assert sorted(n for n in set(documented) if documented.count(n) > 1) == []
    assert sorted(read - set(documented)) == [], "read by the code, missing from the table"
    assert sorted(set(documented) - read) == [], "in the table, read by no code"


def test_the_table_says_who_reads_each_variable() -> None:
    """Every row has a default column (may be empty), a description and the processes."""
    processes = {"all", "web", "worker", "beat", "socket", "CLI"}
    for line in TABLE.read_text().splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            assert len(cells) == 4 and cells[2], line
            assert set(cells[3].split(", ")) <= processes, line


def test_the_readme_fits_on_a_screen_or_two() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    out = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_every_link_between_the_docs_leads_somewhere() -> None:
    """Relative links in README.md and docs/*.md name a file that exists and, with `#`, one of
    its headings."""
    broken = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in LINK.findall(doc.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            file, _, anchor = target.partition("#")
            path = (doc.parent / file).resolve() if file else doc
            if not path.exists() or (anchor and anchor not in anchors(path)):
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_procfile_in_the_docs_is_the_procfile() -> None:
    """The deploy recipe shown in README.md and docs/DEPLOY.md is the Procfile tests/test_deploy.py
    runs, line for line."""
    lines = [f"    {line}" for line in (ROOT / "Procfile").read_text().splitlines() if line.strip()]
    assert len(lines) == 3
    for doc in (ROOT / "README.md", ROOT / "docs" / "DEPLOY.md"):
        shown = doc.read_text().splitlines()
        assert [line for line in lines if line not in shown] == [], doc.name
