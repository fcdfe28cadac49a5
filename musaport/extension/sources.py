"""Does every source a ported build file names exist in the ported tree? Checked, never assumed.

The port renames the files of a project (``_cuda.cu`` → ``_musa.mu``, ``cuda/``
→ ``musa/``) and the string pieces of its build files alike, so a path
expression that named a project file before names its port after, however
the script builds it. That is checked here, expression by expression: each
path a build file spells (a setup.py string, f-string, ``+`` or
``os.path.join`` of pieces, a ``glob`` pattern, a ``.format`` template; a
CMake argument or list element) is evaluated as a glob (``pyeval.pattern``:
what cannot be evaluated is ``*``) in the original build file against the
project's files, and in the ported build file against the ported tree (the
project with each ported file at its new path). The two must name the same
files, renamed; an expression that named files and names fewer, or others,
after the port is a ``build-source-lost`` finding. A ``sources`` entry of an
extension that cannot be evaluated at all is a ``build-source-unchecked``
finding: the report never claims more than was checked.
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

from musaport.extension.pyeval import WILD, assignments, pattern
from musaport.rewrite.apply import Finding

# A path that names sources: it ends with a C++/CUDA source suffix (or a glob of one).
_SOURCE_PATH = re.compile(r"\.(?:cu|cuh|mu|muh|cpp|cc|cxx|c|h|hpp)\*?$")
_CMAKE_DIR = re.compile(
    r"\$\{(CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}")
_CMAKE_VAR = re.compile(r"\$\{[^}]*\}|\$ENV\{[^}]*\}")

LOST = "build-source-lost"
UNCHECKED = "build-source-unchecked"
LOST_WHY = ("the ported build file names fewer or other sources than the original did: a kernel would leave "
            "the build without a word (a path the port could not follow)")
UNCHECKED_WHY = ("a source of the extension the port cannot evaluate (a name bound outside the script, a call it "
                 "does not know): check by hand that it names the ported files")


@dataclass(frozen=True)
class Site:
    """A path a build file spells: its line, the expression as written, its glob (root-relative; None when it
    cannot be evaluated)."""

    line: int
    text: str
    glob: str | None


def source_paths(tree: ast.AST, env: dict[str, ast.expr] | None = None) -> list[tuple[ast.expr, str]]:
    """Each outermost expression of a script that evaluates to a source path (or a glob of sources), with its
    glob relative to the script's folder."""
    env = assignments(tree) if env is None else env
    loops = _loops(tree)
    inner: set[int] = set()
    found = []
    for node in ast.walk(tree):  # breadth first: an outer expression comes before its parts
        if id(node) in inner or not isinstance(node, ast.expr) or not _pathish(node) or _is_list(node, env):
            continue  # a list (glob(a) + glob(b)) is no path: its parts are
        glob = pattern(node, env, loops)
        if glob is not None and _SOURCE_PATH.search(glob) and glob.strip("*/.") and not glob.startswith("/"):
            found.append((node, glob))
            inner.update(id(n) for n in ast.walk(node))
    return found


def source_pieces(tree: ast.AST) -> frozenset[tuple[int, int]]:
    """Where the strings are that are pieces of a source path (``d + '/cuda/' + n + '_cuda.cu'``): their
    folder names and file names are renamed as the port renames the project's. A name the path uses is
    followed to the value it is bound to (``root = "cuda"`` for ``"{}/src/*.cu".format(root)``): that string
    is a piece of the path too, or the folder would keep its CUDA name while the files are renamed."""
    env = assignments(tree)
    found: set[tuple[int, int]] = set()
    for node, _ in source_paths(tree, env):
        for piece in _pieces(node, env, set()):
            found.add((piece.lineno, piece.col_offset))
    return frozenset(found)


def _pieces(expr: ast.expr, env: dict[str, ast.expr], seen: set[str]) -> list[ast.expr]:
    """The string literals and f-strings of ``expr`` and of the values of the names it uses (each name once)."""
    out: list[ast.expr] = []
    for n in ast.walk(expr):
        if isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str)):
            out.append(n)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in env and n.id not in seen:
            seen.add(n.id)
            out.extend(_pieces(env[n.id], env, seen))
    return out


def _loops(tree: ast.AST) -> dict[str, ast.expr]:
    return {n.target.id: n.iter for n in ast.walk(tree)
            if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name)}


def setup_sites(text: str, folder: str) -> tuple[list[Site], list[Site]]:
    """(paths, unevaluable ``sources`` entries) of a setup.py (``text``: its lines as Python reads them)."""
    tree = ast.parse(text)
    env = assignments(tree)
    loops = _loops(tree)
    sites = [Site(node.lineno, ast.get_source_segment(text, node) or "", _root(folder, glob))
             for node, glob in source_paths(tree, env)]
    unchecked = []
    functions = _returns(tree)
    for entry in _source_entries(tree):
        if _is_list(entry, env, functions=functions):
            continue
        glob = pattern(entry, env, loops)
        if glob is None or not glob.replace(WILD, "").strip("/."):
            unchecked.append(Site(entry.lineno, ast.get_source_segment(text, entry) or "", None))
    return sites, unchecked


def _pathish(node: ast.expr) -> bool:
    return isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call))


_LIST_CALLS = frozenset({"glob", "iglob", "sorted", "list", "tuple"})


def _is_list(expr: ast.expr, env: dict[str, ast.expr], depth: int = 0,
             functions: dict[str, list[ast.expr | None]] | None = None) -> bool:
    """An expression that makes a list of paths (a glob, a list, a sum of lists, a name bound to one, a call of
    a function of the script whose every return is one): its entries are checked where they are written."""
    if depth > 8:
        return False
    if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    if isinstance(expr, ast.Call):
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if isinstance(func, ast.Name) and functions and name in functions:
            returns = functions[name]
            return bool(returns) and all(r is not None and _is_list(r, env, depth + 1, functions) for r in returns)
        return name in _LIST_CALLS
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _is_list(expr.left, env, depth + 1, functions) or _is_list(expr.right, env, depth + 1, functions)
    return isinstance(expr, ast.Name) and expr.id in env and _is_list(env[expr.id], env, depth + 1, functions)


def _returns(tree: ast.AST) -> dict[str, list[ast.expr | None]]:
    """The values each function of the script returns (its own ``return`` statements, not those of functions
    or lambdas nested in it; None for a bare ``return``), by name; a name defined twice is left out."""
    found: dict[str, list[ast.expr | None]] = {}
    twice: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name in found:
                twice.add(node.name)
            values: list[ast.expr | None] = []
            todo: list[ast.AST] = list(node.body)
            while todo:
                child = todo.pop()
                if isinstance(child, ast.Return):
                    values.append(child.value)
                elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                    todo.extend(ast.iter_child_nodes(child))
            found[node.name] = values
    return {name: values for name, values in found.items() if name not in twice}


def _source_entries(tree: ast.AST) -> list[ast.expr]:
    """The entries of each ``*Extension(name, sources, ...)`` call's sources list, as written."""
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if not name.endswith("Extension") or name.startswith("Build"):
            continue
        sources = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == "sources"), None)
        if isinstance(sources, (ast.List, ast.Tuple)):
            out.extend(e for e in sources.elts if not isinstance(e, ast.Starred))
        elif sources is not None:
            out.append(sources)
    return out


def cmake_sites(code: str, text: str, folder: str, args: re.Pattern[str], sep: re.Pattern[str]) -> list[Site]:
    """The source paths a CMakeLists.txt names (``code``: comments blanked), list elements one by one;
    ``${CMAKE_CURRENT_SOURCE_DIR}`` and the like are the folders they are, other variables ``*``."""
    sites = []
    for m in args.finditer(code):
        value = m.group(0)[1:-1] if m.group(0).startswith('"') else m.group(0)
        for element in sep.split(value):
            base = folder
            top = _CMAKE_DIR.match(element)
            if top:
                base = "" if top.group(1) in ("PROJECT_SOURCE_DIR", "CMAKE_SOURCE_DIR") else folder
                element = element[top.end() :].lstrip("/")
            glob = _CMAKE_VAR.sub(WILD, element)
            if _SOURCE_PATH.search(glob) and glob.strip("*/.") and not glob.startswith("/"):
                sites.append(Site(text.count("\n", 0, m.start()) + 1, element, _root(base, glob)))
    return sites


def _root(folder: str, glob: str) -> str:
    return posixpath.normpath(posixpath.join(folder, glob)) if folder else posixpath.normpath(glob)


def compare(before: list[Site], after: list[Site], files: frozenset[str], renames: dict[str, str]) -> list[Finding]:
    """``build-source-lost`` for each path that named project files before the port and names other files
    (or none) in the ported tree. ``before`` and ``after`` are the same expressions in the same order (the port
    changes strings, never the script's shape); a build file whose sites do not pair up is one finding."""
    ported = frozenset(renames.get(f, f) for f in files)
    if len(before) != len(after):
        return [Finding(LOST, 1, f"{len(before)} source paths before the port, {len(after)} after", LOST_WHY)]
    out = []
    for old, new in zip(before, after):
        if old.glob is None or new.glob is None:
            continue
        named = sorted(f for f in files if fnmatchcase(f, old.glob))
        if not named:
            continue  # names nothing in the project as it is (a path only some checkouts have)
        expected = {renames.get(f, f) for f in named}
        got = {f for f in ported if fnmatchcase(f, new.glob)}
        if got != expected:
            missing = sorted(expected - got)
            say = f"{new.text}: names {len(named)} project file(s) before the port ({named[0]}"
            say += f", ...)" if len(named) > 1 else ")"
            say += f"; after it {len(got)}, {len(missing)} missing ({missing[0]})" if missing else \
                f"; after it {len(got)} ({sorted(got - expected)[0]} was not named before)"
            out.append(Finding(LOST, old.line, say, LOST_WHY))
    return out


def unchecked(sites: list[Site]) -> list[Finding]:
    return [Finding(UNCHECKED, s.line, s.text, UNCHECKED_WHY) for s in sites]
