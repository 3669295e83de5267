"""The INI host: ``pytest.ini``, ``.pytest.ini``, ``tox.ini`` and ``setup.cfg``.

Two readers of the same files, each mirrored with document offsets:

- pytest-env's ``env`` option in ``[pytest]`` (``pytest.ini``, ``.pytest.ini``,
  ``tox.ini``) or ``[tool:pytest]`` (``setup.cfg``), one ``[D:][R:]NAME=value`` entry per
  value line, the file read as pytest reads it, with iniconfig
  (:mod:`.ini_pytest_env`, :func:`.ini_lines.iniconfig_options`), as pytest-env 1.8.7
  reads an entry; where it stops pytest before any test runs: :func:`stops` (TL504);
- tox 4's ``set_env``/``setenv`` lines in ``[testenv]``, ``[testenv:NAME]`` and
  ``[pkgenv...]`` sections, the file read as tox reads it, with configparser
  (:mod:`.ini_tox`, :func:`.ini_lines.configparser_options`).

Values are never quoted: both readers strip the blanks around a value and keep every
other character (an inline ``#`` comment stays in a pytest-env value; tox cuts a line at
``#``). A value with ``{`` or ``}`` (pytest-env formats it with the environment unless
``R:``; tox substitutes it) is not static.

Which file pytest reads is not known from one document: pytest takes the first of
``pytest.toml``, ``.pytest.toml``, ``pytest.ini``, ``.pytest.ini``, ``pyproject.toml``,
``tox.ini`` (with ``[pytest]``) and ``setup.cfg`` (with ``[tool:pytest]``) in a
directory (``_pytest/config/findpaths.py`` ``CONFIG_LOADERS_BY_NAME``), and pytest-env
prefers a ``[tool.pytest_env]`` TOML table. A value is read as if its file were the one
used. ``extract`` does not know the file's name either (an untitled ``ini`` document is
read the same way): a document without these sections has no spans.
All offsets are **code points into the document**.
"""

from __future__ import annotations

import logging
import re

from torch_logs_lsp.hosts.incremental import DocumentCache
from torch_logs_lsp.hosts.ini import pytest_env as ini_pytest_env
from torch_logs_lsp.hosts.ini import tox as ini_tox
from torch_logs_lsp.hosts.ini.lines import configparser_options, iniconfig_options
from torch_logs_lsp.hosts.interface import Overwrite, Stopped, line_before, line_bounds, lines_back
from torch_logs_lsp.hosts.spec import HostSpec
from torch_logs_lsp.hosts.typographic import kept_findings
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.host_kind import HostKind
from torch_logs_lsp.model.spans import ValueSpan, names_family
from torch_logs_lsp.value.paths import PathFacts

log = logging.getLogger(__name__)

SPEC = HostSpec(
    "ini",
    ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"),  # exactly: detect_name
    ("ini",),
    line_comments=("#", ";"),
    vscode_by_name=True,  # VS Code opens setup.cfg as `properties`; no other INI file
    activation=("workspaceContains:**/{tox.ini,pytest.ini}",),
)
HOST: HostKind = "ini"
DESCRIPTION = "pytest and tox INI files (pytest.ini, tox.ini, setup.cfg)"
LANGUAGE_IDS = SPEC.language_ids
COMMENT = SPEC.line_comments[0]
NEVER_SET: str | None = None  # INI values have no quotes
STRIPS_TRAILING_BLANKS = True
RUNS_ON = "posix"
COMMENT_GRAMMAR: str | None = None
LINE_COMMENTS = True

_NAMES = frozenset(SPEC.globs)


def detect_name(name: str) -> bool:
    """``pytest.ini``, ``.pytest.ini``, ``tox.ini``, ``setup.cfg``: exactly these names
    (pytest and tox look for no other spelling)."""
    return name in _NAMES


def detect_content(name: str, head: str) -> bool:
    """Never: known by its name."""
    return False


def unknown_cwd(text: str, spans: list[ValueSpan]) -> list[PathFacts]:
    """:meth:`Host.path_facts`: the values run here, in a working directory not known
    from the file."""
    return [PathFacts(cwd=None)] * len(spans)


may_hold_values = names_family
# pytest runs in the directory it is started from (not known here), tox in its
# ``change_dir``: a relative path is not judged.
path_facts = unknown_cwd
# Both readers keep a typographic quote as a character of the value (no quoting).
quote_findings = kept_findings(False)


def _read(text: str) -> tuple[list[ini_pytest_env.Entry], list[ini_tox.Line]]:
    pytest_entries = ini_pytest_env.entries(text, HOST, iniconfig_options(text))
    tox_lines = ini_tox.lines(text, configparser_options(text), HOST)
    # (an entry without `=` sets "" for pytest-env: TL001, `import torch` crashes)
    return [e for e in pytest_entries if "U" not in e.flags], tox_lines


def extract(text: str, cache: DocumentCache | None = None) -> list[ValueSpan]:
    """The value spans of an INI document in document order: pytest-env entries and tox
    ``set_env`` lines. ``cache`` is not used (every call reads afresh). Never raises: a
    document a reader fails on gives ``[]`` (logged)."""
    if cache is not None:
        cache.reset()
    if not names_family(text):
        return []
    try:
        entries, tox_lines = _read(text)
    except Exception:  # bad input never crashes the server
        log.exception("ini: extraction failed")
        return []
    spans = [e.span for e in entries] + [t.span for t in tox_lines]
    return sorted(spans, key=lambda s: s.name_start)


def stops(text: str) -> list[Stopped]:
    """Where pytest-env 1.8.7 stops pytest before any test runs (an unknown flag, an
    entry with no name, a template it cannot expand: :func:`.ini_pytest_env.stops`), in
    an ``env`` option that names a family variable. Never raises."""
    if not names_family(text):
        return []
    try:
        return ini_pytest_env.stops(text)
    except Exception:
        log.exception("ini: reading where pytest-env stops failed")
        return []


def overwritten(text: str, spans: list[ValueSpan]) -> list[Overwrite]:
    """Entries set again later in the same option (pytest-env: a later entry without
    ``D:``; tox: a later unconditional line). Never raises."""
    try:
        every = ini_pytest_env.entries(text, HOST)
        tox_lines = ini_tox.lines(text, configparser_options(text), HOST)
    except Exception:
        log.exception("ini: overwrite reading failed")
        return []
    index = {s.name_start: i for i, s in enumerate(spans)}
    out: list[Overwrite] = []
    why = "set again by a later pytest-env entry of the same `env`"
    pairs = [(every[d].span, every[k].span, why) for d, k in ini_pytest_env.dead(every)]
    why = "set again by a later line of the same tox `set_env`"
    pairs += [(tox_lines[d].span, tox_lines[k].span, why) for d, k in ini_tox.dead(tox_lines)]
    for dead, live, who in pairs:
        i, j = index.get(dead.name_start), index.get(live.name_start)
        if i is not None and j is not None:
            out.append(Overwrite(i, j, who))
    return sorted(out)


#: Characters a value cannot hold in one of the readers: a line break (either reader's),
#: tox's comment and marker starts, substitutions of either.
_UNWRITABLE = re.compile("[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029#;{}\\\\]|\\[\\]")


def encode_part(quote: str, value: str) -> str | None:
    """``value`` written unquoted (the only quoting, ``""``), or ``None`` when it cannot
    be read back the same by both readers: blanks at its ends (both strip them), a line
    break, ``#`` or ``;`` (tox's comment and marker), ``{``, ``}``, ``\\`` or ``[]``
    (substitutions)."""
    if quote != "" or value != value.strip() or _UNWRITABLE.search(value):
        return None
    return value


def _value_line(text: str, span: ValueSpan) -> tuple[int, int, bool, bool] | None:
    """The option value line holding ``span`` as its reader reads it: its range, whether
    it is on the option's own line, and whether the option has other lines."""
    pytest = [o for o in iniconfig_options(text) if o.name == "env"]
    pytest = [o for o in pytest if o.section in ini_pytest_env.SECTIONS]
    tox = [o for o in configparser_options(text) if o.name in ini_tox.KEYS]
    for option in pytest + tox:
        for start, end in option.lines:
            if start <= span.name_start and span.raw_end <= end:
                first = start <= line_bounds(text, option.name_start, option.name_start)[1]
                return start, end, first, len(option.lines) > 1
    return None


def removal(text: str, span: ValueSpan) -> tuple[str, TextEdit] | None:
    """The entry's line: a continuation line or the option's only line is removed whole;
    an entry after ``env =`` with more lines below is cut from that line (the option stays
    for the lines below). ``None`` for a line joined to the next (``\\`` at its end)."""
    found = _value_line(text, span)
    if found is None:
        return None
    start, end, first, more = found
    if text[start:end].endswith("\\"):
        return None
    title = f"Remove the `{span.variable}` entry"
    if first and more:
        return title, TextEdit(start, end, "")
    ls, _le, after = line_bounds(text, start, end)
    return title, TextEdit(ls, after, "")


_OPTION_LINE = re.compile(r"^(env|set_env|setenv)[ \t]*[=:][ \t]*", re.IGNORECASE)
_FLAGS = r"(?:[ \t]*[A-Za-z][ \t]*:)*[ \t]*"
_LEAD = r"(?:[ \t]+(?:[\w.!{},-]+:[ \t]+)?|(?:env|set_env|setenv)[ \t]*[=:])"
_TYPED = re.compile(rf"^{_LEAD}{_FLAGS}([A-Za-z_][A-Za-z0-9_]*)?$", re.IGNORECASE)


def typed_name(text: str, offset: int) -> str | None:
    """A name being typed as an entry of ``env =`` (after ``D:``/``R:`` flags) or of
    ``set_env =`` (after a ``factor:`` prefix): on the option's line or on an indented
    line below it."""
    before = line_before(text, offset)
    m = _TYPED.match(before)
    if m is None:
        return None
    if not before[:1].isspace():
        return m.group(1) or ""
    line_start = offset - len(before)
    for line in lines_back(text, line_start):
        if line[:1].isspace():
            continue
        return (m.group(1) or "") if _OPTION_LINE.match(line) else None
    return None
