"""Walking a tree for ``torch-logs check DIR``: iterative (no recursion limit), sorted,
never following a symlinked directory, and never opening what is not a regular file.

A FIFO found by walking must not be opened at all, not even with ``O_NONBLOCK``: a
secrets manager blocked writing a ``.env`` into a named pipe would be released to write
into a reader that goes away, and its data would be lost (a ``/proc/kmsg`` link would
lose kernel messages). The checks record ``os.open`` in-process, and trace ``openat``
with strace when it is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from tests.support.paths import EXAMPLES
from torch_logs_lsp import hosts
from torch_logs_lsp.cli.main import main
from torch_logs_lsp.files import SkippedFile
from torch_logs_lsp.lint.checker import may_find
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.project.walk import iter_files

DEPTH = 1000


@pytest.fixture
def deep(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path/d/x/x/.../x/.env``, ``DEPTH`` levels of ``x``; removed without
    recursion (pytest's ``shutil.rmtree`` would hit the recursion limit)."""
    (tmp_path / "top.env").write_text("TORCH_LOGS=Dynamo\n")
    dirs = [tmp_path / "d"]
    for _ in range(DEPTH):
        dirs.append(dirs[-1] / "x")
    for d in dirs:  # not os.makedirs: it recurses once per level
        d.mkdir()
    (dirs[-1] / ".env").write_text("TORCH_LOGS=Dynamo\n")
    yield tmp_path
    (dirs[-1] / ".env").unlink(missing_ok=True)
    for d in reversed(dirs):
        d.rmdir()


def test_a_tree_a_thousand_levels_deep_is_walked(deep: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "."],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=deep,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 1
    assert "2 file(s) checked" in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("top.env:1:12: TL201 unknown name `Dynamo`")
    assert lines[1].startswith("d/" + "x/" * DEPTH + ".env:1:12: TL201 unknown name `Dynamo`")


def _tree(root: Path) -> None:
    for rel in [
        "b.env",
        "a/.env",
        "a/z.sh",
        "a/sub/.env.local",
        "A.env",
        "node_modules/.env",
        "venv2/.env",
        "notes.txt",
    ]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("TORCH_LOGS=dynamo\n")
    (root / "venv2" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "script").write_text("#!/bin/sh\nexport TORCH_LOGS=dynamo\n")
    os.symlink(".", root / "loop")  # a directory symlink loop: never entered
    os.symlink("a", root / "alias")  # a symlinked directory: not entered (os.walk's default)
    os.symlink("b.env", root / "link.env")  # a symlinked file: checked


def test_walk_order_skips_and_symlinks(tmp_path: Path) -> None:
    _tree(tmp_path)
    skipped: list[SkippedFile] = []
    got = [
        (str(p.relative_to(tmp_path)), k) for p, k in iter_files([str(tmp_path)], skipped.append)
    ]
    assert got == [
        ("A.env", "dotenv"),
        ("b.env", "dotenv"),
        ("link.env", "dotenv"),
        ("script", "shell"),
        ("a/.env", "dotenv"),
        ("a/z.sh", "shell"),
        ("a/sub/.env.local", "dotenv"),
    ]
    assert skipped == []


def test_a_symlink_loop_in_a_file_name_is_reported_not_followed(tmp_path: Path) -> None:
    os.symlink("self.env", tmp_path / "self.env")
    (tmp_path / "ok.env").write_text("TORCH_LOGS=dynamo\n")
    skipped: list[SkippedFile] = []
    got = [p.name for p, _ in iter_files([str(tmp_path)], skipped.append)]
    assert got == ["ok.env"]
    # a note, not a read failure: a broken link in the tree must not fail a CI run (exit 2)
    assert [(Path(s.path).name, s.error is not None) for s in skipped] == [("self.env", False)]
    assert "broken symbolic link" in skipped[0].reason


def test_a_dangling_link_is_a_note_and_a_missing_named_path_does_not_stop_the_rest(
    tmp_path: Path,
) -> None:
    os.symlink("/nonexistent/x.env", tmp_path / "dangling.env")
    (tmp_path / "ok.env").write_text("TORCH_LOGS=dynamo\n")
    skipped: list[SkippedFile] = []
    missing = str(tmp_path / "gone.env")
    got = [p.name for p, _ in iter_files([missing, str(tmp_path)], skipped.append)]
    assert got == ["ok.env"]
    reported = {Path(s.path).name: s.error is not None for s in skipped}
    assert reported == {"gone.env": True, "dangling.env": False}  # only the named one fails


def test_a_path_given_twice_is_checked_once(tmp_path: Path) -> None:
    (tmp_path / "a.env").write_text("TORCH_LOGS=dynamo\n")
    a = str(tmp_path / "a.env")
    got = list(iter_files([a, a, str(tmp_path), os.path.join(str(tmp_path), ".", "a.env")]))
    assert [p.name for p, _ in got] == ["a.env"]


def _special_tree(root: Path) -> list[str]:
    """A FIFO named .env, one with no kind by name, a device linked as a .env; returns
    the paths that must never be opened."""
    os.mkfifo(root / ".env")
    os.mkfifo(root / "pipe")
    os.symlink("/dev/null", root / "kmsg.env")
    (root / "ok.env").write_text("TORCH_LOGS=dynamo\n")
    return [str(root / ".env"), str(root / "pipe"), str(root / "kmsg.env")]


def test_fifos_and_devices_found_by_walking_are_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    never = _special_tree(tmp_path)
    opened: list[str] = []
    real_open = os.open

    def recording_open(path: str | os.PathLike[str], *args: object, **kwargs: object) -> int:
        opened.append(os.fspath(path))  # type: ignore[arg-type]
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", recording_open)
    code = main(["check", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 0
    assert [p for p in opened if p in never] == []
    assert f"{tmp_path / '.env'}: skipped (a FIFO, not a regular file)" in err
    assert f"{tmp_path / 'kmsg.env'}: skipped (a character device, not a regular file)" in err
    assert "pipe" not in err
    assert "1 file(s) checked" in err


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_strace_sees_no_open_of_a_fifo(tmp_path: Path) -> None:
    never = _special_tree(tmp_path)
    trace = tmp_path / "trace.txt"
    proc = subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=open,openat,openat2",
            "-o",
            str(trace),
            sys.executable,
            "-m",
            "torch_logs_lsp.cli.main",
            "check",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0 and "ptrace" in proc.stderr:
        pytest.skip(f"strace cannot trace here: {proc.stderr[:200]}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    calls = trace.read_text()
    assert str(tmp_path / "ok.env") in calls  # the trace does see our opens
    for path in never:
        assert f'"{path}"' not in calls


# --- ignore files, hidden directories, paths named explicitly ---------------------------
# Sources: gitignore(5) (https://git-scm.com/docs/gitignore) for .gitignore and
# .git/info/exclude; ripgrep's GUIDE.md, "Automatic filtering" (.ignore files, with
# precedence over .gitignore; hidden directories skipped; --no-ignore); ruff's
# "respect-gitignore" and "force-exclude" settings (a file passed directly is checked even
# when excluded). Differential test against git itself: tests/project/test_walk_gitignore.py.


def _files(root: Path, rels: list[str]) -> None:
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("TORCH_LOGS=dynamo\n")


def _walked(*paths: str | Path, ignore: bool = True, base: Path) -> list[str]:
    skipped: list[SkippedFile] = []
    got = [
        str(p.relative_to(base))
        for p, _ in iter_files([str(p) for p in paths], skipped.append, ignore=ignore)
    ]
    assert skipped == []
    return got


def test_gitignore_rules_nested_negated_anchored_directory_only(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _files(
        tmp_path,
        [
            "a.env",
            "gen.env",
            "keep.env",
            "logs/x.env",
            "src/logs",  # a FILE named logs: "logs/" is for directories only
            "src/gen.env",  # "/gen.env" is anchored to the top
            "src/local.env",
            "src/deep/local.env",
            "other/local.env",  # src/.gitignore applies under src/ only
        ],
    )
    (tmp_path / "src" / "logs").write_text("#!/bin/sh\nexport TORCH_LOGS=dynamo\n")
    (tmp_path / ".gitignore").write_text("*.env\n!a.env\n!other/\n!*/local.env\n/gen.env\nlogs/\n")
    (tmp_path / "src" / ".gitignore").write_text("local.env\n!/gen.env\n")
    # top: *.env ignored but a.env; gen.env ignored; keep.env ignored; logs/ not entered;
    # src/gen.env re-included by src/.gitignore; src/local.env ignored by src/.gitignore
    # (the deeper file decides), src/deep/local.env too ("local.env" matches at any depth)
    got = _walked(tmp_path, base=tmp_path)
    assert got == ["a.env", "other/local.env", "src/gen.env", "src/logs"]
    assert _walked(tmp_path, ignore=False, base=tmp_path) == [
        "a.env",
        "gen.env",
        "keep.env",
        "logs/x.env",
        "other/local.env",
        "src/gen.env",
        "src/local.env",
        "src/logs",
        "src/deep/local.env",
    ]


def test_dot_ignore_overrides_gitignore_and_info_exclude_applies(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret.env\n")
    _files(tmp_path, ["secret.env", "a.env", "b.env", "sub/b.env"])
    (tmp_path / ".gitignore").write_text("b.env\n")
    (tmp_path / "sub" / ".ignore").write_text("!b.env\n")  # ripgrep: .ignore wins
    (tmp_path / ".ignore").write_text("a.env\n")
    assert _walked(tmp_path, base=tmp_path) == ["sub/b.env"]


def test_a_directory_inside_a_repository_gets_the_rules_from_above(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("src/gen/\n*.local.env\n")
    _files(tmp_path, ["src/a.env", "src/gen/b.env", "src/c.local.env"])
    assert _walked(tmp_path / "src", base=tmp_path) == ["src/a.env"]
    assert _walked(str(tmp_path / "src") + "/", base=tmp_path) == ["src/a.env"]


def test_a_nested_repository_does_not_inherit_the_outer_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.env\n")
    (tmp_path / "vendor" / "lib" / ".git").mkdir(parents=True)
    _files(tmp_path, ["a.env", "vendor/b.env", "vendor/lib/c.env"])
    assert _walked(tmp_path, base=tmp_path) == ["vendor/lib/c.env"]


def test_outside_a_repository_gitignore_files_still_apply(tmp_path: Path) -> None:
    _files(tmp_path, ["a.env", "b.env"])
    (tmp_path / ".gitignore").write_text("a.env\n")
    assert _walked(tmp_path, base=tmp_path) == ["b.env"]


def test_paths_named_explicitly_are_checked_even_when_ignored_or_hidden(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored.env\ngen/\n")
    _files(tmp_path, ["ignored.env", "gen/a.env", ".hidden/b.env", "node_modules/c.env"])
    assert _walked(tmp_path, base=tmp_path) == []
    named = [tmp_path / "ignored.env", tmp_path / "gen", tmp_path / ".hidden"]
    named.append(tmp_path / "node_modules")
    assert _walked(*named, base=tmp_path) == [
        "ignored.env",
        "gen/a.env",
        ".hidden/b.env",
        "node_modules/c.env",
    ]


def test_hidden_directories_are_skipped_but_the_hosts_own(tmp_path: Path) -> None:
    _files(
        tmp_path,
        [
            ".cache/a.env",
            ".hidden/deep/b.sh",
            ".env",  # a hidden FILE is checked
            ".vscode/launch.json",
            ".devcontainer/devcontainer.json",
            ".github/workflows/ci.yml",
        ],
    )
    assert _walked(tmp_path, base=tmp_path) == [
        ".env",
        ".devcontainer/devcontainer.json",
        ".github/workflows/ci.yml",
        ".vscode/launch.json",
    ]


def test_a_symlink_loop_through_parent_directories_ends(tmp_path: Path) -> None:
    _files(tmp_path, ["a/b/x.env"])
    os.symlink("../..", tmp_path / "a" / "b" / "up")  # a/b/up/a/b/up/... never entered
    os.symlink(str(tmp_path / "a"), tmp_path / "a" / "b" / "abs")
    assert _walked(tmp_path, base=tmp_path) == ["a/b/x.env"]


def test_files_no_host_claims_and_ignored_files_but_env_files_are_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("secret.env\nscripts/gen\n")
    _files(tmp_path, ["notes.txt", "data.csv", "secret.env", "ok.env", "model.bin"])
    _files(tmp_path, ["scripts/gen", "scripts/run"])  # extensionless: sniffed unless ignored
    opened: list[str] = []
    real_open = os.open

    def recording_open(path: str | os.PathLike[str], *args: object, **kwargs: object) -> int:
        rel = os.path.relpath(os.fspath(path), tmp_path)  # type: ignore[arg-type]
        if not rel.startswith(".."):  # the tree's files (not /dev/null of a subprocess)
            opened.append(rel)
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", recording_open)
    assert main(["check", str(tmp_path)]) == 0
    assert "1 file(s) checked" in capsys.readouterr().err
    # ok.env read once; scripts/run's first bytes read (no shebang: not a script); the
    # ignored secret.env read only to tell whether the note on ignored .env files names it
    # (it sets no family variable: not named); scripts/gen, ignored, never opened; git's
    # index looked for (tracked files are never ignored; here there is none)
    assert sorted(opened) == [".git/index", ".gitignore", "ok.env", "scripts/run", "secret.env"]
    opened.clear()
    assert main(["check", "--no-ignore", str(tmp_path)]) == 0
    assert "2 file(s) checked" in capsys.readouterr().err
    assert sorted(opened) == ["ok.env", "scripts/gen", "scripts/run", "secret.env"]


# --- the fast path of check over a tree: may_find -----------------------------------------

PIECES = ["TORCH_LOGS", "torch_log", "TORCH", "_LOGS", "TORCH_TRACE", "torch-logs: torch=2.1"]
PIECES += ["set_logs", "torch._logging.set_logs(dynamo=10)", "=", '"', "'", "\n", " ", "export "]
PIECES += ["os.environ[", "]", "+dynamo", "TORCH_COMPILE_DEBUG", "TorchLogs", "ſ", "#", "env:"]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_a_document_may_find_rejects_has_no_finding(text: str) -> None:
    """``may_find`` is a shortcut: where it says no, every host finds nothing."""
    if may_find(text.encode("utf-8")):
        return
    for host in hosts.HOST_KINDS:
        assert findings(text, host) == [], (host, text)


def test_may_find_keeps_every_example_with_findings() -> None:
    examples = EXAMPLES
    seen = 0
    for path in sorted(examples.rglob("*")):
        host = hosts.detect_host(str(path), "")
        if not path.is_file() or host is None:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if findings(text, host):
            seen += 1
            assert may_find(path.read_bytes()), path
    assert seen >= 5


def test_a_worktree_git_file_leads_to_the_common_info_exclude(tmp_path: Path) -> None:
    """A linked worktree's ``.git`` is a file ``gitdir: ...``; its ``commondir`` names the
    repository whose ``info/exclude`` applies (gitrepository-layout(5))."""
    common = tmp_path / "main.git"
    (common / "info").mkdir(parents=True)
    (common / "info" / "exclude").write_text("local.env\n")
    gitdir = common / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {gitdir}\n")
    _files(tree, ["local.env", "a.env"])
    assert _walked(tree, base=tree) == ["a.env"]
