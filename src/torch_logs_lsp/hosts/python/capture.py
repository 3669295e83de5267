"""Whether Python code keeps the stderr of the child process that reads a value (TL411:
torch logs to stderr), the Python host's :meth:`~.interface.OutputHost.stderr_captured`.

A value counts as kept only when it is certainly the environment of child processes
started by :mod:`subprocess` (``run``, ``Popen``, ``call``, ``check_call``,
``check_output``; also ``asyncio.create_subprocess_exec``/``_shell``) that capture their
stderr:

- the environment is the ``env=`` argument itself (``run(cmd, env={**os.environ,
  "TORCH_LOGS": "output_code"}, capture_output=True)``, ``env=dict(os.environ,
  TORCH_LOGS=...)``), or a name every other use of which in the file is such an ``env=``
  argument (``env = os.environ.copy()``, ``env["TORCH_LOGS"] = ...``,
  ``env.update(...)``, then ``run(cmd, env=env, stderr=subprocess.STDOUT, stdout=f)``);
- the call captures stderr: ``capture_output=True``, or ``stderr=`` anything but ``None``
  and the parent's own streams (``sys.stderr``, ``sys.stdout``, descriptors ``1``/``2``):
  a file, ``PIPE``,
  ``DEVNULL``, or ``STDOUT`` when stdout is captured too (``stdout=`` a file or ``PIPE``;
  ``check_output`` always). A conditional expression or ``**kwargs`` without those
  keywords is not certain.

A value set in this process (``os.environ["TORCH_LOGS"] = ...``) is never kept: torch may
run here. Offsets are code points.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from torch_logs_lsp.hosts._ts import Source, walk

if TYPE_CHECKING:
    import tree_sitter

    from torch_logs_lsp.model.spans import ValueSpan

log = logging.getLogger(__name__)

#: The functions of :mod:`subprocess` (and asyncio's) that start a child with ``env=``.
SPAWNS = frozenset({"run", "Popen", "call", "check_call", "check_output"})
_ASYNC = frozenset({"create_subprocess_exec", "create_subprocess_shell"})
_PARENT_STREAMS = frozenset(
    {"sys.stderr", "sys.stdout", "sys.__stderr__", "sys.__stdout__", "None"}
)
_MUTATORS = frozenset({"update", "setdefault", "__setitem__"})


class _Module:
    """One module's tree and how it names :mod:`subprocess`."""

    def __init__(self, src: Source, root: tree_sitter.Node) -> None:
        self.src = src
        self.root = root
        text = src.text
        self.modules = {"subprocess"} | set(re.findall(r"\bimport\s+subprocess\s+as\s+(\w+)", text))
        self.functions: set[str] = set()
        imports = r"\bfrom[ \t]+subprocess[ \t]+import[ \t]+(?:\(([\w\s,]+)\)|([\w \t,]+))"
        for m in re.finditer(imports, text):
            for item in (m.group(1) or m.group(2)).split(","):
                parts = item.split()
                if len(parts) == 3 and parts[1] == "as" and parts[0] in SPAWNS:
                    self.functions.add(parts[2])
                elif len(parts) == 1 and parts[0] in SPAWNS:
                    self.functions.add(parts[0])

    def text(self, node: tree_sitter.Node | None) -> str:
        if node is None:
            return ""
        return self.src.data[node.start_byte : node.end_byte].decode(errors="replace")

    def spawn(self, call: tree_sitter.Node) -> str | None:
        """The name of the :data:`SPAWNS` function ``call`` calls, or ``None``."""
        fn = call.child_by_field_name("function")
        if fn is None:
            return None
        if fn.type == "identifier":
            name = self.text(fn)
            return name if name in self.functions else None
        if fn.type != "attribute":
            return None
        obj, attr = fn.child_by_field_name("object"), self.text(fn.child_by_field_name("attribute"))
        module = self.text(obj)
        if module in self.modules and attr in SPAWNS:
            return attr
        if module == "asyncio" and attr in _ASYNC:
            return attr
        return None

    def captures(self, call: tree_sitter.Node) -> bool:
        """Whether a spawning ``call`` captures the child's stderr (module docstring)."""
        name = self.spawn(call)
        args = call.child_by_field_name("arguments")
        if name is None or args is None:
            return False
        keywords: dict[str, tree_sitter.Node] = {}
        for kid in args.named_children:
            if kid.type == "keyword_argument":
                key, value = kid.child_by_field_name("name"), kid.child_by_field_name("value")
                if key is not None and value is not None:
                    keywords[self.text(key)] = value
        if "capture_output" in keywords:
            return self.text(keywords["capture_output"]) == "True"
        stderr = keywords.get("stderr")
        if stderr is None:
            return False
        written = " ".join(self.text(stderr).split())
        if stderr.type == "conditional_expression" or written in _PARENT_STREAMS:
            return False
        if written in ("1", "2", "sys.stderr.fileno()", "sys.stdout.fileno()"):
            return False  # the parent's own descriptors (an int is a file descriptor)
        if written.rsplit(".", 1)[-1] == "STDOUT":  # stderr goes where stdout goes
            if name == "check_output":
                return True
            stdout = keywords.get("stdout")
            if stdout is None or stdout.type == "conditional_expression":
                return False
            shown = " ".join(self.text(stdout).split())
            return shown not in _PARENT_STREAMS and shown not in ("1", "2")
        return True

    def env_call(self, expression: tree_sitter.Node) -> tree_sitter.Node | None:
        """The call whose ``env=`` argument is ``expression``, or ``None``."""
        keyword = expression.parent
        if keyword is None or keyword.type != "keyword_argument":
            return None
        if self.text(keyword.child_by_field_name("name")) != "env":
            return None
        args = keyword.parent
        call = args.parent if args is not None else None
        return call if call is not None and call.type == "call" else None

    def name_kept(self, name: str) -> bool:
        """Whether every use of the name ``name`` but its definitions and changes is the
        ``env=`` argument of a call that captures stderr, and there is one."""
        if name in ("environ", "os") or not name.isidentifier():
            return False
        seen = False
        for node in walk(self.root, lambda n: n.type == "identifier"):
            if self.text(node) != name:
                continue
            parent = node.parent
            if parent is None:
                return False
            if parent.type == "assignment" and parent.child_by_field_name("left") == node:
                continue  # env = os.environ.copy()
            if parent.type == "subscript" and parent.child_by_field_name("value") == node:
                outer = parent.parent
                target = outer is not None and outer.type == "assignment"
                if target and outer is not None and outer.child_by_field_name("left") == parent:
                    continue  # env["TORCH_LOGS"] = ...
                return False
            if parent.type == "attribute" and parent.child_by_field_name("object") == node:
                call = parent.parent
                attr = self.text(parent.child_by_field_name("attribute"))
                if attr in _MUTATORS and call is not None and call.type == "call":
                    statement = call.parent
                    if statement is not None and statement.type == "expression_statement":
                        continue  # env.update(TORCH_LOGS=...)
                return False
            call = self.env_call(node)
            if call is None or not self.captures(call):
                return False
            seen = True
        return seen

    def kept(self, span: ValueSpan) -> bool:
        """Whether ``span`` is an environment of children that capture stderr."""
        at = self.src.byte(span.name_start)
        node: tree_sitter.Node | None = self.root.descendant_for_byte_range(at, at)
        while node is not None and node.type not in ("pair", "keyword_argument", "subscript"):
            if node.type in ("call", "assignment", "expression_statement", "module"):
                break
            node = node.parent
        if node is None:
            return False
        holder: tree_sitter.Node | None = None
        if node.type == "pair":  # {**os.environ, "TORCH_LOGS": v}
            holder = node.parent
        elif node.type == "keyword_argument":  # dict(os.environ, TORCH_LOGS=v), env.update(..)
            args = node.parent
            call = args.parent if args is not None else None
            fn = call.child_by_field_name("function") if call is not None else None
            if fn is not None and fn.type == "identifier" and self.text(fn) == "dict":
                holder = call
            elif fn is not None and fn.type == "attribute":
                obj = fn.child_by_field_name("object")
                return (
                    obj is not None and obj.type == "identifier" and self.name_kept(self.text(obj))
                )
        elif node.type == "subscript":  # env["TORCH_LOGS"] = v
            obj = node.child_by_field_name("value")
            return obj is not None and obj.type == "identifier" and self.name_kept(self.text(obj))
        elif node.type == "call":  # env.setdefault("TORCH_LOGS", v)
            fn = node.child_by_field_name("function")
            obj = fn.child_by_field_name("object") if fn is not None else None
            if fn is None or fn.type != "attribute" or obj is None or obj.type != "identifier":
                return False
            return self.name_kept(self.text(obj))
        if holder is None or holder.type not in ("dictionary", "call"):
            return False
        call = self.env_call(holder)
        if call is not None:
            return self.captures(call)
        parent = holder.parent
        if parent is not None and parent.type == "assignment":
            left = parent.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                return self.name_kept(self.text(left))
        call = parent.parent if parent is not None and parent.type == "argument_list" else None
        fn = call.child_by_field_name("function") if call is not None else None
        if fn is not None and fn.type == "attribute":  # env.update({"TORCH_LOGS": v})
            obj = fn.child_by_field_name("object")
            if self.text(fn.child_by_field_name("attribute")) == "update" and obj is not None:
                return obj.type == "identifier" and self.name_kept(self.text(obj))
        return False


def stderr_captured(
    text: str, spans: list[ValueSpan], tree: tree_sitter.Tree | None = None
) -> list[bool]:
    """:meth:`~.interface.OutputHost.stderr_captured` of the Python host (see the module
    docstring): one flag per span of ``spans`` (``extract(text)``); ``tree``: the document's
    tree-sitter-python tree when the host has it. Never raises (a failure keeps nothing)."""
    try:
        src = Source(text, lone_cr_is_lf=True)
        root = (tree if tree is not None else src.parse("python")).root_node
        module = _Module(src, root)
        return [module.kept(span) for span in spans]
    except Exception:  # bad input never crashes the checker
        log.exception("python: where stderr goes could not be read")
        return [False] * len(spans)


__all__ = ["SPAWNS", "stderr_captured"]
