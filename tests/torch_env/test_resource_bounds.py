"""Small hostile inputs that made the checker use unbounded memory, time or stack
(adversarial CLI findings F-registrations-doubling-oom, F-registrations-memory,
F-python-output-memory).

Every run that could blow up is a subprocess with a timeout and an address-space limit
(``RLIMIT_AS``), so the old code fails the test in bounded time instead of filling the
machine's memory.
"""

from __future__ import annotations

import importlib.util
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.hostile import fake_torch_env, installed_registrations
from torch_logs_lsp import files
from torch_logs_lsp.set_logs.keywords import read_set_logs
from torch_logs_lsp.torch_env import environment
from torch_logs_lsp.torch_env import reader as torch_reader
from torch_logs_lsp.torch_env.environment import read_pth
from torch_logs_lsp.torch_env.reader import read_registrations, read_version


def installed_torch_dir() -> str:
    """The installed torch package directory (located, not imported)."""
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    return str(Path(spec.origin).parent)


MEMORY_LIMIT = 1 << 30  # 1 GiB: the fixed code needs ~100 MB


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def limited(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python *args`` with a 1 GiB address space and a ``timeout`` (seconds)."""
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limit_memory,
        check=False,
    )


def doubling(n: int, first: str = "a", step: str = "[*{0}, *{0}]") -> str:
    """A ``_registrations.py`` of ``n + 1`` lines whose last list has 2**(n-1) strings:
    ``X0 = [first]``, then ``X1 = step`` of ``X0`` (``[*X0, *X0]``), ..."""
    lines = [f"X0 = [{first!r}]\n"]
    lines += [f"X{i} = " + step.format(f"X{i - 1}") + "\n" for i in range(1, n)]
    return "".join(lines) + f'register_log("dynamo", X{n - 1})\n'


READ = (
    "import sys; from torch_logs_lsp.torch_env.reader import read_registrations; "
    "print('|'.join(read_registrations(open(sys.argv[1]).read()).problems))"
)


@pytest.mark.parametrize(
    "source",
    [
        doubling(40),  # old code: OOM-killed at 13.5 GB
        doubling(40, step="{0} + {0}"),
        doubling(40, first="a" * 1000, step="{0} + {0}"),
    ],
    ids=["starred", "plus", "plus_long_strings"],
)
def test_doubling_lists_stop_at_the_budget(tmp_path: Path, source: str):
    (tmp_path / "r.py").write_text(source, encoding="utf-8")
    proc = limited("-c", READ, str(tmp_path / "r.py"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "string lists too large" in proc.stdout
    assert "not read further" in proc.stdout


def test_long_strings_stop_at_the_character_budget():
    """200 copies of a 10,000-character string: 2 MB > the 1 MB character budget."""
    source = 'X = ["' + "a" * 10_000 + '"]\n' + "Y = [" + "*X, " * 200 + "]\n"
    result = read_registrations(source)
    assert result.problems == [
        "line 2: string lists too large (more than 1,000,000 characters); not read further"
    ]


@pytest.mark.parametrize(
    "source",
    [
        'X = ["torch.a"] * 1000000000\nregister_log("x", X)\n',
        'register_log("x", "torch.a" * 1000000000)\n',
        'register_log("x", ["torch.a" * 1000000000])\n',
        "register_artifact('a' * 1000000000, 'd')\n",
    ],
)
def test_repetition_is_never_evaluated(tmp_path: Path, source: str):
    (tmp_path / "r.py").write_text(source, encoding="utf-8")
    proc = limited("-c", READ, str(tmp_path / "r.py"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "arguments not literal" in proc.stdout


def test_real_registrations_need_a_small_part_of_the_budget(monkeypatch: pytest.MonkeyPatch):
    """torch 2.13.0's file needs 54 strings and 1,502 characters: it reads without a
    problem within 1/100 of each budget."""
    small = torch_reader._Budget

    def budget() -> torch_reader._Budget:
        return small(torch_reader.MAX_ELEMENTS // 100, torch_reader.MAX_CHARS // 100)

    monkeypatch.setattr(torch_reader, "_Budget", budget)
    result = read_registrations(installed_registrations())
    assert result.problems == [] and len(result.logs) > 10


def test_cli_falls_back_on_a_doubling_file(tmp_path: Path):
    python, registrations = fake_torch_env(tmp_path)
    registrations.write_text(doubling(40), encoding="utf-8")
    proc = limited(
        "-m", "torch_logs_lsp.cli.main", "explain", "--python", python, "dynamo", timeout=120
    )
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    assert "string lists too large (more than 100,000 strings)" in proc.stderr
    assert "using the packaged registry of torch 2.4" in proc.stderr


def test_a_registrations_file_over_its_cap_is_not_parsed(tmp_path: Path):
    """4 MiB of ``a`` lines: the old code parsed it (3.8 GB, 17 s; over 1 GiB it failed
    with MemoryError); now it is refused unread, the reason naming the cap."""
    python, registrations = fake_torch_env(tmp_path)
    registrations.write_text("a\n" * 2_090_000, encoding="utf-8")
    proc = limited("-m", "torch_logs_lsp.cli.main", "explain", "--python", python, "dynamo")
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    assert "larger than 262144 bytes (4180000)" in proc.stderr
    assert "using the packaged registry of torch 2.4" in proc.stderr


def test_internal_and_version_over_their_caps(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    torch = tmp_path / "torch"
    (torch / "_logging").mkdir(parents=True)
    (torch / "_logging" / "_internal.py").write_text("a\n" * 150_000, encoding="utf-8")
    (torch / "version.py").write_text("__version__ = '2.13.0'\n" + "#" * 70_000)
    read = read_set_logs(str(torch))
    assert read.keywords == {} and "larger than 262144 bytes (300000)" in read.problems[0]
    assert read_version(str(torch)) is None
    assert "larger than 65536 bytes (70023)" in caplog.text


def test_caps_leave_a_wide_margin_over_the_installed_torch():
    torch = Path(installed_torch_dir())
    assert (torch / "version.py").stat().st_size * 100 < files.MAX_VERSION_BYTES
    registrations = torch / "_logging" / "_registrations.py"
    assert registrations.stat().st_size * 20 < files.MAX_REGISTRATIONS_BYTES
    internal = torch / "_logging" / "_internal.py"
    assert internal.stat().st_size * 4 < files.MAX_INTERNAL_BYTES
    assert read_set_logs(str(torch)).problems == []


def test_pth_files_keep_their_own_cap(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "big.pth").write_text("a\n" + "#" * (files.MAX_ENV_FILE_BYTES + 1))
    (tmp_path / "small.pth").write_text("a\n" + "#" * (files.MAX_ENV_FILE_BYTES // 2))
    paths, _ = read_pth(str(tmp_path))
    assert paths == [str(tmp_path / "a")]  # from small.pth (big.pth is skipped)
    assert files.MAX_ENV_FILE_BYTES == 1 << 20


def test_an_interpreter_writing_endlessly_is_cut_off(tmp_path: Path):
    """``--python`` naming a script that runs ``cat /dev/zero``: the old code collected its
    output for the whole 10 s timeout (7.2 GB); now 1 MiB is read and it is killed."""
    zeros = tmp_path / "zeros"
    zeros.write_text("#!/bin/sh\nexec cat /dev/zero\n")
    zeros.chmod(0o755)
    (tmp_path / "t.env").write_text("TORCH_LOGS=dynamo\n")
    start = time.monotonic()
    proc = limited(
        "-m", "torch_logs_lsp.cli.main", "check", "--python", str(zeros), str(tmp_path / "t.env")
    )
    assert time.monotonic() - start < 8  # not the 10 s timeout
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr
    assert f"cannot ask {zeros} for its search path: wrote more than 1048576 bytes" in (proc.stderr)


def test_an_interpreter_that_never_answers_is_killed_with_its_children(tmp_path: Path):
    """A child left in the background holds the pipe open: it is killed too (its process
    group), and the wait ends at the timeout."""
    marker = tmp_path / "still-running"
    script = f"(sleep 3; touch {marker}) & echo partial; exec sleep 100"
    start = time.monotonic()
    with pytest.raises(environment._AskFailed, match=r"no answer within 0\.5 s"):
        environment._run_capped(["sh", "-c", script], 0.5, 1000)
    assert time.monotonic() - start < 3
    time.sleep(3.5)
    assert not marker.exists()


def test_a_normal_answer_is_read_whole():
    out = environment._run_capped([sys.executable, "-c", "print('x' * 5000)"], 10, 1 << 20)
    assert out == b"x" * 5000 + b"\n"
    with pytest.raises(environment._AskFailed, match="wrote more than 4096 bytes"):
        environment._run_capped([sys.executable, "-c", "print('x' * 5000)"], 10, 4096)
