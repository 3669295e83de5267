"""Where the cursor stands in torch's set_logs(...) call (hosts/python/call_site.py):
half-typed code, nested calls, strings, comments, set_logs functions that are not torch's,
the spelling of logging levels and where `import logging` goes."""

from __future__ import annotations

import random

import pytest

from torch_logs_lsp.hosts import set_logs_host
from torch_logs_lsp.hosts.python.host import set_logs_site
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.set_logs.call import Keyword, LevelName, NotStatic, SetLogsCall
from torch_logs_lsp.set_logs.equivalent import call_equivalent, keyword_equivalent
from torch_logs_lsp.set_logs.keywords import set_logs_signature

IMP = "import torch\n"


def site(marked: str):
    """The site at ``|`` in ``marked`` (the text without the mark)."""
    offset = marked.index("|")
    return set_logs_site(marked.replace("|", "", 1), offset)


@pytest.mark.parametrize(
    ("marked", "typed", "given"),
    [
        (IMP + "torch._logging.set_logs(dyn|", "dyn", ()),
        (IMP + "torch._logging.set_logs(|", "", ()),
        (IMP + "torch._logging.set_logs(dynamo=f(x), |", "", ("dynamo",)),
        (IMP + "torch._logging.set_logs(dynamo=f(x, y=2), gu|", "gu", ("dynamo",)),
        (IMP + "torch._logging.set_logs(dynamo=10,\n    |", "", ("dynamo",)),
        (IMP + "torch._logging.set_logs(\n    dynamo=10,\n    gr|\nx = 1\n", "gr", ("dynamo",)),
        (IMP + "torch._logging.set_logs(\n    # a comment, with=this\n    |", "", ()),
        (IMP + "torch._logging.set_logs(a=1, |, guards=True)\n", "", ("a", "guards")),
        (IMP + "torch._logging.set_logs(dynamo='x,y=1', |)", "", ("dynamo",)),
        ("from torch._logging import set_logs\nset_logs(dyn|", "dyn", ()),
        ("from torch._logging import set_logs as sl\nsl(dyn|", "dyn", ()),
        ("import torch._logging as tl\ntl.set_logs(graph_breaks=True, |)", "", ("graph_breaks",)),
        ("import torch as T\nT._logging.set_logs(|", "", ()),
        ("from torch import _logging\n_logging.set_logs(|", "", ()),
        (IMP + "def f():\n    torch._logging.set_logs(\n        dyn|", "dyn", ()),
        (IMP + "print(torch._logging.set_logs(|", "", ()),
    ],
)
def test_keyword_positions(marked: str, typed: str, given: tuple[str, ...]):
    found = site(marked)
    assert found is not None and found.where == "keyword"
    assert found.typed == typed
    assert found.given == given
    text = marked.replace("|", "", 1)
    assert text[found.start : marked.index("|")] == typed


@pytest.mark.parametrize(
    "marked",
    [
        IMP + "torch._logging.set_logs(dynamo=f(|",  # in a nested call
        IMP + "torch._logging.set_logs(dynamo=f(x, |",
        IMP + "torch._logging.set_logs(modules={|",  # in a dict display
        IMP + 'torch._logging.set_logs("dyn|',  # in a string, open
        IMP + 'torch._logging.set_logs("a, |")',  # in a closed string
        IMP + "torch._logging.set_logs('''\n|",  # in a triple-quoted string
        IMP + "torch._logging.set_logs(# dyn|",  # in a comment
        IMP + "x = 'torch._logging.set_logs(|'",
        IMP + "# torch._logging.set_logs(|",
        IMP + '"""torch._logging.set_logs(|\n"""',
        IMP + "torch._logging.set_logs(dynamo=10)|",  # after the call
        IMP + "torch._logging.set_logs('x' |",
        IMP + "torch._logging.set_logs(x.dy|",
        IMP + "torch._logging.set_logs(dynamo=1 + |",  # an expression, no name being typed
        IMP + "torch._logging.set_logs(*|",
        "from mylib import set_logs\nset_logs(dyn|",  # not torch's
        "import torch\nset_logs(dyn|",  # a bare name from nowhere
        IMP + "def set_logs(dyn|",  # a definition
        IMP + "foo.set_logs(dyn|",
        IMP + "torch.set_logs(dyn|",
        IMP + "set_logs = 1\nfrom torch._logging import set_logs\nset_logs(dyn|",  # rebound
        "import torch\n",
    ],
)
def test_no_site(marked: str):
    if "|" not in marked:
        marked += "|"
    assert site(marked) is None


def test_value_positions_and_the_replaced_word():
    found = site(IMP + "import logging\ntorch._logging.set_logs(dynamo=logging.DE|BUG)")
    assert found is not None and found.where == "value" and found.keyword == "dynamo"
    assert found.typed == "logging.DE"
    text = IMP + "import logging\ntorch._logging.set_logs(dynamo=logging.DEBUG)"
    assert text[found.start : found.end] == "logging.DEBUG"
    assert found.levels["DEBUG"].text == "logging.DEBUG" and found.levels["DEBUG"].edit is None
    found = site(IMP + "torch._logging.set_logs(guards=|, dynamo=10)\n")
    assert found is not None and (found.where, found.keyword) == ("value", "guards")
    assert found.given == ("dynamo",)
    assert site(IMP + "torch._logging.set_logs(dynamo=\n    |") is not None


def test_an_equals_after_the_word_is_seen():
    found = site("import torch._logging as tl\ntl.set_logs(dyn|amo =1)")
    assert found is not None and found.has_equals and found.typed == "dyn"
    found = site("import torch._logging as tl\ntl.set_logs(dyn| == 1)")
    assert found is not None and not found.has_equals


@pytest.mark.parametrize(
    ("head", "debug", "info"),
    [
        ("import logging\n", "logging.DEBUG", "logging.INFO"),
        ("import logging as lg\n", "lg.DEBUG", "lg.INFO"),
        ("from logging import DEBUG\n", "DEBUG", None),  # INFO: logging.INFO + import
        ("from logging import DEBUG as D, INFO\n", "D", "INFO"),
    ],
)
def test_level_spellings(head: str, debug: str, info: str | None):
    found = site(head + IMP + "torch._logging.set_logs(dynamo=|")
    assert found is not None
    assert found.levels["DEBUG"].text == debug and found.levels["DEBUG"].edit is None
    if info is not None:
        assert found.levels["INFO"].text == info and found.levels["INFO"].edit is None
    else:
        assert found.levels["INFO"].text == "logging.INFO"
        assert found.levels["INFO"].edit == TextEdit(0, 0, "import logging\n")


@pytest.mark.parametrize(
    ("head", "at"),
    [
        ("", 0),
        ("#!/usr/bin/env python\n# torch-logs: torch=2.4\n", 46),
        ('"""Doc."""\n', 11),
        ('"""Doc."""\nfrom __future__ import annotations\n', 46),
        ("# c\n'''Doc\nmore'''\n\nfrom __future__ import annotations  # x\n", 60),
        ('"""Doc."""; x = 1\n', 18),  # a statement on the docstring's line: after it
    ],
)
def test_where_import_logging_goes(head: str, at: int):
    text = head + IMP + "torch._logging.set_logs(dynamo=)\n"
    found = set_logs_site(text, text.index("dynamo=") + 7)
    assert found is not None
    edit = found.levels["DEBUG"].edit
    assert edit is not None and (edit.start, edit.end) == (at, at)
    assert edit.new_text == "import logging\n"
    patched = text[:at] + edit.new_text + text[at:]
    compile(
        patched.replace("dynamo=)", "dynamo=1)"), "x.py", "exec"
    )  # still Python, the import where it belongs
    head_lines = patched[: patched.index("import logging")]
    assert "import torch" not in head_lines


def test_emoji_offsets_are_code_points():
    text = "import torch\nx = '😀'; torch._logging.set_logs(dyn"
    found = set_logs_site(text, len(text))
    assert found is not None and text[found.start : found.end] == "dyn"


def test_host_interface_default_and_python_host():
    assert set_logs_host("shell") is None  # no set_logs calls: the capability is absent
    python = set_logs_host("python")
    assert python is not None
    assert python.set_logs_site(IMP + "torch._logging.set_logs(", 37) is not None
    assert python.set_logs_site("x" * 10 + "(", 11) is None


def test_random_texts_never_raise():
    rng = random.Random(12)
    parts = [
        IMP,
        "torch._logging.set_logs(",
        "dynamo",
        "modules=",
        ":",
        "}",
        "=",
        ",",
        "(",
        ")",
        "'",
        '"',
        "#",
        "\n",
        "\\",
        "'''",
        "{",
        "logging.DEBUG",
        " ",
        "😀",
    ]
    for _ in range(400):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(1, 25)))
        for offset in range(0, len(text) + 1, 3):
            set_logs_site(text, offset)


R213 = load_registry("2.13")


def _kw(name: str, value) -> Keyword:
    return Keyword(name, 0, len(name), value)


def test_equivalents_with_reasons():
    sig = set_logs_signature(R213)
    debug, x = LevelName("DEBUG", 0, 1), NotStatic(0, 1)
    assert keyword_equivalent(_kw("dynamo", debug), R213, sig) == ("+dynamo", "")
    assert keyword_equivalent(_kw("dynamo", LevelName("WARNING", 0, 1)), R213, sig)[0] is None
    value, note = keyword_equivalent(_kw("dynamo", x), R213, sig)
    assert value is None and "run time" in note
    value, note = keyword_equivalent(_kw("loop_ordering", debug), R213, sig)
    assert value is None and "no keyword" in note
    call = SetLogsCall((_kw("dynamo", debug), _kw("guards", x)))
    value, note = call_equivalent(call, R213, sig)
    assert value is None and note.startswith("`guards`")
    assert call_equivalent(SetLogsCall((_kw("dynamo", debug),), positional=((0, 1),)), R213, sig)[
        1
    ].startswith("set_logs takes keywords only")


@pytest.mark.parametrize(
    ("marked", "key", "typed"),
    [
        (IMP + 'torch._logging.set_logs(modules={"torch._dynamo": |', "torch._dynamo", ""),
        (
            IMP + 'torch._logging.set_logs(dynamo=1, modules={"a.b": logging.DE|, "c": 1})',
            "a.b",
            "logging.DE",
        ),
        (IMP + "torch._logging.set_logs(modules={'a': 1, 'guards': Tr|", "guards", "Tr"),
    ],
)
def test_values_in_a_modules_dict(marked: str, key: str, typed: str):
    found = site(marked)
    assert found is not None and (found.where, found.keyword) == ("value", "modules")
    assert (found.entry_key, found.typed) == (key, typed)


@pytest.mark.parametrize(
    "marked",
    [
        IMP + 'torch._logging.set_logs(modules={"a|',  # the key
        IMP + "torch._logging.set_logs(modules={|",
        IMP + 'torch._logging.set_logs(dynamo={"a": |',  # not modules=
        IMP + 'torch._logging.set_logs(modules=dict(x={"a": |',
        IMP + 'torch._logging.set_logs(modules={f"a": |',  # not a plain literal key
        IMP + 'f(modules={"a": |',
    ],
)
def test_no_value_site_in_other_dicts(marked: str):
    assert site(marked) is None


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_import_logging_goes_after_the_docstring_and_future_with_any_line_end(end: str):
    # (in a lone-CR file neither the completion's import nor the quick fix's may land
    # before `from __future__` or after the call; a CRLF file gets no LF line)
    from torch_logs_lsp.hosts.edits import apply_text_edits
    from torch_logs_lsp.hosts.python import host as python
    from torch_logs_lsp.knowledge.registry import load_registry
    from torch_logs_lsp.lint.set_logs_fixes import call_fixes

    lines = ['"""Doc."""', "from __future__ import annotations", "import torch", ""]
    text = end.join([*lines[:3], "torch._logging.set_logs(dynamo=True)", ""])
    (fix,) = [f for f in call_fixes("python", text, load_registry("2.13")) if "DEBUG" in f.title]
    fixed = apply_text_edits(text, list(fix.edits))
    compile(fixed, "t.py", "exec")
    assert fixed.index("import logging") < fixed.index("set_logs") and "\r\n" not in fixed.replace(
        end, ""
    ).replace("\r\n", "")
    assert fixed.count(end) == text.count(end) + 1  # one more line, with the file's line end
    typing = end.join([*lines[:3], "torch._logging.set_logs(dynamo=", ""])
    site = python.set_logs_site(typing, typing.index("dynamo=") + 7)
    assert site is not None
    edit = site.levels["DEBUG"].edit
    assert edit is not None
    done = apply_text_edits(typing, [edit]).replace(
        "set_logs(dynamo=", "set_logs(dynamo=logging.DEBUG)"
    )
    compile(done, "t.py", "exec")
    assert done.index("from __future__") < done.index("import logging") < done.index("set_logs")
    assert ("import logging" + end) in done


@pytest.mark.parametrize(
    "module",
    [
        "logging = 5\n",
        "for logging in range(3):\n    pass\n",
        "def f(logging):\n    pass\n",
        "def f():\n    import logging\n",
        "if TYPE_CHECKING:\n    import logging\n",
        "import logging\ndel logging\n",
    ],
)
def test_no_level_spelling_that_may_name_something_else(module: str):
    # (these once got `logging.DEBUG`, with or without an added import, and
    # the completed call raised AttributeError or NameError under torch 2.13)
    from torch_logs_lsp.hosts.python import host as python

    text = "import torch\n" + module + "torch._logging.set_logs(dynamo="
    site = python.set_logs_site(text, len(text))
    assert site is not None
    assert not any(s.text.startswith("logging.") for s in site.levels.values()), site.levels


@pytest.mark.parametrize("rest", ['"info")', 'b"x")', "not x)", "[1, 2])", "f(x))", "-1)"])
def test_no_value_completion_in_front_of_a_value(rest: str):
    # (`dynamo=|"info"` must not become `dynamo=logging.DEBUG"info"`)
    from torch_logs_lsp.hosts.python import host as python

    text = "import logging, torch\ntorch._logging.set_logs(dynamo=" + rest + "\n"
    assert python.set_logs_site(text, text.index("=") + 1) is None
