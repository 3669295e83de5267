"""``torch-logs-lsp`` / ``python -m torch_logs_lsp.server``: start the language server."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
import time
from collections.abc import Sequence

from torch_logs_lsp.server import codecache
from torch_logs_lsp.server.pygls_fixes.quiet import quiet_pygls

log = logging.getLogger("torch_logs_lsp.server")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server on stdio (default) or TCP; returns the exit code."""
    parser = argparse.ArgumentParser(prog="torch-logs-lsp", description=__doc__)
    parser.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2087)
    parser.add_argument(
        "--log-level",
        default="WARNING",
        help="logging level for stderr (INFO: start-up time and the generated-code cache; "
        "pygls' own INFO lines only with DEBUG)",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    args = parser.parse_args(argv)
    started = time.perf_counter()

    # Importing pygls and lsprotocol creates ~50,000 objects that live as long as the
    # process: collecting during the imports only slows them down, and scanning them in
    # every later full collection paused requests for 15-50 ms (2-core machine). So no
    # collection until the server exists, then those objects are moved out of the
    # collector's sight (gc.freeze). (Collecting the imports' garbage later, after the
    # handshake, saved ~50 ms of start but the pause then hit the first edits of a big
    # document, and peak memory grew.)
    gc.disable()
    try:
        logging.basicConfig(stream=sys.stderr, level=args.log_level.upper())
        if logging.getLogger().level > logging.DEBUG:
            # pygls logs every message it sends at INFO; the client's trace shows those
            logging.getLogger("pygls").setLevel(logging.WARNING)
        quiet_pygls(logging.getLogger().level)  # its warnings about normal traffic
        if not args.version:
            # Asking python3 on PATH for its torch takes ~100 ms of waiting: let it run
            # while the rest imports (it is the resolution order's last resort; a
            # configured interpreter is started at initialize).
            from torch_logs_lsp.torch_env.context import path_python, prefetch

            prefetch(path_python())
            # Half of the imports' time is compiling code that attrs and cattrs generate:
            # served from a disk table after the first start (see codecache).
            codecache.start(codecache.default_directory())
        from torch_logs_lsp.server.app import VERSION, create_server

        if args.version:
            print(f"torch-logs-lsp {VERSION}")
            return 0
        server = create_server()
        server.started_at = started
        # Free the imports' garbage first (~10 MB that documents then reuse), then freeze
        # what lives on.
        gc.collect()
        gc.freeze()
    finally:
        gc.enable()
    cache = codecache.ACTIVE
    log.info(
        "torch-logs-lsp %s ready %.0f ms after main() began (Python %s); generated code: %s",
        VERSION,
        (time.perf_counter() - started) * 1000,
        sys.version.split()[0],
        f"{cache.hits} from {cache.source or 'no table'}, {cache.misses} compiled"
        if cache
        else "no cache",
    )
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    # 0 after shutdown + exit; 1 for an exit without shutdown (LSP specification)
    return server.exit_code


if __name__ == "__main__":
    sys.exit(main())
