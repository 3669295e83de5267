"""What pygls 2.x (checked against 2.1) does differently from the LSP and JSON-RPC
specifications, or too slowly, and the server's fix for each: the only modules that reach
into pygls' internals. One line per fix: what it fixes, and where upstream stands (an issue
or pull request of github.com/openlawlibrary/pygls, or "not reported" when none was found).

- ``protocol.py``: the future of every notification handled by a generator is kept in
  ``_request_futures`` forever (~2 KB per ``didChange``); not reported (#611 touches the
  same code, for its CPU cost).
- ``protocol.py``: the lifecycle: -32002 before ``initialize``, -32600 after ``shutdown``
  and for a second ``initialize``, ``exit``'s code kept (pygls' ``sys.exit`` was
  swallowed: always 0); not reported (#605: messages dropped after ``shutdown``; #118:
  the exit code).
- ``protocol.py``: params that do not fit their method answered with -32602; not reported
  (#326 is about strictness; #282 made such errors pop-ups).
- ``workspace.py``: lines end only at ``\\n``, ``\\r\\n``, ``\\r`` (pygls' ``splitlines``
  also ends them at U+2028, ``\\x0c``, ``\\x85`` ...); not reported.
- ``workspace.py``: a ``didChange`` of a document that is not open is ignored (pygls:
  ``KeyError``); #168, closed without a fix.
- ``workspace.py``: answers under the URI exactly as the client sent it; pygls keys
  documents by the decoded URI on purpose since 2.1.0 (commit 27c74d3).
- ``workspace.py``: a document that is not open is read only as a regular, bounded file
  (the project's own rule, not a pygls bug).
- ``stdio.py``: bounded header lines and bodies, case-insensitive header names, -32700
  and -32600 with ``"id": null``, one ``structure_message`` per message; messages read
  ahead by a thread of their own (pygls reads one, then handles it), so a server can see
  what is waiting (``Inbox``, ``Paced``); not reported.
- ``protocol.py``: counts the handlers whose answer is not written yet (``handling``,
  ``settled``), so work deferred to an idle moment never goes out before an answer.
- ``quiet.py``: pygls' warnings for normal traffic (cancel of an answered request, an
  unknown notification, ...) kept at DEBUG; #443 (closed, partly), #240, #517.
- ``wire.py``: large results (completion lists, diagnostics) written as pre-encoded JSON
  instead of cattrs + ``json.dumps``; not reported (#120 and #610 are other costs).
"""
