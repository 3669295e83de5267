"""pygls' warnings that mean nothing to a user, kept out of the log (the editor's output
channel) unless the log level is DEBUG.

Each is part of normal LSP traffic, not a problem (pygls 2.x ``protocol/json_rpc.py`` and
``protocol/language_server.py``):

- ``Cancel notification for unknown message id``: the client cancelled a request that
  was already answered (VS Code does this all the time while typing);
- ``Received response to unknown message id``: an answer to a request pygls forgot;
- ``Ignoring notification for unknown method``: an optional notification the server does
  not handle (``$/setTrace``, another extension's ``$/...``);
- ``Ignoring work done progress cancel for unknown token``: a progress already ended.
"""

from __future__ import annotations

import logging

#: The format strings of those records (``LogRecord.msg``), by the logger that emits them.
NOISE: dict[str, frozenset[str]] = {
    "pygls.protocol.json_rpc": frozenset(
        {
            'Cancel notification for unknown message id "%s"',
            'Received response to unknown message id "%s"',
            "Ignoring notification for unknown method %r",
        }
    ),
    "pygls.protocol.language_server": frozenset(
        {"Ignoring work done progress cancel for unknown token %s"}
    ),
}


class _Quiet(logging.Filter):
    """Drops the records of :data:`NOISE` for one logger."""

    def __init__(self, messages: frozenset[str]) -> None:
        super().__init__()
        self.messages = messages

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg in self.messages)


def quiet_pygls(level: int) -> None:
    """Install the filters unless ``level`` (the root logger's) is DEBUG or lower; an
    installed filter is not installed twice."""
    if level <= logging.DEBUG:
        return
    for name, messages in NOISE.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, _Quiet) for f in logger.filters):
            logger.addFilter(_Quiet(messages))
