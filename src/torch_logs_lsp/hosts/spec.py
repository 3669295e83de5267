"""A host's declaration: the file names, editor languages and comment syntax of its documents.

Each host module declares one :class:`HostSpec` as ``SPEC``; ``hosts/__init__.py`` lists them
(:func:`~torch_logs_lsp.hosts.host_specs`). Derived from them: the name rule of a host whose
globs say everything (:meth:`HostSpec.claims`), ``host_for_language``, the comment markers
of suppressions and pin comments (:mod:`.comments`), and the VS Code extension's document
selector and activation events (``./dev gen``, ``scripts/gen_extension_hosts.py``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

from torch_logs_lsp.model.host_kind import HostKind


@dataclass(frozen=True)
class HostSpec:
    """One host's declaration.

    ``kind``: the host kind (its module's package name). ``globs``: base-name globs of the
    files it reads, any case (``"*.sh"``, ``".envrc"``, ``"Dockerfile.*"``); a host whose
    name rule has exceptions a glob cannot say (``.env.py`` is no ``.env`` file) keeps its
    own ``detect_name`` and declares the globs it starts from. ``language_ids``: editor
    languageIds (LSP ``TextDocumentItem.languageId``) that name it, for a document whose
    path says nothing (an untitled one). ``line_comments``: what starts a comment to the
    end of the line, the one a new comment is written with first (``("rem", "::")``; a
    word-like marker counts only as a whole word followed by a blank, any case).
    ``block_comments``: ``(open, close)`` pairs, declared for completeness (suppressions
    and pins are line comments). ``vscode_languages``: VS Code language ids the extension
    sends in files and untitled editors. ``vscode_by_name``: the extension also sends files
    matching ``globs`` whatever their language. ``activation``: the extension's activation
    events for this host (``None``: ``onLanguage:`` of each of ``vscode_languages``).
    ``posix_only``: its documents run only on Linux or macOS (a POSIX shell), where
    environment names are case-sensitive: ``torch_logs`` is never ``TORCH_LOGS`` there.
    """

    kind: HostKind
    globs: tuple[str, ...]
    language_ids: tuple[str, ...] = ()
    line_comments: tuple[str, ...] = ("#",)
    block_comments: tuple[tuple[str, str], ...] = ()
    vscode_languages: tuple[str, ...] = ()
    vscode_by_name: bool = False
    activation: tuple[str, ...] | None = None
    posix_only: bool = False
    _names: frozenset[str] = field(init=False, repr=False, compare=False)
    _suffixes: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _others: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lower = [g.lower() for g in self.globs]
        wild = re.compile(r"[*?\[]")
        names = frozenset(g for g in lower if not wild.search(g))
        suffixes = tuple(g[1:] for g in lower if g.startswith("*") and not wild.search(g[1:]))
        rest = [g for g in lower if g not in names and g[1:] not in suffixes]
        others = re.compile("|".join(fnmatch.translate(g) for g in rest)) if rest else None
        object.__setattr__(self, "_names", names)
        object.__setattr__(self, "_suffixes", suffixes)
        object.__setattr__(self, "_others", others)

    def claims(self, name: str) -> bool:
        """Whether the base name ``name`` matches one of :attr:`globs` (any case): the
        ``detect_name`` of a host whose globs say everything."""
        lower = name.lower()
        if lower in self._names or lower.endswith(self._suffixes):
            return True
        return self._others is not None and self._others.match(lower) is not None

    @property
    def activation_events(self) -> tuple[str, ...]:
        """:attr:`activation`, or ``onLanguage:<id>`` for each of :attr:`vscode_languages`."""
        if self.activation is not None:
            return self.activation
        return tuple(f"onLanguage:{language}" for language in self.vscode_languages)


__all__ = ["HostSpec"]
