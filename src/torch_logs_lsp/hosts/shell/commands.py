"""What the arguments of ``mkdir``, ``install`` and ``cd``/``pushd`` mean (GNU coreutils
9 ``mkdir --help``/``install --help``, the bash manual's ``cd``): which directories the
command creates, where it goes. Pure functions of the command's words after its name, each
a static string or ``None`` (a word that is not static); used by :mod:`.shell_paths`.
"""

from __future__ import annotations

import posixpath


def mkdir_dirs(args: list[str | None]) -> list[str] | None:
    """The directories ``mkdir args`` creates, or ``None`` when not certain."""
    operands: list[str] = []
    options, skip = True, False
    for w in args:
        if skip:
            skip = False
            continue
        if w is None:
            return None
        if options and w == "--":
            options = False
        elif options and w.startswith("--"):
            if w == "--mode":
                skip = True
            elif w not in ("--parents", "--verbose", "--context") and not w.startswith(
                ("--mode=", "--context=")
            ):
                return None
        elif options and w.startswith("-") and w != "-":
            for j, c in enumerate(w[1:], 1):
                if c == "m":
                    skip = j == len(w) - 1  # -m MODE, or -m755
                    break
                if c not in "pvZ":
                    return None
        else:
            operands.append(w)
    return operands


_INSTALL_ARG = frozenset("mogSt")
_INSTALL_FLAG = frozenset("bcCpsvTZDd")


def install_dirs(args: list[str | None]) -> list[str] | None:
    """The directories ``install args`` creates (``-d``: every operand; ``-D``: the
    target's directory), or ``None`` when not certain."""
    operands: list[str] = []
    flags: set[str] = set()
    target: str | None = None
    options, want = True, ""
    for w in args:
        if want:
            if w is None and want == "t":
                return None
            if want == "t":
                target = w
            want = ""
            continue
        if w is None:
            return None
        if options and w == "--":
            options = False
        elif options and w.startswith("--"):
            name, eq, val = w[2:].partition("=")
            if name == "directory":
                flags.add("d")
            elif name == "target-directory":
                if eq:
                    target = val
                else:
                    want = "t"
            elif name in ("mode", "owner", "group", "suffix", "strip-program") and not eq:
                want = "x"
            elif name not in (
                "mode",
                "owner",
                "group",
                "suffix",
                "strip-program",
                "backup",
                "compare",
                "preserve-timestamps",
                "strip",
                "verbose",
                "no-target-directory",
                "context",
                "preserve-context",
                "debug",
            ):
                return None
        elif options and w.startswith("-") and w != "-":
            for j, c in enumerate(w[1:], 1):
                if c in _INSTALL_ARG:
                    if j == len(w) - 1:
                        want = c
                    elif c == "t":
                        target = w[j + 1 :]
                    break
                if c not in _INSTALL_FLAG:
                    return None
                flags.add(c)
        else:
            operands.append(w)
    if "d" in flags:
        return operands
    if "D" in flags:
        if target is not None:
            return [target]
        return [posixpath.dirname(operands[-1])] if len(operands) >= 2 else []
    return []


def cd_target(args: list[str | None]) -> str | None:
    """The operand of ``cd``/``pushd`` when it names a place for certain: an absolute path
    or one starting with ``./``/``../`` (not looked up in CDPATH); else ``None``."""
    operands = [w for w in args if w is None or not (w.startswith("-") and w != "-")]
    if len(operands) != 1 or operands[0] is None:
        return None
    w = operands[0]
    if w.startswith("/") or w in (".", "..") or w.startswith(("./", "../")):
        return w
    return None


__all__ = ["cd_target", "install_dirs", "mkdir_dirs"]
