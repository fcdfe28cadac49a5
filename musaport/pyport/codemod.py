"""One Python file's text ported to the ``musa`` device: a LibCST codemod driven by the Python pack.

Pure: text in, :class:`Ported` out (the new text, rewrites per rule, findings
with their lines). LibCST keeps every comment, blank line and quote style, so
only the rewritten tokens change.

Two passes over one parsed module: a :class:`_Planner` visits the tree top
down and decides, for each node that is a device use, an edit (a function of
the node as the second pass sees it) or a finding; an :class:`_Applier`
transformer then applies the edits bottom up, so nested edits compose (an
``x.cuda()`` inside the arguments of ``torch.cuda.amp.autocast(...)``).
A node a rule has decided is *claimed*: the catch-all rules (``cuda-name``,
``cuda-string``) report every ``cuda`` name and device-like string no rule
claimed, so nothing that may be a device use is left silent.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from musaport.pyport.pack import Pack, PyRule
from musaport.rewrite.apply import Finding

# A string that looks like a device or a CUDA dispatch key (what the cuda-string rule reports when unplaced).
_DEVICE_LIKE = re.compile(r"cuda(?::\d+)?|(?:Autocast|Autograd|Sparse|SparseCsr|Quantized|NestedTensor)?CUDA")
# Literal parts of an f-string that builds a dispatch key from a device name: f"Autocast{dev.upper()}".
_KEY_PREFIX = re.compile(r"(?:Autocast|Autograd|Sparse|SparseCsr|Quantized|NestedTensor)?")

Edit = Callable[[cst.CSTNode], cst.CSTNode]


@dataclass(frozen=True)
class Ported:
    """What the codemod made of one file."""

    text: str
    fired: dict[str, int] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()


class ParseFailure(Exception):
    """LibCST cannot parse the file: ``line`` is where it stopped."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


def port_text(text: str, pack: Pack, modules: dict[str, str] | None = None) -> Ported:
    """``text`` with the pack's rules applied; ``modules``: extension module renames of this run.
    Raises :class:`ParseFailure` when the text is not Python LibCST can parse."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise ParseFailure(exc.raw_line, exc.message) from None
    except RecursionError:
        raise ParseFailure(1, "nested too deeply to parse") from None
    planner = _Planner(pack, modules or {}, _device_params(module, pack), _device_tables(module, pack))
    module.visit(planner)
    if not planner.edits and not planner.flags:
        return Ported(text)
    applier = _Applier(planner)
    code = module.visit(applier).code
    lines = {int(m.group(1)): code.count("\n", 0, m.start()) + 1 for m in _MARK.finditer(code)}
    new = _MARK.sub("", code) if planner.edits else text
    found = []
    for k, (rule, node, message) in enumerate(planner.flags):
        shown = " ".join(module.code_for_node(node).split())
        found.append(Finding(rule.id, lines.get(k) or _line_of(module, node), shown[:120], message))
    # One finding per rule, line and text: `import cuda.bindings.driver as cuda` is one site, not two.
    unique = {(f.line, f.rule, f.text): f for f in found}
    return Ported(new, dict(sorted(planner.fired.items())), tuple(unique[k] for k in sorted(unique)))


# Each finding's node gets this mark on its first token while the edits are applied, so one code
# generation gives both the new text and every finding's line (LibCST's PositionProvider costs a
# whole extra pass and more than the port itself).
_MARK = re.compile(r"__musaport_mark_(\d+)__")


def _line_of(module: cst.Module, node: cst.CSTNode) -> int:
    """A finding whose first token could not carry a mark: its line from LibCST's positions (slow, rare)."""
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)[node].start.line


def _marked(node: cst.CSTNode, k: int) -> cst.CSTNode | None:
    """``node`` with mark ``k`` on its first token (None when that token is not a name or a string)."""
    mark = f"__musaport_mark_{k}__"
    if isinstance(node, cst.Name):
        return node.with_changes(value=mark + node.value)
    if isinstance(node, cst.SimpleString):
        start = len(node.prefix) + len(node.quote)
        return node.with_changes(value=node.value[:start] + mark + node.value[start:])
    if isinstance(node, cst.FormattedString):
        return node.with_changes(parts=[cst.FormattedStringText(mark), *node.parts])
    for attr in ("value", "func", "left"):  # Attribute, Subscript; Call; BinaryOperation, ConcatenatedString
        child = getattr(node, attr, None)
        if isinstance(child, cst.BaseExpression):
            inner = _marked(child, k)
            return node.with_changes(**{attr: inner}) if inner is not None else None
    return None


class _Applier(cst.CSTTransformer):
    """Applies the planned edits, each to the node as rebuilt below it, and marks each finding's node.

    Only the spine down to each decision is visited (``dirty``), and below it the whole node whose
    visit made the decision (``anchors``): a file's few device uses cost little more than its parse.
    """

    def __init__(self, planner: "_Planner") -> None:
        super().__init__()
        self.edits, self.dirty, self.anchors = planner.edits, planner.dirty, planner.anchors
        self.marks: dict[int, list[int]] = {}
        for k, (_, node, _) in enumerate(planner.flags):
            self.marks.setdefault(id(node), []).append(k)
        self.entered: list[int] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.entered or id(node) in self.anchors:
            self.entered.append(id(node))
            return True
        return id(node) in self.dirty

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        if self.entered and self.entered[-1] == id(original_node):
            self.entered.pop()
        edit = self.edits.get(id(original_node))
        node = edit(updated_node) if edit is not None else updated_node
        for k in self.marks.get(id(original_node), ()):
            node = _marked(node, k) or node
        return node


def dotted(node: cst.CSTNode) -> str | None:
    """``torch.cuda.amp`` for a chain of names and attributes (None for anything else)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def _last_name(node: cst.CSTNode) -> str:
    """The last name of a name, attribute or string subscript (``self.device`` → device, ``kw["device"]``)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            value = _string_value(index.value)
            return value if isinstance(value, str) else ""
        return _last_name(node.value)  # devices[0]
    return ""


def _string_value(node: cst.SimpleString) -> str | bytes | None:
    try:
        return node.evaluated_value
    except Exception:  # noqa: BLE001 - an odd literal is simply not a device string
        return None


def _with_body(node: cst.SimpleString, body: str) -> cst.SimpleString:
    """The string literal ``node`` with its content replaced, prefix and quotes kept."""
    start = len(node.prefix) + len(node.quote)
    return node.with_changes(value=node.value[:start] + body + node.value[-len(node.quote):])


def _body(node: cst.SimpleString) -> str:
    return node.value[len(node.prefix) + len(node.quote): -len(node.quote)]


def _name_expr(dotted_name: str) -> cst.BaseExpression:
    return cst.parse_expression(dotted_name)


def _device_arg(value: str) -> cst.Arg:
    """``"musa"`` as a positional argument."""
    return cst.Arg(cst.SimpleString(f'"{value}"'))


def _device_kwarg(keyword: str, value: str) -> cst.Arg:
    """``device_type="musa"`` as a keyword argument, spelled as PEP 8 spells keywords (no spaces)."""
    return cst.Arg(cst.SimpleString(f'"{value}"'), keyword=cst.Name(keyword),
                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))


class _Planner(cst.CSTVisitor):
    """Decides every edit and finding, top down (a parent decides before its children are visited)."""

    def __init__(self, pack: Pack, modules: dict[str, str],
                 device_params: dict[str, dict[str, int]] | None = None,
                 device_tables: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.pack, self.modules = pack, modules
        self.device_params = device_params or {}
        self.device_tables = device_tables
        self.edits: dict[int, Edit] = {}
        self.claimed: set[int] = set()
        self.fired: Counter[str] = Counter()
        self.flags: list[tuple[PyRule, cst.CSTNode, str]] = []
        self.device = pack.first("device-string")
        self.keys = pack.first("dispatch-key")
        self.key_template = pack.first("key-template")
        self.module_rule = pack.first("modules")
        self.calls = {name: (rule, to) for rule in pack.of_kind("call")
                      for name, to in {rule.get("from"): rule.get("to"), **rule.get("also", {})}.items()}
        # The nodes being visited, root first; every ancestor of a decision (dirty) and the node whose
        # visit made it (anchor), so that the applier visits only those.
        self.stack: list[cst.CSTNode] = []
        self.dirty: set[int] = set()
        self.anchors: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.stack.pop()

    def _decided(self) -> None:
        """The current node made a decision about itself or a node below it."""
        self.dirty.update(id(n) for n in self.stack)
        self.anchors.add(id(self.stack[-1]))

    # ------------------------------------------------------------ bookkeeping

    def _edit(self, node: cst.CSTNode, rule: PyRule, edit: Edit, shown: cst.CSTNode | None = None) -> None:
        """Plan ``edit`` of ``node``; a rule with a message also reports it (at ``shown``, else ``node``)."""
        self.edits[id(node)] = edit
        self.claimed.add(id(node))
        self._decided()
        self.fired[rule.id] += 1
        if rule.flag:
            self.flags.append((rule, shown or node, rule.flag))

    def _flag(self, node: cst.CSTNode, rule: PyRule | None, message: str = "") -> None:
        if rule is None:
            return
        self.claim(node)
        self._decided()
        self.flags.append((rule, node, message or rule.flag))

    def claim(self, node: cst.CSTNode) -> None:
        """Mark a name chain (``torch.cuda.amp``) as decided, every part of it."""
        self.claimed.add(id(node))
        while isinstance(node, cst.Attribute):
            self.claimed.add(id(node.attr))
            node = node.value
            self.claimed.add(id(node))

    # ------------------------------------------------------------ imports

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = dotted(alias.name)
            new = self.modules.get(name or "")
            if new is None or self.module_rule is None:
                continue
            if "." in name and alias.asname is None:  # `import a.b_cuda` binds `a`: no alias keeps its uses
                self._flag(alias.name, self.module_rule, f"import of {name}, which the port renames to {new}; "
                                                         "the uses of the dotted name must follow by hand")
                continue
            asname = alias.asname or cst.AsName(cst.Name(name))
            self._edit(alias, self.module_rule,
                       lambda a, new=new, asname=asname: a.with_changes(name=_name_expr(new), asname=asname))
            self.claim(alias.name)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is None:
            return
        name = dotted(node.module) or ""
        if name in self.modules and self.module_rule is not None:
            new = self.modules[name]
            self._edit(node.module, self.module_rule, lambda m, new=new: _name_expr(new))
            self.claim(node.module)
            return
        if self.module_rule is not None and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                full = f"{name}.{dotted(alias.name)}"
                if full in self.modules and "." not in self.modules[full].removeprefix(name + "."):
                    new = self.modules[full].removeprefix(name + ".")
                    asname = alias.asname or cst.AsName(cst.Name(dotted(alias.name) or ""))
                    self._edit(alias, self.module_rule,
                               lambda a, new=new, asname=asname: a.with_changes(name=cst.Name(new), asname=asname))
                    self.claim(alias.name)
        for rule in self.pack.of_kind("module"):
            if name == rule.get("from") and not isinstance(node.names, cst.ImportStar) and \
                    all(dotted(a.name) in rule.get("names") for a in node.names):
                self._edit(node.module, rule, lambda m, to=rule.get("to"): _name_expr(to))
                self.claim(node.module)
                return

    # ------------------------------------------------------------ calls and decorators

    def visit_Decorator(self, node: cst.Decorator) -> None:
        """``@torch.cuda.amp.custom_fwd`` (no call): the torch.amp decorator called with the device."""
        name = dotted(node.decorator)
        if name not in self.calls:
            return
        rule, to = self.calls[name]
        device = self.device_name()
        args = [_device_arg(device)] if rule.get("device") == "first" else [_device_kwarg(rule.get("device"), device)]
        self._edit(node.decorator, rule, lambda d, to=to, args=args: cst.Call(_name_expr(to), args))
        self.claim(node.decorator)

    def device_name(self) -> str:
        return self.device.get("to") if self.device is not None else "musa"

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted(node.func)
        if name in self.calls and not (self.calls[name][0].get("bare") and node.args
                                       and name == self.calls[name][0].get("from")):
            self._call_rule(node, *self.calls[name])
        elif isinstance(node.func, cst.Attribute) and id(node.func) not in self.claimed:
            for rule in self.pack.of_kind("method"):
                if node.func.attr.value == rule.get("from") and name != "torch." + rule.get("from"):
                    self._edit(node.func.attr, rule, lambda n, to=rule.get("to"): n.with_changes(value=to))
                    self.claimed.add(id(node.func))
        self._device_positions(node, name)
        self._parametrized(node, name)
        self._device_params_of(node)
        self._dispatch_keys(node)
        if name in ("importlib.import_module", "import_module") and node.args and self.module_rule is not None:
            first = node.args[0].value
            if isinstance(first, cst.SimpleString) and _string_value(first) in self.modules:
                new = self.modules[_string_value(first)]  # type: ignore[index]
                self._edit(first, self.module_rule, lambda s, new=new: _with_body(s, new))

    def _call_rule(self, node: cst.Call, rule: PyRule, to: str) -> None:
        """``torch.cuda.amp.autocast(...)`` → ``torch.autocast("musa", ...)`` (or ``device_type="musa"`` last)."""
        device = self.device_name()
        where = rule.get("device")

        def edit(call: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(call, cst.Call)
            args = list(call.args)
            if where == "first":
                comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if args else cst.MaybeSentinel.DEFAULT
                args.insert(0, _device_arg(device).with_changes(comma=comma))
            else:
                if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
                    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                args.append(_device_kwarg(where, device))
            return call.with_changes(func=_name_expr(to), args=args)

        self._edit(node, rule, edit)
        self.claim(node.func)

    def _device_positions(self, node: cst.Call, name: str | None) -> None:
        """Device arguments: keywords (device=...), the first argument of device-taking calls and of .to()."""
        rule = self.device
        if rule is None:
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in rule.get("keywords", ()):
                self.device_expr(arg.value)
        is_method = isinstance(node.func, cst.Attribute) and node.func.attr.value in rule.get("methods", ())
        if positional and (name in rule.get("calls", ()) or is_method):
            self.device_expr(positional[0].value)

    def _parametrized(self, node: cst.Call, name: str | None) -> None:
        """``pytest.mark.parametrize("device", VALUES)``: the values of a parameter with 'device' in its name are
        devices (``"x, device"`` takes each value tuple's element at that place)."""
        rule = self.device
        if rule is None or name not in rule.get("parametrize", ()):
            return
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        keyword = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        argnames = positional[0] if positional else keyword.get("argnames")
        argvalues = positional[1] if len(positional) > 1 else keyword.get("argvalues")
        if not isinstance(argnames, cst.SimpleString) or argvalues is None:
            return
        text = _string_value(argnames)
        names = [n.strip() for n in text.split(",")] if isinstance(text, str) else []
        places = [i for i, n in enumerate(names) if n and self._devicish(cst.Name(n))]
        if len(names) == 1 and places:
            self.device_expr(argvalues)
        elif places and isinstance(argvalues, (cst.List, cst.Tuple)):
            for element in argvalues.elements:
                row = self._unwrapped(element.value)
                items = [e.value for e in row.elements] if isinstance(row, (cst.List, cst.Tuple)) else \
                    [a.value for a in row.args if a.keyword is None] if isinstance(row, cst.Call) else []
                for i in places:
                    if i < len(items):
                        self.device_expr(items[i])

    def _unwrapped(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """``pytest.param(VALUE, marks=...)``: VALUE is the parameter's value (several values stay a call)."""
        if self.device is not None and isinstance(expr, cst.Call) and \
                dotted(expr.func) in self.device.get("wrappers", ()):
            values = [a.value for a in expr.args if a.keyword is None and not a.star]
            if len(values) == 1:
                return values[0]
        return expr

    def _device_params_of(self, node: cst.Call) -> None:
        """The arguments of a call of a function of this file that binds them to parameters it uses as devices
        (``self._test_api("cuda")`` binds a method's, whose first parameter is ``self``)."""
        func, shift = node.func, 0
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            func, shift = func.attr, 1
        params = self.device_params.get(func.value) if isinstance(func, cst.Name) else None
        if not params:
            return
        positions = {i - shift for i in params.values() if i >= shift}
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for i, arg in enumerate(positional):
            if i in positions:
                self.device_expr(arg.value)
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in params:
                self.device_expr(arg.value)

    def _dispatch_keys(self, node: cst.Call) -> None:
        """String dispatch keys of ``torch.library.impl`` and ``Library.impl``: CUDA's → PrivateUse1's."""
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if self.keys is not None and last in self.keys.get("calls", ()):
            keys = self.keys.get("keys", {})
            for arg in node.args:
                value = arg.value
                if isinstance(value, cst.SimpleString) and _string_value(value) in keys:
                    self._edit(value, self.keys, lambda s, k=keys[_string_value(value)]: _with_body(s, k))
        rule = self.key_template
        if rule is not None and last in rule.get("calls", ()):
            for arg in node.args:
                value = arg.value
                if not (isinstance(value, cst.FormattedString) and _builds_key(value)):
                    continue
                built = _key_template(value)
                if built is None:
                    self._flag(value, rule, rule.get("unsure"))
                    continue
                prefix, name = built
                test = cst.parse_expression(f'{name} == "{self.device_name()}"')
                key = cst.SimpleString(f'"{prefix}PrivateUse1"')
                self._edit(value, rule, lambda s, test=test, key=key: cst.IfExp(
                    test=test, body=key, orelse=s, lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))

    # ------------------------------------------------------------ device strings

    def device_expr(self, expr: cst.BaseExpression) -> None:
        """Rewrite the device strings of an expression in a device position (through if/else, lists, +)."""
        rule = self.device
        if rule is None or id(expr) in self.claimed:
            return
        old, new = rule.get("from"), rule.get("to")
        if isinstance(expr, cst.SimpleString):
            value = _string_value(expr)
            if isinstance(value, str) and re.fullmatch(rf"{re.escape(old)}(?::\d+)?", value) and \
                    _body(expr).startswith(old):
                self._edit(expr, rule, lambda s: _with_body(s, new + _body(s)[len(old):]))
        elif isinstance(expr, cst.FormattedString):
            first = expr.parts[0] if expr.parts else None
            if isinstance(first, cst.FormattedStringText) and re.match(rf"{re.escape(old)}(?::|$)", first.value) \
                    and (first.value != old or len(expr.parts) == 1):
                self._edit(expr, rule, lambda s: s.with_changes(
                    parts=[s.parts[0].with_changes(value=new + s.parts[0].value[len(old):]), *s.parts[1:]]))
        elif isinstance(expr, cst.Call) and self._unwrapped(expr) is not expr:
            self.device_expr(self._unwrapped(expr))
        elif isinstance(expr, cst.IfExp):
            self.device_expr(expr.body)
            self.device_expr(expr.orelse)
        elif isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                self.device_expr(element.value)
        elif isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            self.device_expr(expr.left)
            self.device_expr(expr.right)
        elif isinstance(expr, cst.BooleanOperation):
            self.device_expr(expr.left)
            self.device_expr(expr.right)

    def _devicish(self, node: cst.CSTNode) -> bool:
        """A name that holds a device: ``device``, ``self.devices``, ``kw["device_type"]``, ``x.device.type``."""
        return self.device is not None and _holds_device(node, self.device)

    def _table_keys(self, table: cst.BaseExpression) -> None:
        """A dict looked up by a device (``{"cpu": f, "cuda": g}[x.device.type]``): its keys are devices."""
        if isinstance(table, cst.Dict):
            for element in table.elements:
                if isinstance(element, cst.DictElement):
                    self.device_expr(element.key)

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(self._devicish(t.target) for t in node.targets):
            self.device_expr(node.value)
        if any(_table_name(t.target) in self.device_tables for t in node.targets if _table_name(t.target)):
            self._table_keys(node.value)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        index = _index(node)
        if index is not None and self._devicish(index):
            self._table_keys(node.value)

    def visit_Return(self, node: cst.Return) -> None:
        """What a function named for a device returns is one (a test's ``@property def device(self)``)."""
        function = next((n for n in reversed(self.stack) if isinstance(n, (cst.FunctionDef, cst.Lambda))), None)
        if node.value is not None and isinstance(function, cst.FunctionDef) and self._devicish(function.name):
            self.device_expr(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and self._devicish(node.target):
            self.device_expr(node.value)

    def visit_Param(self, node: cst.Param) -> None:
        if node.default is not None and self._devicish(node.name):
            self.device_expr(node.default)

    def visit_For(self, node: cst.For) -> None:
        if self._devicish(node.target):
            self.device_expr(node.iter)

    def visit_List(self, node: cst.List) -> None:
        self._device_list(node)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._device_list(node)

    def visit_Set(self, node: cst.Set) -> None:
        self._device_list(node)

    def _device_list(self, node: cst.List | cst.Tuple | cst.Set) -> None:
        """``("cpu", "cuda")``, ``["cpu", pytest.param("cuda", ...)]``: "cuda" beside another device's name (the
        rule's ``beside``) in one sequence is a list of devices, wherever it goes (a test's parameters, a loop)."""
        rule = self.device
        if rule is None:
            return
        values = [self._unwrapped(e.value) for e in node.elements]
        names = {_string_value(v) for v in values if isinstance(v, cst.SimpleString)}
        old = rule.get("from")
        if names & set(rule.get("beside", ())) and any(
                isinstance(n, str) and re.fullmatch(rf"{re.escape(old)}(?::\d+)?", n) for n in names):
            self.device_expr(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        if any(self._devicish(o) for o in operands):
            for o in operands:
                self.device_expr(o)

    # ------------------------------------------------------------ names, attributes, and the catch-alls

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.claimed.add(id(node.attr))  # an attribute's name is this node's business, never a bare name
        if id(node) in self.claimed:
            return
        for rule in self.pack.of_kind("attribute"):
            if node.attr.value == rule.get("from"):
                self._edit(node.attr, rule, lambda n, to=rule.get("to"): n.with_changes(value=to))
                self.claimed.add(id(node))
                return
        name = dotted(node)
        if name is not None and self._module_name(node, name):
            return
        if name is not None and self._flag_name(node, name):
            return
        if node.attr.value == "cuda":
            self._flag(node, self.pack.first("cuda-name"))

    def _module_name(self, node: cst.Attribute, name: str) -> bool:
        """``torch.cuda.NAME`` for a NAME torch.musa offers → ``torch.musa.NAME``."""
        for rule in self.pack.of_kind("module"):
            prefix = rule.get("from")
            if not name.startswith(prefix + "."):
                continue
            if name[len(prefix) + 1:].split(".")[0] not in rule.get("names"):
                continue
            inner = node
            while dotted(inner) != prefix:
                inner = inner.value  # type: ignore[attr-defined]
            self._edit(inner, rule, lambda n, to=rule.get("to"): _name_expr(to), shown=node)
            self.claim(node)
            return True
        return False

    def _flag_name(self, node: cst.CSTNode, name: str) -> bool:
        for rule in self.pack.of_kind("flag"):
            if any(name == n or name.startswith(n + ".") for n in rule.get("names", ())):
                self._flag(node, rule)
                return True
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.claimed:
            return
        if self._flag_name(node, node.value):
            return
        if node.value == "cuda":
            self._flag(node, self.pack.first("cuda-name"))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if id(node) in self.claimed:
            return
        value = _string_value(node)
        if isinstance(value, str) and _DEVICE_LIKE.fullmatch(value):
            self._flag(node, self.pack.first("cuda-string"))

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        if id(node) in self.claimed:
            return
        first = node.parts[0] if node.parts else None
        if isinstance(first, cst.FormattedStringText) and re.match(r"cuda(?::|$)", first.value):
            self._flag(node, self.pack.first("cuda-string"))


def _key_template(node: cst.FormattedString) -> tuple[str, str] | None:
    """(prefix, name) of ``f"PREFIX{name}"`` or ``f"PREFIX{name.upper()}"`` (None for any other shape)."""
    parts = list(node.parts)
    prefix = parts.pop(0).value if parts and isinstance(parts[0], cst.FormattedStringText) else ""
    if len(parts) != 1 or not isinstance(parts[0], cst.FormattedStringExpression) or parts[0].format_spec \
            or parts[0].conversion:
        return None
    expr = parts[0].expression
    if isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute) \
            and expr.func.attr.value == "upper":
        expr = expr.func.value
    return (prefix, expr.value) if isinstance(expr, cst.Name) else None


def _holds_device(node: cst.CSTNode, rule: PyRule) -> bool:
    """A name that holds a device: ``device``, ``self.devices``, ``kw["device_type"]``, ``x.device.type``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "type":  # x.device.type, dev.type
        return True
    last = _last_name(node)
    return rule.get("word", "device") in last.lower() or last in rule.get("keywords", ())


def _index(node: cst.Subscript) -> cst.BaseExpression | None:
    """The one index of ``table[index]`` (None for a slice or several indices)."""
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return node.slice[0].slice.value
    return None


def _table_name(node: cst.BaseExpression) -> str:
    """The name a table is bound to: ``table``, or a class attribute's ``Op.table``/``self.table``."""
    return node.value if isinstance(node, cst.Name) else node.attr.value if isinstance(node, cst.Attribute) else ""


def _device_tables(module: cst.Module, pack: Pack) -> frozenset[str]:
    """Names of this file that are looked up by a device, ``table[x.device.type]`` or ``table.get(device)``
    (also as an attribute, ``Op.table[device.type]``): a dict literal bound to one is a table of devices, so its ``"cuda"`` key is the device (a sorting library
    picks its kernels so: ``{"cpu": isotonic_cpu, "cuda": isotonic_cuda}[s.device.type]``)."""
    rule = pack.first("device-string")
    if rule is None:
        return frozenset()
    found: set[str] = set()

    class Lookups(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            index = _index(node)
            if index is not None and _holds_device(index, rule) and (name := _table_name(node.value)):
                found.add(name)

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "get" and (name := _table_name(func.value)) \
                    and node.args and node.args[0].keyword is None and _holds_device(node.args[0].value, rule):
                found.add(name)

    module.visit(Lookups())
    return frozenset(found)


def _device_params(module: cst.Module, pack: Pack) -> dict[str, dict[str, int]]:
    """Functions of this file whose parameters are devices by their use: name → {parameter: position}.

    A parameter (of the function or of one enclosing it, for closures) that is
    passed where the device rule puts devices (``device=p``, ``torch.device(p)``,
    ``x.to(p)``) or that builds a dispatch key (``f"Autocast{p.upper()}"``) is a
    device, so a literal ``"cuda"`` a call of that function binds to it is one.
    """
    finder = _DeviceParams(pack)
    module.visit(finder)
    return finder.found


class _DeviceParams(cst.CSTVisitor):
    """Finds the parameters each function of a file uses as a device (see :func:`_device_params`)."""

    def __init__(self, pack: Pack) -> None:
        super().__init__()
        device = pack.first("device-string")
        template = pack.first("key-template")
        self.keywords = set(device.get("keywords", ())) if device else set()
        self.calls = set(device.get("calls", ())) if device else set()
        self.methods = set(device.get("methods", ())) if device else set()
        self.key_calls = set(template.get("calls", ())) if template else set()
        self.scopes: list[tuple[str, dict[str, int]]] = []
        self.found: dict[str, dict[str, int]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        positional = [*params.posonly_params, *params.params]
        names = {p.name.value: i for i, p in enumerate(positional)}
        names |= {p.name.value: -1 for p in params.kwonly_params}
        self.scopes.append((node.name.value, names))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def _used(self, expr: cst.BaseExpression) -> None:
        """``expr`` is in a device position: a parameter named there is a device."""
        if not isinstance(expr, cst.Name):
            return
        for function, names in reversed(self.scopes):
            if expr.value in names:
                self.found.setdefault(function, {})[expr.value] = names[expr.value]
                return

    def visit_Call(self, node: cst.Call) -> None:
        if not self.scopes:
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in self.keywords:
                self._used(arg.value)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        func = node.func
        is_method = isinstance(func, cst.Attribute) and func.attr.value in self.methods
        if positional and (dotted(func) in self.calls or is_method):
            self._used(positional[0].value)
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if last in self.key_calls:
            for arg in node.args:
                if isinstance(arg.value, cst.FormattedString) and (built := _key_template(arg.value)):
                    self._used(cst.Name(built[1]))


def _builds_key(node: cst.FormattedString) -> bool:
    """An f-string whose literal parts are only a dispatch key prefix: ``f"Autocast{device.upper()}"``."""
    texts = [p.value for p in node.parts if isinstance(p, cst.FormattedStringText)]
    return any(isinstance(p, cst.FormattedStringExpression) for p in node.parts) and \
        bool(_KEY_PREFIX.fullmatch("".join(texts)))

