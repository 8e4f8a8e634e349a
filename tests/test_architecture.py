"""Imports only point down: bot → jobs → (memory, integrations); memory imports nothing of ours."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.parsing import parse

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {
    "bot": {"bot", "jobs", "memory", "integrations"},
    "jobs": {"jobs", "memory", "integrations"},
    "integrations": {"integrations", "memory"},
    "memory": {"memory"},
}
# memory/ does no network I/O: none of these clients may appear there.
NETWORK = {
    "socket",
    "http",
    "slack_sdk",
    "slack_bolt",
    "github",
    "anthropic",
    "requests",
    "httpx",
    "redis",
    "flask",
    "celery",
    "urllib.request",
}


def modules(path: Path) -> set[str]:
    """Full dotted names imported by a file (absolute imports only)."""
    tree = parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def imports(path: Path) -> set[str]:
    return {m.split(".")[0] for m in modules(path)}


def network(path: Path) -> set[str]:
    return {m for m in modules(path) for n in NETWORK if m == n or m.startswith(n + ".")}


def test_imports_point_down() -> None:
    """No package imports a package above it."""
    bad = []
    for pkg, allowed in ALLOWED.items():
        for f in (ROOT / pkg).rglob("*.py"):
            ours = imports(f) & set(ALLOWED)
            if ours - allowed:
                bad.append(f"{f.relative_to(ROOT)} imports {sorted(ours - allowed)}")
    assert bad == []


def test_memory_does_no_network_io() -> None:
    """memory/ imports no network client."""
    bad = [
        f"{f.relative_to(ROOT)}: {sorted(network(f))}"
        for f in (ROOT / "memory").rglob("*.py")
        if network(f)
    ]
    assert bad == []


def test_only_memory_git_imports_pygit2() -> None:
    """git is reached through memory/git/ alone (store, writer, transport, history, blobs…)."""
    bad = [
        str(f.relative_to(ROOT))
        for pkg in ("bot", "jobs", "integrations", "memory", "demo")
        for f in (ROOT / pkg).rglob("*.py")
        if any(m == "pygit2" or m.startswith("pygit2.") for m in modules(f))
        and (ROOT / "memory" / "git") not in f.parents
    ]
    assert bad == []


CYCLE_PACKAGES = ("bot", "jobs", "memory", "integrations", "demo")


def module_files() -> dict[str, Path]:
    """Dotted module name → file, for every module of the packages that must not cycle."""
    files = {}
    for pkg in CYCLE_PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            files[".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")] = f
    return files


def import_graph() -> dict[str, set[str]]:
    """Module → the modules of ours it imports anywhere in the file (top level, inside functions,
    under TYPE_CHECKING): `from a.b import c` depends on a.b, and on a.b.c when that is a module."""
    files = module_files()
    graph: dict[str, set[str]] = {}
    for name, f in files.items():
        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(parse(f.read_text())):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, `level - 1` packages up
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                deps.add(base)
                deps.update(f"{base}.{a.name}" for a in node.names)
        graph[name] = {d for d in deps if d in files and d != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.add(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    """The check is real: a two-module and a three-module loop are found, a chain is not."""
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}, "g": set()}
    assert sorted(map(sorted, cycles(graph))) == [["a", "b"], ["c", "d", "e"]]


def test_the_import_graph_sees_every_kind_of_import() -> None:
    """Top-level, function-level and `from package import module` imports are all edges."""
    graph = import_graph()
    assert "jobs.config" in graph["bot.app"]  # from jobs.config import Config, at the top
    assert "bot.console.auth" in graph["bot.console.app"]  # from bot.console import auth
    assert "bot.app" in graph["bot.cli.server"]  # imported inside cmd_dev


def test_no_import_cycles() -> None:
    """No module imports, directly or through others, a module that imports it (static imports,
    function-level ones included)."""
    assert [sorted(c) for c in cycles(import_graph())] == []


# The process environment is read in one place (jobs/config.py: Config.from_env for settings,
# environment() for a child process, public_url_given); everything else gets a Config.
ENV_READER = ROOT / "jobs" / "config.py"
ENV_NAMES = {"environ", "environb", "getenv", "getenvb"}


def environ_reads(source: str) -> list[int]:
    """Lines that read the process environment: os.environ in any use but as the target of an
    assignment (`os.environ[name] = value` sets it for a library that reads it), os.getenv, and
    `from os import environ`."""
    tree = parse(source)
    written = {
        id(target.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Subscript)
    }
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and node.attr in ENV_NAMES
            and id(node) not in written
        ) or (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(a.name in ENV_NAMES for a in node.names)
        ):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_environment_check_finds_reads() -> None:
    """The check is real: get, getenv, a copy and an import are reads; setting a name is not."""
    source = "import os\nos.environ.get('A')\nos.getenv('B')\nos.environ['C'] = 'c'\nx = dict(os.environ)\n"
    assert environ_reads(source) == [2, 3, 5]
    assert environ_reads("from os import environ\n") == [1]


def test_only_the_configuration_reads_the_environment() -> None:
    """No module but jobs/config.py reads os.environ: settings reach code through a Config."""
    bad = []
    for pkg in [*ALLOWED, "demo"]:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            if f != ENV_READER:
                bad += [f"{f.relative_to(ROOT)}:{n}" for n in environ_reads(f.read_text())]
    assert bad == []
    assert environ_reads(ENV_READER.read_text())  # and it does read it


def re_exports(path: Path) -> list[str]:
    """Names a module (not a package's __init__) hands on from modules of ours: listed in its
    `__all__` though imported, or bound again under their own name (`kind_of = trust.kind_of`)."""
    tree = parse(path.read_text())
    imported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ALLOWED:
            imported.update(a.asname or a.name for a in node.names)
    out = []
    for node in tree.body:
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not isinstance(target, ast.Name):
            continue
        if target.id == "__all__" and isinstance(value, ast.List | ast.Tuple):
            names = [e.value for e in value.elts if isinstance(e, ast.Constant)]
            out += [f"__all__ lists {n}" for n in names if n in imported]
        elif (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and value.attr == target.id
        ):
            out.append(f"{target.id} = {ast.unparse(value)}")
    return out


def test_no_module_re_exports_another_modules_names() -> None:
    """Callers import a name from the module it lives in or from its package's __init__: no
    module passes on names of ours it imported (the old memory/ops.py re-exported 16)."""
    bad = [
        f"{f.relative_to(ROOT)}: {r}"
        for pkg in CYCLE_PACKAGES
        for f in (ROOT / pkg).rglob("*.py")
        if f.name != "__init__.py"
        for r in re_exports(f)
    ]
    assert bad == []


def test_the_re_export_check_sees_both_kinds(tmp_path: Path) -> None:
    """The check is real: an `__all__` naming an imported name and an alias are both found."""
    shim = tmp_path / "shim.py"
    shim.write_text(
        "from memory.writes.operations import AddEntry\nfrom memory.trust import rules as trust\n"
        "kind_of = trust.kind_of\nOWN = 1\n__all__ = ['AddEntry', 'OWN']\n"
    )
    assert re_exports(shim) == ["kind_of = trust.kind_of", "__all__ lists AddEntry"]
