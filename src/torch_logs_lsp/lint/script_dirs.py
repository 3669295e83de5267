"""Where module names of a document's values are looked for first: the directories that
the process reading the value may have as ``sys.path[0]``.

torch resolves a module name of ``TORCH_LOGS`` (``+mypkg.model``) at ``import torch`` with
``importlib.util.find_spec`` over that process's ``sys.path``, whose first entry depends
on how the process started: ``python dir/train.py`` puts the script's directory there
(symlinks resolved), ``python -m pkg.mod``, ``python -c`` and a notebook kernel the working
directory. A checked file rarely says for certain which process reads its value, so every
plausible directory is a candidate, and a module found with any of them is found (no
finding for a module the project's own script could import; see
:meth:`.ModuleFinder.with_first`). The candidates of a document:

- the working directories it may run in: the document's own directory (a Python file is
  the script being run; a shell script, ``.env`` or Makefile is usually run from there),
  the workspace's folders (the editor's; on the command line the current directory and the
  file's project), the directory relative paths are resolved against, and a directory the
  host knows the document moves to (a shell ``cd``, :attr:`.PathFacts.cwd`);
- the directory of each ``*.py`` path the document names (``python scripts/train.py``,
  ``torchrun train.py``, launch.json's ``"program": "${workspaceFolder}/tools/run.py"``,
  ``CMD ["python", "app/main.py"]``), taken from each of those working directories, and
  ``${workspaceFolder}`` as each workspace folder (for a file in ``.vscode/``, also the
  folder holding it): a word ending in ``.py`` is enough (a
  name that is not a script only adds a directory to look in, never a finding);
- the directories commands change to, as written (``python -m`` and ``python -c`` run
  there): a launch configuration's ``"cwd"``, a workflow step's ``working-directory:``,
  ``cd``/``pushd`` anywhere in the text (also ``cd x && python -m app``, which the shell
  host cannot follow for paths), each from each working directory above.

Only lines holding ``.py`` (``cd``, ``"cwd"``, ...) are searched, each at most
:data:`MAX_LINE` long; only existing directories count, at most :data:`MAX_DIRS` of them
(a few ``stat`` and listing calls per document; listings are cached per directory).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence

from torch_logs_lsp.value.paths import Where

#: Most candidate directories of one document.
MAX_DIRS = 64
#: Most ``*.py`` words, and most directories changed to, of one document looked at.
MAX_SCRIPTS = 256

#: Longest line searched for ``*.py`` words (code points): a longer one is a blob or a
#: minified line, not a command that runs a script.
MAX_LINE = 16_384
#: A word ending in ``.py``: path characters and ``${name}`` variables, starting after a
#: separator (so each word is scanned once: linear in the text, whatever it holds).
_SCRIPT = re.compile(
    r"(?<![^\s\"'`=;,()\[\]<>|&\\*?])(?:\$\{\w+\}|[^\s\"'`=;,()\[\]{}<>|&$\\*?])*\.py(?![\w.-])"
)
#: Where a command runs: a launch configuration's ``"cwd": "..."`` (without escapes), a
#: workflow step's ``working-directory:``, compose's ``working_dir:``, a shell's ``cd DIR``
#: or ``pushd DIR`` (anywhere: also inside ``cd x && python -m app``).
_CWD = re.compile(
    r'"cwd"\s*:\s*"([^"\\]*)"'
    r"|\b(?:working-directory|working_dir)\s*:\s*[\"']?([^\s\"'#]+)"
    r"|(?:^|[\s;&|(])(?:cd|pushd)\s+[\"']?([^\s\"';&|)]+)",
    re.MULTILINE,
)
#: Folders an editor keeps its settings in, inside the workspace folder (``.vscode``,
#: ``.devcontainer``): a document there names ``${workspaceFolder}`` as their parent.
_EDITOR_DIRS = frozenset({".vscode", ".devcontainer"})
#: VS Code's variables for a workspace folder.
_WORKSPACE = re.compile(r"\$\{(?:workspaceFolder|workspaceRoot)\}")


#: What a line :data:`_CWD` may match holds.
_CWD_NEEDLES = ("cd", "pushd", '"cwd"', "working")


def _lines_with(text: str, needles: tuple[str, ...]) -> Iterator[str]:
    """The lines of ``text`` (without their line break) that contain one of ``needles``,
    in order, each once: the patterns then run on those lines only (a string search
    skips the rest at C speed)."""
    starts: set[int] = set()
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            nl = text.rfind("\n", 0, at)
            start = max(nl, text.rfind("\r", nl + 1, at)) + 1  # (back to the LF only)
            starts.add(start)
            end = _line_end(text, at)
            at = text.find(needle, end)
    for start in sorted(starts):
        yield text[start : _line_end(text, start)]


def _line_end(text: str, at: int) -> int:
    """Where the line holding ``at`` ends (its line break, or the end of the text)."""
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    cr = text.find("\r", at, end)  # (searched only up to the LF: linear over all lines)
    return end if cr < 0 else cr


def _resolved(word: str, bases: Sequence[str], roots: Sequence[str]) -> Iterable[str]:
    """The absolute paths ``word`` (a path as written) may name: ``~`` expanded,
    ``${workspaceFolder}`` as each root, a relative one from each base; nothing for a word
    with other variables."""
    if word.startswith("~"):
        word = os.path.expanduser(word)
    if _WORKSPACE.search(word):
        for root in roots:
            yield os.path.normpath(_WORKSPACE.sub(root.replace("\\", "\\\\"), word))
        return
    if "$" in word:
        return
    if os.path.isabs(word):
        yield os.path.normpath(word)
        return
    for base in bases:
        yield os.path.normpath(os.path.join(base, word))


def script_dirs(
    text: str,
    path: str | None,
    wheres: Sequence[Where],
    base_dir: str | None,
    roots: Sequence[str] | None,
    words: Words | None = None,
) -> tuple[str, ...]:
    """The candidates for ``sys.path[0]`` of the processes that read the values of the
    document ``text`` (the file ``path``, absolute; ``None`` for text that is not a file),
    as the module docstring says: ``wheres`` are the values' :class:`.paths.Where`
    (:func:`.paths.places`), ``base_dir`` and ``roots`` the pipeline's. Existing
    directories only, each once, at most :data:`MAX_DIRS`. Every host's text is searched
    alike: a candidate too many only means a finding fewer. ``words``: the text's
    :func:`script_words` when the caller has them. Never raises."""
    folders = [os.path.abspath(r) for r in roots or ()]
    bases: list[str] = []
    if path is not None and os.path.isabs(path):
        here = os.path.dirname(os.path.normpath(path))
        bases.append(here)
        if os.path.basename(here) in _EDITOR_DIRS:  # .vscode/launch.json: its workspace
            folders.insert(0, os.path.dirname(here))
    bases += folders
    if base_dir:
        bases.append(os.path.abspath(base_dir))
    bases += [w.facts.cwd for w in wheres if w.facts.cwd and os.path.isabs(w.facts.cwd)]
    bases = list(dict.fromkeys(bases))
    out: dict[str, None] = {}

    def add(directory: str) -> None:
        if len(out) < MAX_DIRS and directory not in out and os.path.isdir(directory):
            out[directory] = None

    for base in bases:
        add(base)
    moves, scripts = words if words is not None else script_words(text)
    try:
        for move in moves:
            if len(out) >= MAX_DIRS:
                break
            for cwd in _resolved(move, bases, folders):
                add(cwd)
        for word in scripts:
            if len(out) >= MAX_DIRS:
                break
            for script in _resolved(word, bases, folders):
                add(os.path.dirname(script))
                if os.path.lexists(script):  # python puts the real directory first
                    real = os.path.realpath(script)
                    if real != script:
                        add(os.path.dirname(real))
    except (OSError, ValueError):  # a path the OS refuses (NUL, too long): no more
        pass
    return tuple(out)


#: What :func:`script_words` finds: the directories changed to and the scripts named, as
#: written, each at most :data:`MAX_SCRIPTS`.
Words = tuple[tuple[str, ...], tuple[str, ...]]
#: What a line :func:`script_words` reads may hold (a value without any of them changes
#: nothing it finds).
NEEDLES = (*_CWD_NEEDLES, ".py")


def script_words(text: str) -> Words:
    """The words of ``text`` that :func:`script_dirs` resolves: the directories it changes
    to (``cd``, ``pushd``, ``"cwd"``, ``working-directory:``) and the scripts it names
    (``train.py``), as written, in order, each kind at most :data:`MAX_SCRIPTS`. Read from
    the text alone (no file is looked at), so a caller may keep it while the lines holding
    :data:`NEEDLES` do not change. Never raises."""
    moves: list[str] = []
    for m in (m for line in _lines_with(text, _CWD_NEEDLES) for m in _CWD.finditer(line)):
        if len(moves) >= MAX_SCRIPTS:
            break
        moves.append(m.group(m.lastindex or 1))
    found: dict[str, None] = {}
    lines = (line for line in _lines_with(text, (".py",)) if len(line) <= MAX_LINE)
    for m in (m for line in lines for m in _SCRIPT.finditer(line)):
        if len(found) >= MAX_SCRIPTS:
            break
        found[m.group(0)] = None
    return tuple(moves), tuple(found)


__all__ = ["MAX_DIRS", "MAX_LINE", "NEEDLES", "Words", "script_dirs", "script_words"]
