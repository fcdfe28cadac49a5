"""No import circle among musaport's modules (issue 36), read from the source with ``ast``.

An import inside a function counts as much as one at the top: a module that
imports its importer lazily still cannot be understood, tested or moved
without it (``port.reuse`` and ``port.run`` were such a pair). The graph is
static, so the test needs no import side effects and no optional dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "musaport"


def module_names(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    names = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules ``name`` imports, anywhere in it (``from a import b``: ``a.b`` if a module, else ``a``)."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:  # a submodule if it is one, else a name of ``base``
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = module_names(package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest circle through each module that is on one (Tarjan's components, then a search in each)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[set[str]] = []

    def visit(start: str) -> None:  # iterative: the graph may be deep
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in stack:
                low[node] = min(low[node], index[child])

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return [_shortest_circle(graph, min(c), c) for c in components if len(c) > 1]


def _shortest_circle(graph: dict[str, set[str]], start: str, within: set[str]) -> list[str]:
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & within):
                if child == start:
                    return paths[node] + [start]
                if child not in paths:
                    paths[child] = paths[node] + [child]
                    following.append(child)
        frontier = following
    raise AssertionError(f"{start}: no circle in its component")


def test_no_module_of_musaport_imports_itself_through_others() -> None:
    found = [" -> ".join(c) for c in cycles(import_graph())]
    assert found == [], "import circles (move the shared piece to its owner):\n" + "\n".join(found)


def test_the_cycle_finder_sees_a_lazy_circle(tmp_path: Path) -> None:
    """The finder itself: a circle closed by an import inside a function is found, a chain is not."""
    pkg = tmp_path / "musaport"
    (pkg / "port").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "port" / "__init__.py").write_text("")
    (pkg / "port" / "reuse.py").write_text("def port():\n    from musaport.port.run import work_on\n")
    (pkg / "port" / "run.py").write_text("from musaport.port import survey\nfrom .reuse import port\n")
    (pkg / "port" / "survey.py").write_text("import musaport.outdir\n")
    (pkg / "outdir.py").write_text("")
    graph = import_graph(pkg)
    assert graph["musaport.port.run"] == {"musaport.port.survey", "musaport.port.reuse"}
    assert cycles(graph) == [["musaport.port.reuse", "musaport.port.run", "musaport.port.reuse"]]
    (pkg / "port" / "run.py").write_text("from musaport.port import survey\n")
    assert cycles(import_graph(pkg)) == []
