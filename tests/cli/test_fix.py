"""``torch-logs check --fix`` on a temporary tree: exact bytes before and after."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.paths import EXAMPLES

# file -> (bytes before, bytes after): everything outside the value is kept byte for byte
FILES: dict[str, tuple[bytes, bytes]] = {
    ".env": (
        b'\xef\xbb\xbf# caf\xc3\xa9 \xf0\x9f\x99\x82\r\nTORCH_LOGS=" +dynamo ,guards"\r\n'
        b"OTHER=1\r\nTORCH_LOGS=aot_g\r\n",
        b'\xef\xbb\xbf# caf\xc3\xa9 \xf0\x9f\x99\x82\r\nTORCH_LOGS="+dynamo,guards"\r\n'
        b"OTHER=1\r\nTORCH_LOGS=aot_g\r\n",
    ),
    "scripts/run.sh": (
        b"#!/bin/bash\nexport TORCH_LOGS=\"+dynamo,\"'Guards'\nTORCH_LOGS=-output_code x\n",
        b"#!/bin/bash\nexport TORCH_LOGS=\"+dynamo,\"'guards'\nTORCH_LOGS=output_code x\n",
    ),
    ".vscode/launch.json": (
        b'{\r\n  // \xc3\xa9\r\n  "configurations": [{"env": {\r\n'
        b'"TORCH_LOGS": "\\"\\u002bdynamo\\""}}]\r\n}',
        b'{\r\n  // \xc3\xa9\r\n  "configurations": [{"env": {\r\n'
        b'"TORCH_LOGS": "\\u002bdynamo"}}]\r\n}',
    ),
    "clean.env": (b"TORCH_LOGS=+dynamo\n", b"TORCH_LOGS=+dynamo\n"),
    # $'a\\' ends after the escaped backslash; the next ' opens a string that runs into
    # line 3, which is then no assignment: nothing to fix (tree-sitter-bash read line 3 as
    # one, and --fix edited inside A's string: a syntax error)
    "ansi_c.sh": (
        b"#!/bin/bash\nA=$'a\\\\'' # c\nexport TORCH_LOGS=Dynamo\\'\necho \"$A\"\n",
        b"#!/bin/bash\nA=$'a\\\\'' # c\nexport TORCH_LOGS=Dynamo\\'\necho \"$A\"\n",
    ),
    "empty.env": (b"TORCH_LOGS=\n", b"TORCH_LOGS=\n"),  # TL001: offered, never automatic
    # undecodable bytes: never rewritten, even though the value could be fixed
    "latin1.env": (b"# caf\xe9\nTORCH_LOGS=dynamo,\n", b"# caf\xe9\nTORCH_LOGS=dynamo,\n"),
}


def _tree(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(FILES[name][0])


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_fix_changes_only_the_values(tmp_path: Path) -> None:
    _tree(tmp_path, list(FILES))
    proc = run("check", "--fix", str(tmp_path))
    for name, (_, after) in FILES.items():
        assert (tmp_path / name).read_bytes() == after, name
    out = proc.stdout.replace(str(tmp_path) + "/", "")
    assert '.env:2: fixed TORCH_LOGS: " +dynamo ,guards" -> "+dynamo,guards"' in out
    assert '.vscode/launch.json:4: fixed TORCH_LOGS: "\\"+dynamo\\"" -> "+dynamo"' in out
    assert 'scripts/run.sh:2: fixed TORCH_LOGS: "+dynamo,Guards" -> "+dynamo,guards"' in out
    assert 'scripts/run.sh:3: fixed TORCH_LOGS: "-output_code" -> "output_code"' in out
    assert "latin1.env: not valid UTF-8; not fixed" in proc.stderr
    assert "4 value(s) fixed" in proc.stderr
    # what is left is reported as by `check`, and decides the exit code
    assert ".env:4:12: TL201 unknown name `aot_g`" in out
    assert "latin1.env:2:18: TL104" in out
    assert proc.returncode == 1
    # a second run has nothing to fix
    again = run("check", "--fix", str(tmp_path))
    assert "fixed TORCH_LOGS" not in again.stdout and "0 value(s) fixed" in again.stderr


def test_fix_exit_code_is_zero_when_everything_was_fixed(tmp_path: Path) -> None:
    _tree(tmp_path, ["scripts/run.sh", ".vscode/launch.json", "clean.env"])
    proc = run("check", "--fix", "--format", "json", str(tmp_path))
    assert proc.returncode == 0, proc.stdout
    # the change lines go to stderr with --format json; only information hints are left
    # (TL411: output_code without TORCH_LOGS_OUT)
    assert {r["code"] for r in json.loads(proc.stdout)} <= {"TL411"}
    assert "fixed TORCH_LOGS" in proc.stderr


def test_fix_on_the_examples(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    before = {p: p.read_bytes() for p in (tmp_path / "examples").rglob("*") if p.is_file()}
    proc = run("check", "--fix", str(tmp_path / "examples"))
    assert "fixed TORCH_LOGS" in proc.stdout
    remaining = run("check", str(tmp_path / "examples"))
    assert remaining.stdout.count(": TL") < run("check", str(EXAMPLES)).stdout.count(": TL")
    for path, data in before.items():
        new = path.read_bytes()
        if new != data:  # same line count and line endings: only values changed
            assert new.count(b"\n") == data.count(b"\n") and new.count(b"\r") == data.count(b"\r")


def test_fix_refuses_a_read_only_file(tmp_path: Path) -> None:
    """A 0444 file is not rewritten (root passes ``access()``, so the mode bits decide;
    the rename of a new file over it would otherwise succeed)."""
    ro = tmp_path / "ro.env"
    ro.write_bytes(b"TORCH_LOGS=dynamo,\n")
    ro.chmod(0o444)
    ok = tmp_path / "rw.env"
    ok.write_bytes(b"TORCH_LOGS=dynamo,\n")
    proc = run("check", "--fix", str(tmp_path))
    assert f"{ro}: read-only; not fixed" in proc.stderr
    assert ro.read_bytes() == b"TORCH_LOGS=dynamo,\n"
    assert oct(ro.stat().st_mode & 0o777) == oct(0o444)
    assert ok.read_bytes() == b"TORCH_LOGS=dynamo\n"
    assert "1 value(s) fixed" in proc.stderr
    assert proc.returncode == 1  # the read-only file's error is still reported
    assert f"{ro}:1:18: TL104" in proc.stdout


def test_read_only_by_mode_bits() -> None:
    import os

    from torch_logs_lsp.lint.fixer import read_only

    me, group = os.geteuid(), os.getegid()
    assert read_only(0o100444, me, group)
    assert not read_only(0o100644, me, group)
    if me == 0:  # root: any write bit
        assert not read_only(0o100420, 12345, 12345)
    else:
        assert read_only(0o100464, me, group)  # the owner's bit decides for the owner
        assert read_only(0o100644, me + 1, group + 1 if group + 1 not in os.getgroups() else -5)


def test_fix_leaves_env_source_files_alone(tmp_path: Path) -> None:
    """``.env.py`` / ``.env.d.ts`` are code, not .env files: never read as .env, never
    rewritten (``.env.py`` is checked as the Python module it is: a plain variable there
    sets no environment)."""
    files = {
        ".env.py": b'import os\nTORCH_LOGS = "Dynamo"\n',
        ".env.d.ts": b"declare const TORCH_LOGS=Dynamo;\n",
        ".env.local": b"TORCH_LOGS=dynamo,\n",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    proc = run("check", "--fix", str(tmp_path))
    assert (tmp_path / ".env.py").read_bytes() == files[".env.py"]
    assert (tmp_path / ".env.d.ts").read_bytes() == files[".env.d.ts"]
    assert (tmp_path / ".env.local").read_bytes() == b"TORCH_LOGS=dynamo\n"
    assert "2 file(s) checked" in proc.stderr


def test_fix_reports_every_quote_fix_when_lengths_change(tmp_path: Path) -> None:
    # YAML keeps no quotes it does not need: each TL109 fix removes two code points, so
    # the second value has moved when the first is fixed (it was fixed but not reported).
    path = tmp_path / "r.yaml"
    path.write_text(
        "a:\n  env:\n    TORCH_LOGS: “dynamo”\nb:\n  env:\n    TORCH_LOGS: “guards”\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    fixed = [line for line in proc.stdout.splitlines() if ": fixed " in line]
    assert [line.split(": fixed ")[0].rsplit(":", 1)[1] for line in fixed] == ["3", "6"]
    assert path.read_text(encoding="utf-8").endswith(
        "TORCH_LOGS: dynamo\nb:\n  env:\n    TORCH_LOGS: guards\n"
    )


def test_fix_never_writes_outside_the_checked_paths(tmp_path: Path) -> None:
    """A symlink in the checked tree to a file elsewhere: reported, not fixed."""
    outside = tmp_path / "outside"
    tree = tmp_path / "tree"
    outside.mkdir()
    tree.mkdir()
    bad = "TORCH_LOGS=+dynamo ,guards\n"
    (outside / "real.env").write_text(bad)
    (tree / "link.env").symlink_to(outside / "real.env")
    (tree / "own.env").write_text(bad)
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", str(tree)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert (outside / "real.env").read_text() == bad  # untouched
    assert (tree / "own.env").read_text() == "TORCH_LOGS=+dynamo,guards\n"
    assert (
        f"{tree / 'link.env'}: a symbolic link to a file outside the checked paths" in proc.stderr
    )
    # named on the command line, the link's file is the one meant
    subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", str(tree / "link.env")],
        capture_output=True,
        cwd=tmp_path,
        check=False,
    )
    assert (outside / "real.env").read_text() == "TORCH_LOGS=+dynamo,guards\n"


def test_fix_reports_quote_an_excerpt_of_a_long_value(tmp_path: Path) -> None:
    """The line saying what was fixed quotes at most ``MAX_QUOTED`` code points of the
    old and the new value, however long they are."""
    from torch_logs_lsp.model.limits import MAX_QUOTED

    (tmp_path / ".env").write_text("TORCH_LOGS=+dynamo," + "guards," * 2000 + "dynamo\n")
    done = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", "--fix", "."],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    (line,) = [x for x in done.stdout.splitlines() if ": fixed TORCH_LOGS: " in x]
    old, new = line.split(": fixed TORCH_LOGS: ")[1].split(" -> ")
    assert json.loads(new) == "+dynamo,guards,dynamo"
    assert len(json.loads(old)) == MAX_QUOTED
    assert json.loads(old).startswith("+dynamo,guards,") and json.loads(old).endswith(",dynamo")
    assert (tmp_path / ".env").read_text() == "TORCH_LOGS=+dynamo,guards,dynamo\n"
