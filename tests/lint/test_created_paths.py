"""Paths a shell script creates, and paths that cannot be judged here:
TL402/TL403 through :func:`findings` with a workspace, bash as the oracle for what a
script's commands create, and the CLI on a folder.

Each case is (setup lines, value line): the checker reads both; the bash oracle runs the
setup lines (in the workspace) and checks that the directory the value needs exists
afterwards, so "not missing" is bash's fact, not ours.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from torch_logs_lsp.hosts import extract
from torch_logs_lsp.hosts.shell.paths import path_facts
from torch_logs_lsp.lint.pipeline import findings
from torch_logs_lsp.value.paths import Where, created, judged_path

BASH = shutil.which("bash")


def codes(text: str, ws: Path, roots: tuple[str, ...] | None = None) -> list[str]:
    got = findings(text, "shell", None, None, str(ws), (str(ws),) if roots is None else roots)
    return [f.diagnostic.code for f in got if f.diagnostic.code in ("TL402", "TL403", "TL406")]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "known").mkdir()
    return root


#: Commands that create the directory the value needs: (setup, value line, directory
#: relative to the workspace that bash must have created).
CREATED = [
    # mkdir -p three lines before the export
    (
        "mkdir -p {ws}/prof/dump\n\n\n",
        "export TORCH_LOGS_OUT={ws}/prof/dump/torch_logs.txt\n",
        "prof/dump",
    ),
    ("mkdir {ws}/logs\n", "export TORCH_LOGS_OUT={ws}/logs/t.txt\n", "logs"),
    ("mkdir -p {ws}/a {ws}/b {ws}/c\n", "export TORCH_LOGS_OUT={ws}/b/t.txt\n", "b"),
    ("mkdir --parents {ws}/p/q/r\n", "export TORCH_LOGS_OUT={ws}/p/t.txt\n", "p"),  # parent
    ("mkdir -m 700 -p -- {ws}/m/n\n", "TORCH_LOGS_OUT={ws}/m/n/t.txt python t.py\n", "m/n"),
    ("/bin/mkdir {ws}/v -pv\n", "export TORCH_LOGS_OUT={ws}/v/t.txt\n", "v"),  # permuted
    ("mkdir -p '{ws}/sp ace'\n", "export TORCH_LOGS_OUT='{ws}/sp ace/t.txt'\n", "sp ace"),
    ("install -d {ws}/i1 {ws}/i2\n", "export TORCH_LOGS_OUT={ws}/i2/t.txt\n", "i2"),
    ("install -d -m 755 {ws}/i3/deep\n", "export TORCH_LOGS_OUT={ws}/i3/t.txt\n", "i3"),
    ("install --directory {ws}/i4\n", "export TORCH_TRACE={ws}/i4/trace\n", "i4"),
    (
        "echo hi > {ws}/src.txt\ninstall -D {ws}/src.txt {ws}/dd/sub/copy.txt\n",
        "export TORCH_LOGS_OUT={ws}/dd/sub/t.txt\n",
        "dd/sub",
    ),
    # relative to where the script starts (the workspace), and after a certain cd
    ("mkdir -p logs/run1\n", "export TORCH_LOGS_OUT=logs/run1/t.txt\n", "logs/run1"),
    ("cd {ws}/known\nmkdir -p out\n", "export TORCH_LOGS_OUT=out/t.txt\n", "known/out"),
    ("cd ./known\nmkdir out2\n", "export TORCH_LOGS_OUT=out2/t.txt\n", "known/out2"),
    # a variable certain from its only assignment
    ('D={ws}/vd\nmkdir -p "$D"\n', "export TORCH_LOGS_OUT={ws}/vd/t.txt\n", "vd"),
    (
        "export OUT={ws}/vo\nmkdir -p ${{OUT}}/sub\n",
        "export TORCH_LOGS_OUT={ws}/vo/sub/t.txt\n",
        "vo/sub",
    ),
    # a command after the export and before the process: the variable stays in the shell
    ("export TORCH_LOGS_OUT={ws}/late/t.txt\n", "mkdir -p {ws}/late\n", "late"),
]


@pytest.mark.parametrize(("setup", "value", "made"), CREATED)
def test_created_directory_is_not_missing(ws: Path, setup: str, value: str, made: str):
    text = (setup + value).format(ws=ws)
    assert codes(text, ws) == [], text
    assert not (ws / made).exists()  # so it is the script that makes it


@pytest.mark.skipif(BASH is None, reason="bash is the oracle")
@pytest.mark.parametrize(("setup", "value", "made"), CREATED)
def test_bash_creates_the_directory(ws: Path, setup: str, value: str, made: str):
    """The oracle: bash, running the setup (and the value line when it is the mkdir),
    creates the directory the value needs."""
    script = setup.format(ws=ws)
    if value.startswith("mkdir"):
        script += value.format(ws=ws)
    subprocess.run([BASH, "-e", "-c", script], cwd=ws, check=True, capture_output=True)
    assert (ws / made).is_dir()


#: The same values without what creates the directory: TL402 stays (the control).
MISSING = [
    "export TORCH_LOGS_OUT={ws}/prof/dump/torch_logs.txt\n",
    "mkdir -p {ws}/other\nexport TORCH_LOGS_OUT={ws}/prof/t.txt\n",  # a sibling
    "echo mkdir -p {ws}/e\nexport TORCH_LOGS_OUT={ws}/e/t.txt\n",  # not a mkdir
    "TORCH_LOGS_OUT={ws}/after/t.txt python t.py\nmkdir -p {ws}/after\n",  # too late
    "install {ws}/src.txt {ws}/nodir/\nexport TORCH_LOGS_OUT={ws}/nodir/t.txt\n",  # a copy
    "export TORCH_LOGS_OUT=missing/t.txt\n",  # relative to where the script starts
    "cd {ws}/known\nexport TORCH_LOGS_OUT=missing/t.txt\n",  # a certain cd
    'D={ws}/vd\nmkdir -p "$D"\nexport TORCH_LOGS_OUT={ws}/other/t.txt\n',  # $D is certain
    "# mkdir -p {ws}/c\nexport TORCH_LOGS_OUT={ws}/c/t.txt\n",  # a comment
    "cat <<EOF\nmkdir -p {ws}/h\nEOF\nexport TORCH_LOGS_OUT={ws}/h/t.txt\n",  # a here-doc
]


@pytest.mark.parametrize("text", MISSING)
def test_missing_directory_is_still_reported(ws: Path, text: str):
    assert codes(text.format(ws=ws), ws) == ["TL402"]


def test_relative_message_names_the_cd_directory(ws: Path):
    text = f"cd {ws}/known\nexport TORCH_LOGS_OUT=missing/t.txt\n"
    (f,) = findings(text, "shell", None, None, str(ws), (str(ws),))
    assert f"{ws}/known/missing does not exist" in f.diagnostic.message


@pytest.mark.parametrize(
    "text",
    [
        'mkdir -p "$DIR"\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n',  # cannot be named
        "mkdir -p {ws}/{{a,b}}\nexport TORCH_LOGS_OUT={ws}/a/t.txt\n",  # brace expansion
        "source ./setup.sh\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n",
        "mkdir -p $(date +%F)\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n",
        "run() {{ TORCH_LOGS_OUT={ws}/f/t.txt python t.py; }}\nmkdir -p {ws}/f\nrun\n",
        "sudo mkdir -p {ws}/s\nexport TORCH_LOGS_OUT={ws}/s/t.txt\n",
        # $D not certain: two assignments, read, a default, a later assignment, a space
        'D={ws}/a\nD={ws}/b\nmkdir -p "$D"\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n',
        'D={ws}/a\nread D\nmkdir -p "$D"\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n',
        'D={ws}/a\nmkdir -p "${{D:-/tmp}}"\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n',
        'mkdir -p "$D"\nD={ws}/a\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n',
        'D="{ws}/a b"\nmkdir -p $D\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n',
        'if true; then D={ws}/a; fi\nmkdir -p "$D"\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n',
    ],
)
def test_uncertain_creation_gives_no_finding(ws: Path, text: str):
    assert codes(text.format(ws=ws), ws) == []


@pytest.mark.parametrize(
    "text",
    [
        "cd /\nexport TORCH_LOGS_OUT=nope/t.txt\n",  # outside the workspace
        'cd "$HOME"\nexport TORCH_LOGS_OUT=nope/t.txt\n',  # unknown
        "cd {ws}/known || exit 1\nexport TORCH_LOGS_OUT=nope/t.txt\n",  # may fail
        "cd known\nexport TORCH_LOGS_OUT=nope/t.txt\n",  # CDPATH may resolve it
        "export TORCH_LOGS_OUT=nope/t.txt\ncd {ws}/known\npython t.py\n",  # later cd
        "cd {ws}/notthere\nexport TORCH_LOGS_OUT=nope/t.txt\n",  # the cd fails here
        "pushd {ws}/known\npopd\nexport TORCH_LOGS_OUT=nope/t.txt\n",
        "cd {ws}\ncd known\nmkdir -p x\nexport TORCH_LOGS_OUT={ws}/x/t.txt\n",  # unknown mkdir
    ],
)
def test_relative_after_uncertain_cd_gives_no_finding(ws: Path, text: str):
    assert codes(text.format(ws=ws), ws) == []


@pytest.mark.parametrize(
    "header",
    [
        "#SBATCH --job-name=prof\n#SBATCH -N 1\n",
        "#PBS -l nodes=1\n",
        "#BSUB -n 4\n",
        "#$ -cwd\n",
        "#flux: -N 1\n",
    ],
)
def test_batch_script_runs_elsewhere(ws: Path, header: str):
    (ws / "f.txt").write_text("")
    body = f"export TORCH_LOGS_OUT={ws}/nope/t.txt\nexport TORCH_TRACE={ws}/f.txt\n"
    assert codes(body, ws) == ["TL402", "TL403"]  # the control: judged when run here
    assert codes("#!/bin/bash\n" + header + body, ws) == []


def test_absolute_path_outside_the_workspace(tmp_path: Path, ws: Path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "f.txt").write_text("")
    (ws / "f.txt").write_text("")
    assert codes("export TORCH_LOGS_OUT=/scratch/prof/dump/t.txt\n", ws) == []
    assert codes(f"export TORCH_LOGS_OUT={other}/nope/t.txt\n", ws) == []
    assert codes(f"export TORCH_TRACE={other}/f.txt\n", ws) == []
    assert codes(f"export TORCH_LOGS_OUT={other}\n", ws) == []  # TL406 neither
    assert codes(f"export TORCH_TRACE={ws}/f.txt\n", ws) == ["TL403"]
    assert codes(f"export TORCH_LOGS_OUT={ws}/../elsewhere/nope/t.txt\n", ws) == []
    # several roots: inside any one is judged
    assert codes(f"export TORCH_TRACE={other}/f.txt\n", ws, (str(ws), str(other))) == ["TL403"]


def test_other_hosts_keep_their_findings(ws: Path):
    text = f"TORCH_LOGS_OUT={ws}/nope/t.txt\n"
    got = findings(text, "dotenv", None, None, str(ws), (str(ws),))
    assert [f.diagnostic.code for f in got] == ["TL402"]
    got = findings(text, "dotenv", None, None, str(ws), ())  # no workspace: not judged
    assert got == []


def test_facts_and_parents():
    text = "mkdir -p /a/b\nexport TORCH_LOGS_OUT=/a/t.txt\n"
    (facts,) = path_facts(text, extract("shell", text))
    assert facts.created == ("/a/b",)
    where = Where("/", ("/",), facts)
    assert created("/a", where) and created("/a/b", where) and not created("/c", where)
    assert judged_path("/a/t.txt", where) == ("/a/t.txt", "")
    assert judged_path("x", Where(None, None, facts)) is None  # no base directory


def test_bad_input_never_crashes(ws: Path):
    for text in ["mkdir -p\nexport TORCH_LOGS_OUT=x\n", "cd\n(\nexport TORCH_TRACE=$'\\x'\n"]:
        findings(text, "shell", None, None, str(ws), (str(ws),))
    text = "install -D\ninstall -t\nmkdir -m\nexport TORCH_LOGS_OUT=x/y\n" + "mkdir a;" * 500
    assert codes(text, ws) == ["TL402"]  # mkdir a is not x/y


def test_cli_reports_no_tl402_for_the_created_directory(tmp_path: Path):
    (tmp_path / "run.sh").write_text(
        "#!/bin/bash\nmkdir -p prof/dump\n\n\nexport TORCH_LOGS_OUT=prof/dump/torch_logs.txt\n"
        "python t.py\n"
    )
    (tmp_path / "job.sh").write_text(
        "#!/bin/bash\n#SBATCH -N 1\nexport TORCH_LOGS_OUT=/scratch/prof/dump/t.txt\n"
    )
    (tmp_path / "miss.sh").write_text("#!/bin/bash\nexport TORCH_LOGS_OUT=gone/t.txt\n")
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.cli.main", "check", ".", "--torch", "2.13"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
    )
    lines = [line for line in proc.stdout.splitlines() if "TL402" in line]
    assert len(lines) == 1 and "miss.sh:2:" in lines[0], proc.stdout + proc.stderr


def test_a_host_declares_that_it_runs_elsewhere(monkeypatch: pytest.MonkeyPatch, ws: Path):
    """A future host (a Dockerfile, a CI workflow) only declares it: here the dotenv host
    made to, through the same capability the checker asks for (``PathFactsHost``)."""
    from torch_logs_lsp.hosts.dotenv import host as dotenv
    from torch_logs_lsp.hosts.interface import runs_elsewhere

    text = f"TORCH_LOGS_OUT={ws}/nope/t.txt\n"
    assert [f.diagnostic.code for f in findings(text, "dotenv", None, None, str(ws))] == ["TL402"]
    monkeypatch.setattr(dotenv, "path_facts", runs_elsewhere("a test host"), raising=False)
    assert findings(text, "dotenv", None, None, str(ws)) == []


@pytest.mark.parametrize(
    ("args", "dirs"),
    [
        (["-p", "a", "b"], ["a", "b"]),
        (["-m", "700", "a"], ["a"]),
        (["-m", None, "a"], ["a"]),  # a mode that is not static is still a mode
        (["-pm755", "a"], ["a"]),
        (["--mode=700", "--", "-p"], ["-p"]),  # after --, an operand
        (["--help"], None),
        (["-p", None], None),
    ],
)
def test_mkdir_arguments(args, dirs, tmp_path: Path):
    from torch_logs_lsp.hosts.shell.commands import mkdir_dirs

    assert mkdir_dirs(args) == dirs
    _oracle("mkdir", args, dirs, tmp_path)


@pytest.mark.parametrize(
    ("args", "dirs"),
    [
        (["-d", "a", "b"], ["a", "b"]),
        (["-dm", "755", "a"], ["a"]),
        (["-D", "src", "x/y/dest"], ["x/y"]),
        (["-D", "-t", "x/y", "src"], ["x/y"]),
        (["--target-directory=t", "-D", "src"], ["t"]),
        (["src", "dest"], []),  # a copy creates no directory
        (["-d", "--bogus", "a"], None),
    ],
)
def test_install_arguments(args, dirs, tmp_path: Path):
    from torch_logs_lsp.hosts.shell.commands import install_dirs

    assert install_dirs(args) == dirs
    _oracle("install", args, dirs, tmp_path)


def _oracle(command: str, args: list[str | None], dirs: list[str] | None, cwd: Path) -> None:
    """GNU coreutils as the oracle: the command, run (``None`` words as ``755``), creates
    the directories claimed."""
    if dirs is None or shutil.which(command) is None:
        return
    (cwd / "src").write_text("x")
    words = [w if w is not None else "755" for w in args]
    subprocess.run([command, *words], cwd=cwd, check=True, capture_output=True)
    assert all((cwd / d).is_dir() for d in dirs)
