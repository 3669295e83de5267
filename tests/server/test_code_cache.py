"""The generated-code table (server/codecache.py), through real server processes: a
handshake over stdio (initialize, initialized, shutdown, exit), the server's INFO log
line on stderr, and the table file."""

from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from torch_logs_lsp.server import codecache

TAG = sys.implementation.cache_tag
READY = re.compile(r"generated code: (?:(\d+) from (.+?), (\d+) compiled|no cache)")


def _load(path: Path) -> Any:
    """The table in a file written by the server (after its header)."""
    data = path.read_bytes()
    size = len(codecache._header(b""))
    assert data[:size] == codecache._header(data[size:])
    return marshal.loads(data[size:])


def _store(path: Path, table: Any) -> None:
    payload = marshal.dumps(table)
    path.write_bytes(codecache._header(payload) + payload)


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


HANDSHAKE = b"".join(
    [
        _frame(
            {
                "id": 1,
                "method": "initialize",
                "params": {"processId": None, "rootUri": None, "capabilities": {}},
            }
        ),
        _frame({"method": "initialized", "params": {}}),
        _frame({"id": 2, "method": "shutdown"}),
        _frame({"method": "exit"}),
    ]
)


def _responses(stdout: bytes) -> dict[int, Any]:
    out: dict[int, Any] = {}
    while stdout:
        head, _, rest = stdout.partition(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", head)[1])  # type: ignore[index]
        message = json.loads(rest[:length])
        stdout = rest[length:]
        if "id" in message:
            out[message["id"]] = message.get("result")
    return out


def _run(cache: str | None) -> tuple[re.Match[str], dict[int, Any]]:
    env = dict(os.environ)
    env.pop(codecache.ENV, None)
    if cache is not None:
        env[codecache.ENV] = cache
    proc = subprocess.run(
        [sys.executable, "-m", "torch_logs_lsp.server", "--log-level", "INFO"],
        input=HANDSHAKE,
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    match = READY.search(proc.stderr.decode())
    assert match, proc.stderr.decode()
    return match, _responses(proc.stdout)


def test_the_first_start_writes_the_table_and_the_next_one_is_served_from_it(tmp_path):
    first, answers1 = _run(str(tmp_path))
    table = tmp_path / f"code-{TAG}.marshal"
    assert first.group(1) == "0" and first.group(2) == "no table"
    assert int(first.group(3)) > 300  # lsprotocol's classes
    assert table.is_file()
    entries = _load(table)
    assert isinstance(entries, dict) and len(entries) >= int(first.group(3))

    second, answers2 = _run(str(tmp_path))
    assert int(second.group(1)) > 300
    # only texts that differ per process (attrs puts hash() of a string into __hash__)
    assert int(second.group(3)) < codecache.REWRITE_AFTER
    # the cached code builds the same answers
    assert answers1[1] == answers2[1] and answers2[1]["capabilities"]["hoverProvider"]
    assert answers2[2] is None


def test_an_empty_setting_turns_the_cache_off(tmp_path):
    match, answers = _run("")
    assert match.group(0) == "generated code: no cache"
    assert answers[1]["serverInfo"]["name"] == "torch-logs-lsp"


def test_an_unreadable_table_is_ignored_and_replaced(tmp_path):
    table = tmp_path / f"code-{TAG}.marshal"
    table.write_bytes(b"\x00junk" * 100)
    match, answers = _run(str(tmp_path))
    assert match.group(1) == "0"
    assert answers[1]["capabilities"]["completionProvider"]
    assert isinstance(_load(table), dict)


def test_a_directory_that_cannot_be_written_is_only_logged(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    match, answers = _run(str(blocker / "cache"))
    assert match.group(1) == "0"
    assert answers[1]["capabilities"]["hoverProvider"]
    assert blocker.read_text() == "not a directory"


def test_save_drops_texts_no_longer_generated(tmp_path: Path):
    cache = codecache.CodeCache(str(tmp_path))
    cache.path = str(tmp_path / "t.marshal")
    stale = {(f"x = {i}", "<old>"): compile(f"x = {i}", "<old>", "exec") for i in range(10)}
    cache.table = dict(stale)
    code = cache._compile("y = 1", "<new>", "exec")
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    assert namespace["y"] == 1
    assert cache._compile("y = 1", "<new>", "exec") is code and cache.hits == 1
    assert cache.save(force=True)
    assert set(_load(tmp_path / "t.marshal")) == {("y = 1", "<new>")}


def test_entries_compile_could_not_have_returned_are_dropped(tmp_path: Path):
    good = compile("a = 1", "<a>", "exec")
    table = {
        ("a = 1", "<a>"): good,
        ("b = 2", "<b>"): 5,  # not a code object
        ("c = 3", "<c>"): compile("d = 4", "<d>", "exec"),  # another file's code
        ("e = 5",): good,  # not a (source, file name) key
    }
    path = tmp_path / "t.marshal"
    _store(path, table)
    assert codecache._read(str(path)) == {("a = 1", "<a>"): good}
    _store(path, [1, 2])
    assert codecache._read(str(path)) == {}
    path.write_bytes(marshal.dumps(table))  # no header: an older or foreign file
    assert codecache._read(str(path)) == {}


def test_a_damaged_table_is_not_run(tmp_path: Path):
    # one flipped byte inside a code object could crash the interpreter when it runs
    _run(str(tmp_path))
    table = tmp_path / f"code-{TAG}.marshal"
    data = bytearray(table.read_bytes())
    data[len(data) // 2] ^= 0x40
    table.write_bytes(bytes(data))
    match, answers = _run(str(tmp_path))
    assert match.group(1) == "0"
    assert answers[1]["capabilities"]["hoverProvider"]
    assert isinstance(_load(table), dict)  # replaced by a good one


def test_a_fifo_in_place_of_the_table_does_not_block(tmp_path: Path):
    os.mkfifo(tmp_path / f"code-{TAG}.marshal")
    match, answers = _run(str(tmp_path))  # (a read would block: _run has a timeout)
    assert match.group(1) == "0"
    assert answers[1]["capabilities"]["hoverProvider"]


def test_the_directory_setting_expands_home_and_refuses_relative_paths(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(codecache.ENV, " ~/cache ")
    assert codecache.default_directory() == str(tmp_path / "cache")
    monkeypatch.setenv(codecache.ENV, "cache")  # would land in the server's working folder
    assert codecache.default_directory() is None
    monkeypatch.setenv(codecache.ENV, "")
    assert codecache.default_directory() is None


def test_a_huge_file_is_not_read_through(tmp_path: Path):
    path = tmp_path / "t.marshal"
    with open(path, "wb") as f:
        f.write(codecache._header(b""))
        f.truncate(codecache.MAX_TABLE_BYTES + 1)  # sparse: nothing is written
    assert codecache._read(str(path)) == {}
