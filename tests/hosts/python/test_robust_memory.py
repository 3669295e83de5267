"""A big Python document's tree is not kept after its check (a tree takes many times its
text: an 8 MB module kept ~700 MB until another document was read)."""

from __future__ import annotations

from torch_logs_lsp.hosts.python import host as python
from torch_logs_lsp.lint.pipeline import check_document


def test_the_tree_of_a_big_document_is_not_remembered() -> None:
    small = "import os\nos.environ['TORCH_LOGS'] = '+dynamo'\n"
    check_document(small, "python")
    assert python._tree_of(small) is not None  # a small one is, for the features after
    big = "x = 1\n" * (python.KEPT_TREE_CHARS // 6 + 1) + small
    check_document(big, "python")
    assert python._tree_of(big) is None
    assert python._tree_of(small) is not None
