"""The stdio transport: pygls' message loop (``pygls.io_.run_async``), bounded and strict.

pygls read a header line with an unbounded ``readline`` and a body with
``read(Content-Length)``: ``Content-Length: 40000000000`` ended the process with a
MemoryError, and a 300 MB header line without a newline grew it to 660 MB. It matched only
``Content-Length: N\\r\\n`` exactly, and answered JSON it could not read with a popup.
Here (:func:`serve`, used by the server's ``start_io``):

- A header line is read at most :data:`MAX_HEADER_LINE` bytes at a time; a longer one is
  read on to its end in chunks and dropped (logged). Header names are case-insensitive
  (HTTP's rule, which the LSP base protocol follows): ``content-length: 5`` is accepted.
- A body over :data:`MAX_BODY` bytes is read and thrown away in :data:`CHUNK`-byte pieces
  (logged, never held); the next message is served.
- A body that is not JSON (or not UTF-8) is answered with error -32700 (ParseError) and
  ``"id": null`` (JSON-RPC 2.0, section 5.1). One that is not an object (a batch array: LSP
  has no batches; a number) gets -32600 (InvalidRequest) once, ``"id": null``; so does an
  object whose ``id`` is not a string or a number, or that holds a number JSON cannot
  write back (``NaN``, ``Infinity``, ``1e400``: pygls echoed ids as ``inf``, invalid JSON).
- The message is then built by the protocol's ``structure_message`` once, for the whole
  object (pygls ran it as ``object_hook`` on every nested object, so an object inside
  ``params`` that looked like a message was turned into one).
- Messages are read ahead by a thread of their own (:class:`Inbox`, up to
  :data:`READ_AHEAD`), in order; a :class:`Paced` server sees how many wait and is called
  when none does (its ``idle``). Nothing is read after ``exit``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sys
from threading import Event, Semaphore, Thread
from typing import Any, BinaryIO, Protocol, runtime_checkable

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from torch_logs_lsp.server.pygls_fixes.wire import JsonProtocol

log = logging.getLogger(__name__)

#: Longest header line kept (bytes): real headers are ~25 bytes (``Content-Length`` and
#: the rarely sent ``Content-Type``).
MAX_HEADER_LINE = 8 * 1024
#: Largest body read (bytes): 64 MiB. The largest message a client sends is a ``didOpen``
#: or a full ``didChange`` of a document of at most MAX_FILE_BYTES (8 MiB, UTF-8) that we
#: analyse; JSON escaping can grow text up to 6 times (``\\u0001`` for a control
#: character), so 8 MiB of text is at most 48 MiB of JSON, plus the envelope. A larger
#: document is refused anyway; refusing its message too only loses the "too large" notice.
MAX_BODY = 64 * 1024 * 1024
#: Bytes read at a time when throwing away an over-long header line or body.
CHUNK = 1 << 20


class Discarded:
    """A message that was read and thrown away (see :data:`MAX_BODY`)."""

    def __init__(self, size: int) -> None:
        self.size = size


class FrameReader:
    """Reads whole messages from a binary stream (blocking; run in a thread)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def _skip_line(self) -> bool:
        """Read on to the end of the current line; ``False`` at end of stream."""
        while True:
            more = self.stream.readline(CHUNK)
            if not more:
                return False
            if more.endswith(b"\n"):
                return True

    def read(self) -> bytes | Discarded | None:
        """The next message's body (bytes), a :class:`Discarded` for one over
        :data:`MAX_BODY`, or ``None`` at end of stream (also mid-message)."""
        length: int | None = None
        while True:
            line = self.stream.readline(MAX_HEADER_LINE + 1)
            if not line:
                return None
            if len(line) > MAX_HEADER_LINE and not line.endswith(b"\n"):
                if not self._skip_line():
                    return None
                log.warning("a header line over %d bytes was discarded", MAX_HEADER_LINE)
                continue
            if not line.strip():  # the empty line ending the headers
                if length is not None:
                    break
                continue  # no Content-Length yet (pygls also waited for one)
            name, colon, value = line.partition(b":")
            if colon and name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    length = None
                if length is not None and length < 0:
                    length = None
                if length is None:
                    log.warning("bad header ignored: %r", line[:100])
        if length > MAX_BODY:
            left = length
            while left:
                chunk = self.stream.read(min(CHUNK, left))
                if not chunk:
                    return None
                left -= len(chunk)
            log.warning(
                "a message of %d bytes, over the %d-byte limit, was read and discarded",
                length,
                MAX_BODY,
            )
            return Discarded(length)
        body = self.stream.read(length)
        return body if len(body) == length else None


class InvalidMessage(ValueError):
    """A body that is JSON but not a JSON-RPC message we can answer (-32600)."""


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InvalidMessage(f"number {text[:40]} does not fit a double")
    return value


def _constant(name: str) -> Any:
    raise InvalidMessage(f"{name} is not a JSON number")


def parse(body: bytes) -> dict[str, Any]:
    """A body as a message object. Raises ``ValueError`` (``json.JSONDecodeError``,
    ``UnicodeDecodeError``) or ``RecursionError`` for text that is not JSON, and
    :class:`InvalidMessage` for JSON that is not a message (see the module)."""
    data = json.loads(body, parse_float=_finite, parse_constant=_constant)
    if isinstance(data, list):
        raise InvalidMessage("batches are not supported by LSP")
    if not isinstance(data, dict):
        raise InvalidMessage(f"a message must be a JSON object, not {type(data).__name__}")
    msg_id = data.get("id")
    if isinstance(msg_id, bool) or not isinstance(msg_id, (int, float, str, type(None))):
        raise InvalidMessage(f"id must be a string or a number, not {type(msg_id).__name__}")
    return data


def _refuse(protocol: Any, code: int, message: str) -> None:
    """An error response with ``"id": null`` (pygls' writer leaves a null ``id`` out)."""
    error = {"code": int(code), "message": message}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error})
    if isinstance(protocol, JsonProtocol):
        protocol.send_body(body)
    else:  # not this server's protocol: pygls' response, without the id
        protocol._send_response(None, error=types.ResponseError(code=code, message=message))


def handle(server: LanguageServer, body: bytes) -> None:
    """Parse one body and hand it to the protocol; answer what cannot be handled (see the
    module). Exceptions from the handlers are logged and reported as pygls did."""
    protocol = server.protocol
    try:
        data = parse(body)
    except InvalidMessage as exc:
        log.warning("invalid request: %s", exc)
        _refuse(protocol, types.ErrorCodes.InvalidRequest, str(exc))
        return
    except (ValueError, RecursionError) as exc:
        log.warning("message is not JSON: %s", str(exc)[:200])
        _refuse(protocol, types.ErrorCodes.ParseError, f"parse error: {str(exc)[:200]}")
        return
    try:
        protocol.handle_message(protocol.structure_message(data))
    except Exception as exc:
        log.exception("Unable to handle message")
        server.report_server_error(exc, JsonRpcException)


#: Messages read ahead of the one being handled, at most (the reading thread waits beyond).
READ_AHEAD = 4096


def _is_exit(frame: bytes | Discarded) -> bool:
    """Whether a message is the ``exit`` notification (a short body naming it)."""
    if not isinstance(frame, bytes) or len(frame) > 512 or b'"exit"' not in frame:
        return False
    try:
        return parse(frame).get("method") == "exit"
    except (InvalidMessage, ValueError, RecursionError):
        return False


class Inbox:
    """Messages read from the stream by a thread of their own, ahead of the one being
    handled: a burst of changes is all received before the server analyses one, a request
    sent after it is seen (:meth:`waiting`), and a client never blocks on a write while
    the server works (up to :data:`READ_AHEAD` messages; the stream is read in order)."""

    def __init__(self, reader: FrameReader, loop: asyncio.AbstractEventLoop) -> None:
        self._reader = reader
        self._loop = loop
        self._queue: asyncio.Queue[bytes | Discarded | None] = asyncio.Queue()
        self._room = Semaphore(READ_AHEAD)
        #: Messages read (by the reading thread) and handed out (by :meth:`get`).
        self.received = 0
        self.handed = 0

    def start(self) -> None:
        """Start the reading thread (a daemon: it may be blocked in a read at exit)."""
        Thread(target=self._pump, name="lsp-reader", daemon=True).start()

    def _pump(self) -> None:
        while True:
            self._room.acquire()
            try:
                frame = self._reader.read()
            except Exception:  # a broken stream ends the session as its end does
                log.exception("reading a message failed")
                frame = None
            self.received += 1
            try:
                self._loop.call_soon_threadsafe(self._queue.put_nowait, frame)
            except RuntimeError:  # the loop has closed
                return
            if frame is None or _is_exit(frame):
                return  # nothing is read after `exit`: no read is left pending at exit

    async def get(self) -> bytes | Discarded | None:
        """The next message (``None`` at the end of the stream)."""
        frame = await self._queue.get()
        self.handed += 1
        self._room.release()
        return frame

    def waiting(self) -> int:
        """Messages read and not yet handed out (``>= 0``; may lag the stream by one)."""
        return max(0, self.received - self.handed)


@runtime_checkable
class Paced(Protocol):
    """A server that works on its own when no message is waiting (see :func:`serve`)."""

    def attach(self, inbox: Inbox) -> None:
        """Called once, before the first message, with the inbox it may ask."""

    def idle(self) -> None:
        """Called after a message when no other is waiting: the time for deferred work
        (the server also calls it when its last running handler is done)."""


async def serve(server: LanguageServer, stop: Event, stream: BinaryIO) -> None:
    """Read and handle messages from ``stream`` until its end or ``stop`` is set; a
    :class:`Paced` server's :meth:`~Paced.idle` runs whenever the inbox is empty."""
    loop = asyncio.get_running_loop()
    inbox = Inbox(FrameReader(stream), loop)
    paced = server if isinstance(server, Paced) else None
    if paced is not None:
        paced.attach(inbox)
    inbox.start()
    while not stop.is_set():
        frame = await inbox.get()
        if frame is None:
            break
        if isinstance(frame, bytes):
            handle(server, frame)
        if paced is not None and not inbox.waiting() and not stop.is_set():
            paced.idle()


def start_io(
    server: LanguageServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> None:
    """pygls' ``LanguageServer._start_io_async`` with :func:`serve` as the loop."""
    server._stop_event = stop = Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    try:
        asyncio.run(serve(server, stop, stdin or sys.stdin.buffer))
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
