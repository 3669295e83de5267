"""Hostile inputs that made the checker or the server super-linear (a hostile tester's
findings: long ``&& \\`` chains, long single lines, long YAML flow mappings, fix-all over
many values). Each test bounds the WORK: it compares the cost of an input of size N with
one of size 4N (linear: x4, quadratic: x16) in CPU time with a generous factor
(tests/support/growth.py), or counts calls; no wall-clock thresholds."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

import pytest

from tests.support.growth import growth
from torch_logs_lsp.hosts import extract
from torch_logs_lsp.hosts.edits import apply_text_edits
from torch_logs_lsp.hosts.shell import operands as shell_operands
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.lint.fixer import fix_all_edits, span_fixes
from torch_logs_lsp.lint.pipeline import check_text
from torch_logs_lsp.model.edits import TextEdit
from torch_logs_lsp.model.spans import ValueSpan

REG = load_registry()


#: The regular expression ``elsewhere`` used before: it backtracks quadratically.
_OLD_ELSEWHERE = re.compile(r"(?:^|[\s;&|(`'\"])(?:\S*/)?(docker|podman|srun)[ \t]")


def test_elsewhere_matches_what_the_old_expression_found():
    rng = random.Random(7)
    alphabet = ["docker", "podman", "srun", " ", "\t", "/", "\n", ";", "'", '"', "x", "a/", "("]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        pos = rng.randint(0, len(text))
        end = rng.randint(pos, len(text))
        old = [(m.end(), m.group(1)) for m in _OLD_ELSEWHERE.finditer(text, pos, end)]
        assert shell_operands._matches(text, pos, end) == old, (text, pos, end)


def _span_at(text: str, at: int) -> ValueSpan:
    return ValueSpan(
        variable="TORCH_LOGS",
        host="shell",
        name_start=at,
        name_end=at + 10,
        value="+dynamo",
        char_starts=(),
        char_ends=(),
        content_start=at + 11,
        content_end=at + 18,
        raw_start=at + 11,
        raw_end=at + 18,
        quote="",
        terminated=True,
    )


def test_elsewhere_is_linear_in_a_long_line_of_quotes():
    """``echo "'''...'"; TORCH_LOGS=+dynamo python``: 1,000,000 quotes took > 11 min."""

    def make(n: int) -> Callable[[], object]:
        text = 'echo "' + "'" * n + '"; TORCH_LOGS=+dynamo python\n'
        span = _span_at(text, text.index("TORCH_LOGS"))
        return lambda: shell_operands.elsewhere(text, span)

    assert growth(make, 50_000) < 8


def test_path_facts_read_a_continued_line_once():
    """4,000 values in one logical line (``&& \\``): each span used to re-read the line."""

    def make(n: int) -> Callable[[], object]:
        text = "#!/bin/sh\n" + "TORCH_LOGS=+dynamo srun x && \\\n" * n + "  true\n"
        spans = [_span_at(text, m.start()) for m in re.finditer("TORCH_LOGS", text)]
        return lambda: shell_operands.path_facts(text, spans)

    assert growth(make, 500) < 8
    text = "TORCH_LOGS=a srun x && \\\nTORCH_LOGS=b python\nTORCH_LOGS=c python\n"
    spans = [_span_at(text, m.start()) for m in re.finditer("TORCH_LOGS", text)]
    assert [shell_operands.elsewhere(text, s) for s in spans] == [
        None,
        "a Slurm job step (srun)",
        None,
    ]


def _counting_extract(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the re-reads the edit verifier makes (``edits.extract`` calls)."""
    from torch_logs_lsp.hosts import edits

    calls: list[str] = []
    real = edits.extract

    def counted(host: str, text: str, cache: object = None) -> list[ValueSpan]:
        calls.append(host)
        return real(host, text)

    monkeypatch.setattr(edits, "extract", counted)
    return calls


@pytest.mark.parametrize(
    ("host", "make"),
    [
        ("shell", lambda n: "export TORCH_LOGS=++x,\n" * n),
        ("dockerfile", lambda n: "FROM x\nRUN <<EOF\n" + "export TORCH_LOGS=++x,\n" * n + "EOF\n"),
    ],
)
def test_fix_all_reads_the_document_again_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch, host: str, make: Callable[[int], str]
):
    """Fix-all over 300 values verifies its edits together: it used to re-read the whole
    document once per value (N=800 took 237 s through the server)."""
    calls = _counting_extract(monkeypatch)
    text = make(300)
    entries = check_text(text, host, REG)
    changes = fix_all_edits(host, text, entries, REG)
    assert len(changes) == 300
    assert len(calls) <= 3
    fixed = apply_text_edits(text, [e for c in changes for e in c.edits])
    assert [s.value for s in extract(host, fixed)] == [c.new for c in changes]


def test_fix_all_finds_the_candidate_that_reads_back(monkeypatch: pytest.MonkeyPatch):
    """A first candidate that does not read back is found by halving, and replaced by
    the next one: the result is still verified as a whole."""
    from torch_logs_lsp.hosts import edits

    text = "export TORCH_LOGS=++x,\n" * 64
    spans = extract("shell", text)
    wanted = [(s, "+x") for s in spans]
    real = edits._candidates
    broken = spans[17]

    def candidates(host: str, span: ValueSpan, new: str) -> Iterator[tuple[TextEdit, ...]]:
        if span is broken:  # a first candidate that writes the wrong value
            yield (TextEdit(span.raw_start, span.raw_end, "+y"),)
        yield from real(host, span, new)

    monkeypatch.setattr(edits, "_candidates", candidates)
    calls = _counting_extract(monkeypatch)
    changes = edits.value_edits("shell", text, wanted)
    assert [c[0] for c in changes] == spans
    fixed = apply_text_edits(text, [e for c in changes for e in c[1]])
    assert [s.value for s in extract("shell", fixed)] == ["+x"] * 64
    assert len(calls) <= 2 * 7 + 2  # one halving path down to the broken value, then one


def test_a_quick_fix_makes_only_the_edits_asked_for(monkeypatch: pytest.MonkeyPatch):
    """One diagnostic of a value with 1,000 items: the fixes of the other items are not
    made (each costs a re-read of the document)."""
    text = 'FROM x\nENV TORCH_LOGS="++dynamo,\\\n' + ' \\" ,\\\n' * 1000 + 'y"\n'
    (span, analysis), *_ = check_text(text, "dockerfile", REG)
    assert analysis is not None
    calls = _counting_extract(monkeypatch)
    first = analysis.diagnostics[0]
    fixes = span_fixes(
        "dockerfile", text, span, analysis, REG, keep=lambda f: first in f.diagnostics
    )
    assert fixes and all(first in f.diagnostics for f in fixes)
    assert len(calls) <= 2 * len(fixes) + 2


def test_a_long_yaml_flow_mapping_is_read_in_linear_time():
    """``env: {TORCH_LOGS: +dynamo, ...}`` on one line: each plain scalar looked at the
    rest of the line (4,000 pairs took 20 s)."""

    def make(n: int) -> Callable[[], object]:
        text = "env: {" + "TORCH_LOGS: +dynamo, " * n + "}\n"
        return lambda: extract("yaml", text)

    assert growth(make, 500) < 8
    text = "env: {" + "TORCH_LOGS: +dynamo, " * 3 + "TORCH_LOGS: +aot\t, }\n"
    assert [s.value for s in extract("yaml", text)] == ["+dynamo"] * 3 + [None]


def test_a_long_continued_chain_is_extracted_in_linear_time():
    """``TORCH_LOGS=+dynamo python && \\`` x N in one statement: tree-sitter nests it N
    deep, and each value's parent/sibling lookups walked down from the root (16,000
    lines took > 300 s)."""

    def make(n: int) -> Callable[[], object]:
        text = (
            "#!/bin/sh\n" + "TORCH_LOGS=+dynamo env TORCH_TRACE=/t python && \\\n" * n + " true\n"
        )
        return lambda: extract("shell", text)

    assert growth(make, 400) < 8
    text = "#!/bin/sh\n" + "TORCH_LOGS=+dynamo env TORCH_TRACE=/t python && \\\n" * 3 + " true\n"
    assert [(s.variable, s.value) for s in extract("shell", text)] == [
        ("TORCH_LOGS", "+dynamo"),
        ("TORCH_TRACE", "/t"),
    ] * 3


def test_tree_index_answers_as_tree_sitter_does():
    """:class:`TreeIndex` (parents, next siblings, nodes at byte ranges read from one
    walk) gives tree-sitter's own answers on random scripts, broken ones included."""
    from torch_logs_lsp.hosts.shell.bash_parse import parse_bash
    from torch_logs_lsp.hosts.ts_index import TreeIndex

    rng = random.Random(1)
    pieces = [
        "TORCH_LOGS=+dynamo ", "python ", "&& \\\n", "; ", "\n", "'a b' ", '"$x" ', "$(c) ",
        "| d ", "if x; then ", "fi ", "{ ", "} ", "(", ")", "declare -i A=1 ", "a[1]=2 ",
        "# c\n", "\\", "'", '"', "<<EOF\nx\nEOF\n", "env TORCH_LOGS=1 y ", "TORCH_LOGS+=x ",
    ]  # fmt: skip
    for _ in range(800):
        data = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 15))).encode()
        root = parse_bash(data).root_node
        index = TreeIndex(root)
        starts = sorted(rng.randrange(len(data)) for _ in range(20))
        for a in starts:
            b = rng.randint(a + 1, len(data))
            node = index.descendant(a, b)
            assert node == root.descendant_for_byte_range(a, b), (data, a, b)
            for _ in range(4):
                if node is None:
                    break
                assert index.parent(node) == node.parent, (data, node)
                assert index.next_sibling(node) == node.next_sibling, (data, node)
                node = node.parent
