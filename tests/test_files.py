"""core/files: regular files only, never blocking, never unbounded"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torch_logs_lsp.files import SkippedFile, read_head, read_regular, read_text


def test_regular_file_is_read(tmp_path: Path) -> None:
    f = tmp_path / "a.env"
    f.write_bytes(b"TORCH_LOGS=+dynamo\r\n")
    assert read_regular(f) == b"TORCH_LOGS=+dynamo\r\n"
    assert read_head(f, 5) == b"TORCH"


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / ".env.dev"
    os.mkfifo(fifo)  # no writer: a blocking open would hang this test forever
    with pytest.raises(SkippedFile, match="FIFO"):
        read_regular(fifo)
    with pytest.raises(SkippedFile, match="FIFO"):
        read_head(fifo)
    assert read_text(fifo, "a test file") is None


def test_symlink_to_dev_zero_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "x.pth"
    link.symlink_to("/dev/zero")
    with pytest.raises(SkippedFile, match="character device"):
        read_regular(link)


def test_directory_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SkippedFile, match="directory"):
        read_regular(tmp_path)
    with pytest.raises(SkippedFile, match="cannot open"):
        read_regular(tmp_path / "nothere")


def test_cap(tmp_path: Path) -> None:
    f = tmp_path / "big.env"
    f.write_bytes(b"x" * 101)
    with pytest.raises(SkippedFile, match="larger than 100 bytes"):
        read_regular(f, max_bytes=100)
    assert len(read_regular(f, max_bytes=101)) == 101
    assert read_text(f, "a test file", max_bytes=100) is None


def test_undecodable_text_is_none(tmp_path: Path) -> None:
    f = tmp_path / "bad.pth"
    f.write_bytes(b"\xff\xfe")
    assert read_text(f, "a test file") is None
    assert read_text(f, "a test file", errors="replace") == "\ufffd\ufffd"
