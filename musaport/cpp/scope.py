"""Where a name is declared, defined or explicitly instantiated in one file.

A lightweight brace and namespace tracker over the *code* view of a parsed
file (comments, strings and whole preprocessor lines are blanked, so a name
in a comment or a macro body never counts).  It does not understand C++; it
recognises the shapes definitions take at namespace and class scope, which
is what ``musaport whereis`` needs to tell a definition from a declaration
or a call, and it skips function bodies without looking inside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from musaport.cpp.parser import DIRECTIVE, MASK, Parsed, masked
from musaport.cpp.symbols import ANONYMOUS
from musaport.cpp.text import CODE_ONLY, LineIndex, matching

DEFINITION, DECLARATION, INSTANTIATION, CLASS = "definition", "declaration", "instantiation", "class"
_STRUCTURAL = re.compile(r"[{};]")
_INNERMOST_ANGLES = re.compile(r"<[^<>;{}]*>")
_TEMPLATE_HEAD = re.compile(r"^\s*template\s*<")
_NAMESPACE = re.compile(r"^\s*(?:inline\s+)?namespace\b([\w\s:]*)$")
_CLASS_KEY = re.compile(r"^\s*(?:typedef\s+)?(?:class|struct|union)\b")
_INSTANTIATION = re.compile(r"^\s*(extern\s+)?template\b(?!\s*<)")
_IMPL_MACRO = re.compile(r"\b(TORCH_IMPL_FUNC|TORCH_META_FUNC2?)\s*\(\s*(\w+)\s*(?:,\s*(\w+)\s*)?\)\s*$")
_NOT_A_NAME = frozenset({"__launch_bounds__", "__attribute__", "alignas", "decltype", "__declspec", "noexcept",
                         "sizeof", "static_assert", "requires", "if", "while", "for", "switch", "return"})
_DEFAULTED = re.compile(r"\)[^()]*=\s*default\s*$")
_QUALIFIED_TAIL = re.compile(r"((?:::\s*)?(?:\w+\s*(?:<>)?\s*::\s*)*~?\w*(?:(?<=\w)\s*<>)?)\s*$")
_MACRO_LINE = re.compile(r"\s*[A-Z][A-Z0-9_]*\s*(?:\((?:[^()\n]|\([^()]*\))*\))?[ \t]*\n")
_MACRO = re.compile(r"^[A-Z][A-Z0-9_]*$")
_OPERATOR_NAME = re.compile(r"\boperator\s*(\(\s*\)|\[\s*\]|new\b|delete\b|[^\w\s(]+|\w[\w\s:*&]*?)\s*\(")


@dataclass(frozen=True)
class Occurrence:
    """A statement that declares, defines or instantiates ``path`` at ``line``."""

    kind: str
    path: tuple[str, ...]  # enclosing scopes + the name as written (qualifiers included)
    scope_len: int  # how many leading parts of path come from enclosing scopes
    line: int
    text: str
    template: bool = False


@dataclass
class _Scope:
    names: tuple[str, ...]
    is_class: bool = False


def code_view(parsed: Parsed) -> str:
    """Code only: comments, strings, include targets and whole directive lines become
    spaces (newlines kept, so offsets and lines still match the file)."""
    code = masked(parsed.text, parsed.spans, CODE_ONLY)
    pieces, pos = [], 0
    for span in parsed.spans:
        if span.context != DIRECTIVE or span.start < pos:
            continue
        end = _logical_line_end(code, span.start)
        pieces += [code[pos : span.start], re.sub(r"[^\n]", " ", code[span.start : end])]
        pos = end
    pieces.append(code[pos:])
    return "".join(pieces).replace(MASK, " ")


def _logical_line_end(text: str, pos: int) -> int:
    while True:
        nl = text.find("\n", pos)
        if nl == -1:
            return len(text)
        if not text[:nl].rstrip("\r").endswith("\\"):
            return nl
        pos = nl + 1


def occurrences(parsed: Parsed, name: str) -> list[Occurrence]:
    """Every namespace- or class-scope statement of the file that names ``name``."""
    code = code_view(parsed)
    tracker = _Tracker(code, name, LineIndex(parsed.text))
    tracker.scan()
    return tracker.found


class _Tracker:
    """Walks ``{``, ``}`` and ``;`` keeping the scope stack and the current statement."""

    def __init__(self, code: str, name: str, line_of) -> None:
        self.code, self.name, self.line_of = code, name, line_of
        self.word = re.compile(rf"(?<![\w~]){re.escape(name)}\b" if name[:1].isalnum() or name[:1] == "_"
                               else re.escape(name))
        self.stack: list[_Scope] = []
        self.found: list[Occurrence] = []

    def scan(self) -> None:
        code, start, skip_to = self.code, 0, -1
        for m in _STRUCTURAL.finditer(code):
            if m.start() < skip_to:
                continue
            ch = m.group()
            if ch == "}":
                if self.stack:
                    self.stack.pop()
                start = m.end()
            elif ch == ";":
                self._statement(code[start : m.start()], start)
                start = m.end()
            else:
                start, skip_to = self._open(code[start : m.start()], start, m.start())

    def _open(self, head: str, start: int, brace: int) -> tuple[int, int]:
        """Classify a ``{``; returns (next statement start, offset to skip to)."""
        if head.count("(") > head.count(")"):  # inside a parameter list or call: a braced default or argument
            end = matching(self.code, brace)
            return start, (len(self.code) if end < 0 else end) + 1
        body = _strip_template_head(head)
        ns = _NAMESPACE.match(body)
        if ns:
            self.stack.append(_Scope(_namespace_names(ns.group(1))))
            return brace + 1, -1
        if _CLASS_KEY.match(body) and "=" not in body and "(" not in _without_parens_macros(body):
            cls = _class_name(body)
            self._record(CLASS, head, start, cls, body is not head)
            self.stack.append(_Scope((cls,) if cls else (), is_class=True))
            return brace + 1, -1
        end = matching(self.code, brace)
        end = len(self.code) if end < 0 else end
        if _is_function_head(body):
            self._record(DEFINITION, head, start, _function_name(body), body is not head)
            return end + 1, end + 1
        return start, end + 1  # an initializer or enum body: the statement goes on to its ';'

    def _statement(self, head: str, start: int) -> None:
        if not self.word.search(head):
            return
        inst = _INSTANTIATION.match(head)
        if inst:
            body = head[inst.end() :]
            kind = DECLARATION if inst.group(1) else INSTANTIATION
            self._record(kind, head, start, _function_name(body) or _class_name(body), False)
            return
        body = _strip_template_head(head)
        if _is_function_head(body) and "=" not in _top_level(body).split("(", 1)[0]:
            # out of its class, 'X::~X() = default;' defines the function (in the class it is inline)
            defaulted = _DEFAULTED.search(body) and not (self.stack and self.stack[-1].is_class)
            self._record(DEFINITION if defaulted else DECLARATION, head, start, _function_name(body),
                         body is not head)
        elif _CLASS_KEY.match(body) or body.lstrip().startswith(("using", "typedef", "friend", "namespace")):
            return
        else:
            self._record(self._variable_kind(body), head, start, _variable_name(body), body is not head)

    def _variable_kind(self, body: str) -> str:
        """A variable statement defines unless it is ``extern`` or a non-inline static member."""
        if re.search(r"\bextern\b", body):
            return DECLARATION
        if self.stack and self.stack[-1].is_class and not re.search(r"\b(inline|constexpr)\b", body):
            return DECLARATION
        return DEFINITION

    def _record(self, kind: str, head: str, start: int, written: str, template: bool) -> None:
        if not written:
            return
        parts = tuple(_strip_args(p) for p in re.split(r"\s*::\s*", written.strip().lstrip(":")) if p)
        if not parts or parts[-1] != self.name:
            return
        scope = tuple(n for s in self.stack for n in s.names)
        body = _strip_template_head(head)
        at = self.word.search(body)
        offset = start + len(head) - len(body) + (at.start() if at else len(body) - len(body.lstrip()))
        text = " ".join(_strip_macro_lines(head).split())
        self.found.append(Occurrence(kind, scope + parts, len(scope), self.line_of(offset), text, template))


def _strip_macro_lines(head: str) -> str:
    """Drop the macro lines that start a head (``TORCH_SDT_DEFINE_SEMAPHORE(free)`` has no ``;``)."""
    while (m := _MACRO_LINE.match(head)) is not None:
        head = head[m.end() :]
    return head


def _strip_template_head(head: str) -> str:
    """``template <...>`` prefixes removed (balanced angle brackets, repeated), after the macro lines."""
    body = _strip_macro_lines(head)
    while _TEMPLATE_HEAD.match(body):
        i, depth = body.index("<"), 0
        for j in range(i, len(body)):
            depth += {"<": 1, ">": -1}.get(body[j], 0)
            if depth == 0:
                body = body[j + 1 :]
                break
        else:
            return body
    return body


def _namespace_names(written: str) -> tuple[str, ...]:
    names = tuple(n.replace("inline", "").strip() for n in written.split("::"))
    names = tuple(n for n in names if n)
    return names or (ANONYMOUS,)


def _top_level(text: str) -> str:
    """``text`` with the inside of every balanced ``<...>`` removed (keeps ``<>``)."""
    while "<" in text:
        inner = _INNERMOST_ANGLES.sub("\x02", text)
        if inner == text:
            break
        text = inner
    return text.replace("\x02", "<>")


def _without_parens_macros(body: str) -> str:
    """Drop ``alignas(...)``/``MACRO(...)``-style attribute calls from a class head."""
    return re.sub(r"\b(?:alignas|__attribute__|__declspec|__launch_bounds__|[A-Z][A-Z0-9_]*)\s*\((?:[^()]|\([^()]*\))*\)", " ", body)


def _class_name(body: str) -> str:
    """The class name: the last word before the base clause, ``final`` or the end."""
    top = _top_level(_without_parens_macros(re.sub(r"\[\[.*?\]\]", " ", body)))
    top = re.sub(r"^\s*(?:typedef\s+)?(?:class|struct|union)\b", " ", top)
    top = re.split(r"(?<!:):(?!:)|\bfinal\b", top, maxsplit=1)[0]
    words = re.findall(r"(?:::)?\w+(?:<>)?(?:\s*::\s*\w+(?:<>)?)*", top)
    return words[-1].replace("<>", "") if words else ""


def _is_function_head(body: str) -> bool:
    """A head with a top-level parameter list and no ``=`` before it."""
    top = _top_level(body)
    if "(" not in top:
        return False
    before = top.split("(", 1)[0]
    return not re.search(r"(?<![=!<>])=(?!=)", before) or "operator" in before


def _function_name(body: str) -> str:
    """The (qualified) name before the parameter list; macros and attributes are skipped."""
    impl = _IMPL_MACRO.search(body.split(")(", 1)[0] + ")") if "TORCH_" in body else None
    if impl:
        suffix = impl.group(2) + (f"_{impl.group(3)}" if impl.group(3) else "")
        return f"structured_{suffix}::{'impl' if impl.group(1) == 'TORCH_IMPL_FUNC' else 'meta'}"
    body = _without_parens_macros(body)
    op = _OPERATOR_NAME.search(body)
    top = _top_level(body)
    for m in re.finditer(r"\(", top):
        name = _qualified_before(top, m.start())
        last = name.rsplit("::", 1)[-1]
        if op and (last == "operator" or name == ""):
            return _qualified_before(body, op.start()) + "operator" + op.group(1).replace(" ", "")
        if name and last not in _NOT_A_NAME and not _MACRO.match(last):
            return name
    return ""


def _qualified_before(text: str, pos: int) -> str:
    """``a::b<>::c`` (or ``~c``) ending right before ``pos``, spaces dropped."""
    m = _QUALIFIED_TAIL.search(text[max(0, pos - 400) : pos])
    return re.sub(r"\s+", "", m.group(1)).replace("<>", "") if m else ""


def _variable_name(body: str) -> str:
    """The declarator name of a variable statement: the word before ``=``, ``{``, ``[`` or the end."""
    top = _top_level(body)
    cut = re.search(r"(?<![=!<>])=(?!=)|\[|\{", top)
    return _qualified_before(top, cut.start() if cut else len(top))


def _strip_args(part: str) -> str:
    return part.split("<", 1)[0].strip() if not part.startswith("operator") else part
