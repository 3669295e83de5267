"""Differential test of the tree walk's ignore rules against git itself.

In generated repositories (hypothesis: a tree of files, ``.gitignore`` files at the top
and in subdirectories, ``.git/info/exclude``, patterns with negation ``!``, anchoring
``/``, directory-only ``dir/``, ``*``, ``?``, ``**``, ``[ab]``, comments and blank lines)
the files :func:`walk` yields are exactly those of
``git ls-files --cached --others --exclude-standard`` (nothing is committed, so these are
the untracked files git does not ignore). Git's semantics are gitignore(5)
(https://git-scm.com/docs/gitignore); git's global excludes are kept out of the oracle
(``GIT_CONFIG_GLOBAL=/dev/null``, ``HOME`` in the temporary directory), as the walk does
not read them either.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp.files import SkippedFile
from torch_logs_lsp.project.walk import walk

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

DIRS = ["a", "b", "sub", "x"]
FILES = ["a", "c.py", "d.env", "e.sh", "f", "g.txt", "[x", "a-]"]
SEGMENTS = ["a", "b", "sub", "x", "*", "?", "**", "c.py", "*.py", "*.env", "[ab]", "d.*", "s*"]
SEGMENTS += ["[!a]", "[a-c]*", "[[:alpha:]]", "*.*", "a**", "c.py  ", "\\x"]
# brackets git gives up on or reads unusually, and globs that backtrack in a regex engine
SEGMENTS += ["[", "[x", "a-]", "[]a]", "[a-]]", "[[:x]", "[[:foo:]]*", "*a*a*", "**/**"]


def _git_env(home: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", HOME=home)
    env["XDG_CONFIG_HOME"] = home
    return env


def git_files(repo: Path, home: str) -> set[str]:
    """The files git lists as tracked or untracked and not ignored under ``repo``."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo,
        capture_output=True,
        check=True,
        env=_git_env(home),
        timeout=60,
    ).stdout.decode()
    return {p for p in out.split("\0") if p}


def walked(repo: Path) -> set[str]:
    skipped: list[SkippedFile] = []
    got = {
        os.path.relpath(e.path, repo).replace(os.sep, "/") for e in walk(str(repo), skipped.append)
    }
    assert skipped == []
    return got


paths = st.lists(st.sampled_from(DIRS), max_size=3).flatmap(
    lambda dirs: st.sampled_from(FILES).map(lambda f: "/".join([*dirs, f]))
)

pattern = st.builds(
    lambda neg, anchor, segs, slash: neg + anchor + "/".join(segs) + slash,
    st.sampled_from(["", "", "!"]),
    st.sampled_from(["", "", "/"]),
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3),
    st.sampled_from(["", "", "/"]),
)
line = st.one_of(pattern, pattern, pattern, st.sampled_from(["", "# a comment", "#*.py"]))
ignore_file = st.lists(line, max_size=6)


def _build(repo: Path, files: list[str], ignores: dict[str, list[str]], exclude: list[str]) -> None:
    for rel in files:
        target = repo / rel
        if any(parent.is_file() for parent in target.parents):
            continue  # a file stands where a directory would be
        if target.is_dir():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("TORCH_LOGS=dynamo\n")
    for where, lines in ignores.items():
        directory = repo / where
        if any(p.is_file() for p in [directory, *directory.parents]):
            continue
        directory.mkdir(parents=True, exist_ok=True)
        (directory / ".gitignore").write_text("".join(f"{x}\n" for x in lines))
    (repo / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("".join(f"{x}\n" for x in exclude))


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    files=st.lists(paths, min_size=1, max_size=14),
    ignores=st.dictionaries(
        st.sampled_from(["", "a", "b", "sub", "a/b", "x/sub"]), ignore_file, max_size=3
    ),
    exclude=ignore_file,
)
def test_walk_lists_what_git_lists(
    files: list[str], ignores: dict[str, list[str]], exclude: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True, env=_git_env(home), timeout=60)
        _build(repo, files, ignores, exclude)
        expected = git_files(repo, home)
        assert walked(repo) == expected, (files, ignores, exclude)


@pytest.mark.parametrize(
    ("lines", "where"),
    [
        (["*.env", "!keep.env"], ""),  # a negation re-includes a file
        (["sub/"], ""),  # directory-only: the directory sub, not a file named sub
        (["/a"], ""),  # anchored: only the top a
        (["a/**/c.py"], ""),  # ** across directories
        (["*", "!*/", "!*.py"], ""),  # everything but Python files and directories
        (["c.py"], "a"),  # a nested .gitignore applies to its directory only
        (["/c.py"], "a/b"),
        (["x/", "!x/c.py"], ""),  # a file under an ignored directory cannot be re-included
    ],
)
def test_known_rules_agree_with_git(lines: list[str], where: str, tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    os.mkdir(home)
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=_git_env(home), timeout=60)
    files = ["c.py", "keep.env", "drop.env", "sub/c.py", "a/c.py", "a/b/c.py", "a/b/a/c.py"]
    files += ["x/c.py", "x/a/c.py", "b/a", "b/sub"]
    _build(repo, files, {where: lines}, [])
    expected = git_files(repo, home)
    assert walked(repo) == expected
    assert len(expected) < len(files) + 1  # the rules do leave something out


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    files=st.lists(paths, min_size=1, max_size=10),
    ignores=st.dictionaries(st.sampled_from(["", "a", "sub"]), ignore_file, max_size=2),
    added=st.lists(st.integers(0, 9), max_size=4),
    version=st.sampled_from(["2", "3", "4"]),
)
def test_tracked_files_are_never_ignored(
    files: list[str], ignores: dict[str, list[str]], added: list[int], version: str
) -> None:
    """git never ignores a tracked file (gitignore(5)): files added with `git add -f`
    although a rule matches them are walked, read from the index (versions 2, 3, 4)."""
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        repo = Path(tmp) / "repo"
        repo.mkdir()
        env = _git_env(home)
        subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env, timeout=60)
        _build(repo, files, ignores, [])
        existing = sorted({f for f in files if (repo / f).is_file()})
        chosen = sorted({existing[i % len(existing)] for i in added}) if existing else []
        if chosen:
            git = ["git", "-C", str(repo)]
            subprocess.run([*git, "add", "-f", "--", *chosen], check=True, env=env, timeout=60)
        subprocess.run(
            ["git", "-C", str(repo), "update-index", "--index-version", version],
            check=True,
            env=env,
            timeout=60,
        )
        assert walked(repo) == git_files(repo, home), (files, ignores, chosen, version)


def test_only_tracked_files_count_in_an_ignored_directory(tmp_path: Path) -> None:
    # found by hypothesis: `a` ignores the directory b/a; b/a/a is tracked, b/a/c.py not
    home = str(tmp_path / "home")
    os.mkdir(home)
    repo = tmp_path / "repo"
    env = _git_env(home)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env, timeout=60)
    _build(repo, ["a", "b/a/a", "b/a/c.py"], {"": ["a"]}, [])
    subprocess.run(["git", "-C", str(repo), "add", "-f", "b/a/a"], check=True, env=env)
    assert walked(repo) == {".gitignore", "b/a/a"} == git_files(repo, home)


def test_a_force_added_file_under_an_ignored_directory_is_checked(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    os.mkdir(home)
    repo = tmp_path / "repo"
    repo.mkdir()
    env = _git_env(home)
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env, timeout=60)
    (repo / ".gitignore").write_text(".vscode/\n*.env\n")
    (repo / ".vscode").mkdir()
    (repo / ".vscode" / "launch.json").write_text("{}\n")
    (repo / "ci.env").write_text("TORCH_LOGS=gaurds\n")
    (repo / "local.env").write_text("TORCH_LOGS=gaurds\n")
    git = ["git", "-C", str(repo)]
    subprocess.run([*git, "add", "-f", ".vscode/launch.json", "ci.env"], check=True, env=env)
    assert walked(repo) == {".gitignore", ".vscode/launch.json", "ci.env"} == git_files(repo, home)


def test_bracket_expressions_agree_with_git(tmp_path: Path) -> None:
    """git gives up on a pattern whose bracket expression is not closed or names an
    unknown class (nothing is ignored by it), and reads ``[]a]``, ``[a-]``, ``[[:x]``
    and a class before ``-`` as wildmatch.c does."""
    home = str(tmp_path / "home")
    os.mkdir(home)
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=_git_env(home), timeout=60)
    lines = ["foo[", "[ab", "x[\\]y", "[[:foo:]]", "[[:x]y", "[]a]b", "[a-]c", "[[:digit:]-z]d"]
    lines += ["[[:alpha:]", "e[\\]]f", "\\"]
    files = ["foo[", "[ab", "x]y", "f", "xy", "[y", ":y", "]b", "ab", "-c", "ac", "bc", "-d"]
    files += ["yd", "5d", "a", "e]f", "\\"]
    _build(repo, files, {"": lines}, [])
    expected = git_files(repo, home)
    assert walked(repo) == expected
    assert {"foo[", "[ab", "x]y", "f", "yd", "a", "bc"} <= expected
    assert not {"xy", "[y", "]b", "ab", "-c", "-d", "5d", "e]f"} & expected
