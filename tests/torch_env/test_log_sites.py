"""The places in torch's source that log a name (``torch_env/log_sites.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torch_logs_lsp.torch_env.locations import Site
from torch_logs_lsp.torch_env.log_sites import (
    MAX_SOURCE_BYTES,
    LogSiteCache,
    LogSites,
    scan,
    scan_in_child,
    scan_source,
)

SOURCE = """\
import logging
import torch
log = logging.getLogger(__name__)
other = logging.getLogger("torch._dynamo")
guards_log = torch._logging.getArtifactLogger(__name__, "guards")
twice = torch._logging.getArtifactLogger(__name__, "a")
twice = logging.getLogger(__name__)
ok = getArtifactLogger(
    __name__, "b"
)


def f():
    guards_log.debug("x %s", 1)  # é🙂
    guards_log.isEnabledFor(10)
    twice.info("not an artifact's: reassigned")
    if torch._logging._internal.log_state.is_artifact_enabled("é🙂c"):
        ok.warning(
            "y"
        )
    logging.getLogger(compute())
    "getLogger(__name__) in a string"
"""


def _rows(found: list[tuple[str, object]], text: str) -> list[tuple[str, int, str]]:
    lines = text.split("\n")
    out = []
    for name, site in found:
        assert site.line == site.end_line  # type: ignore[attr-defined]
        row = lines[site.line]  # type: ignore[attr-defined]
        out.append((name, site.line, row[site.column : site.end_column]))  # type: ignore[attr-defined]
    return out


def test_scan_source_finds_each_kind_of_site() -> None:
    artifacts, loggers = scan_source(SOURCE, "torch.x", "/t/x.py")
    assert _rows(artifacts, SOURCE) == [
        ("guards", 4, '"guards"'),
        ("a", 5, '"a"'),
        ("b", 8, '"b"'),
        ("guards", 13, "guards_log.debug"),
        ("é🙂c", 16, '"é🙂c"'),
        ("b", 17, "ok.warning"),
    ]
    assert _rows(loggers, SOURCE) == [
        ("torch.x", 2, "logging.getLogger(__name__)"),
        ("torch._dynamo", 3, 'logging.getLogger("torch._dynamo")'),
        ("torch.x", 6, "logging.getLogger(__name__)"),
    ]
    (_, site) = next(x for x in artifacts if x[0] == "é🙂c")
    assert site.line_text and site.line_text.strip().startswith("if torch._logging")


def test_scan_walks_a_package_and_skips_what_it_cannot_read(tmp_path: Path) -> None:
    torch = tmp_path / "torch"
    (torch / "_dynamo").mkdir(parents=True)
    (torch / "__init__.py").write_text("import logging\nlog = logging.getLogger(__name__)\n")
    (torch / "_dynamo" / "__init__.py").write_text(SOURCE)
    (torch / "_dynamo" / "broken.py").write_text("getLogger(\n")
    (torch / "_dynamo" / "latin.py").write_bytes(b"# \xe9 getLogger\n")
    (torch / "_dynamo" / "plain.py").write_text("x = 1\n")
    found = scan(str(torch))
    assert (found.files, found.parsed) == (5, 2)
    assert sorted(s.rsplit("/", 1)[-1] for s in found.skipped) == [
        "broken.py: SyntaxError",
        "latin.py: UnicodeDecodeError",
    ]
    assert sorted(found.loggers) == ["torch", "torch._dynamo"]
    covered = found.covered(["torch._dynamo", "torch"])
    assert [name for name, _ in covered] == ["torch._dynamo"] * 3 + ["torch"]


def test_covered_orders_by_qname_then_package_before_modules() -> None:
    def site(n: int) -> Site:
        return Site(f"/{n}.py", n, 0, n, 1)

    sites = LogSites("/t")
    for n, name in enumerate(["a.b.c", "a.b", "a.bb", "z", "a"]):
        sites.loggers[name] = [site(n)]
    assert [name for name, _ in sites.covered(["a.b", "z", "a"])] == [
        "a.b",
        "a.b.c",
        "z",
        "a",
        "a.bb",
    ]


def test_the_cache_scans_once_per_installation_and_again_after_a_change(tmp_path: Path) -> None:
    torch = tmp_path / "torch"
    torch.mkdir()
    (torch / "version.py").write_text("__version__ = '2.13.0'\n")
    calls: list[str] = []

    def scanner(torch_dir: str) -> LogSites:
        calls.append(torch_dir)
        return LogSites(torch_dir)

    cache = LogSiteCache(scanner)
    first = cache.get(str(torch)).result(timeout=30)
    assert cache.get(str(torch)).result(timeout=30) is first
    (torch / "version.py").write_text("__version__ = '2.14.0'\n")
    assert cache.get(str(torch)).result(timeout=30) is not first
    assert len(calls) == 2


def test_a_failed_scan_is_tried_again(tmp_path: Path) -> None:
    attempts: list[int] = []

    def scanner(torch_dir: str) -> LogSites:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("no answer")
        return LogSites(torch_dir)

    cache = LogSiteCache(scanner)
    failed = cache.get(str(tmp_path))
    assert isinstance(failed.exception(timeout=30), RuntimeError)
    assert cache.get(str(tmp_path)).result(timeout=30).torch_dir == str(tmp_path)


def test_the_child_process_answers_what_scan_finds(tmp_path: Path) -> None:
    torch = tmp_path / "torch"
    (torch / "_dynamo").mkdir(parents=True)
    (torch / "_dynamo" / "__init__.py").write_text(SOURCE, encoding="utf-8")
    (torch / "fx.py").write_text("import logging\nlog = logging.getLogger(__name__)\n")
    child, here = scan_in_child(str(torch)), scan(str(torch))
    child.seconds = here.seconds
    assert child == here
    assert [s.line_text for s in child.artifacts["é🙂c"]] == [
        s.line_text for s in here.artifacts["é🙂c"]
    ]


def test_what_cannot_be_read_is_skipped_with_the_reason(tmp_path: Path) -> None:
    torch = tmp_path / "torch"
    torch.mkdir()
    os.mkfifo(torch / "fifo.py")  # never opened for reading: it would block
    (torch / "big.py").write_bytes(b"# getLogger\n" + b"x = 1\n" * (MAX_SOURCE_BYTES // 6))
    (torch / "deep.py").write_text("getLogger(" + "(" * 5000 + ")" * 5000 + ")\n")
    found = scan_in_child(str(torch))
    reasons = sorted(s.rsplit("/", 1)[-1] for s in found.skipped)
    assert reasons[0].startswith("big.py: larger than")
    assert reasons[1].startswith("deep.py: ")  # too deep for the parser
    assert reasons[2].startswith("fifo.py: ")
    assert found.loggers == {} and found.artifacts == {}


def test_a_child_that_cannot_start_is_an_error_with_its_reason(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="cannot start"):
        scan_in_child(str(tmp_path / "torch\0"))
    assert scan_in_child(str(tmp_path / "missing")).files == 0
