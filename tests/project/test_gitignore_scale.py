"""The ignore patterns of a file are one matcher whose work grows linearly with the path,
however hostile the patterns (``*a*a*a…b``, ``**/**/…``, thousands of ``[``): counted
in NFA positions visited, not timed."""

from __future__ import annotations

import pytest

from torch_logs_lsp.project import gitignore
from torch_logs_lsp.project.gitignore import IgnoreFile

HOSTILE = [
    "*a" * 40 + "b",
    "**/" * 40 + "x",
    "a/**/" * 30 + "b",
    "[!/]" * 60 + "*",
    "*[a-z]*?" * 20 + "z",
    "[" * 5000,
    "[[:" * 2000 + "]",
]


@pytest.fixture
def visits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of NFA positions each new DFA state was computed from."""
    seen: list[int] = []
    step = gitignore._Automaton._step

    def counted(self: gitignore._Automaton, positions: frozenset[int], c: str) -> frozenset[int]:
        seen.append(len(positions))
        return step(self, positions, c)

    monkeypatch.setattr(gitignore._Automaton, "_step", counted)
    return seen


def _work(text: str, path: str, visits: list[int]) -> int:
    spec = IgnoreFile(text)  # a fresh matcher: nothing cached
    visits.clear()
    spec.decides(path, False)
    spec.decides(path, True)
    return sum(visits) + len(visits)


@pytest.mark.parametrize("pattern", HOSTILE)
def test_work_grows_linearly_with_the_path(pattern: str, visits: list[int]) -> None:
    size = len(pattern) + 2  # NFA positions: one per token at most, and the end
    for unit in ("a", "a/", "ab/", "[:"):
        short, long = unit * 50, unit * 200
        once, four = _work(pattern, short, visits), _work(pattern, long, visits)
        assert four <= 5 * max(once, 1)
        assert four <= len(long) * (size + 1)


def test_many_literal_patterns_are_looked_up_not_run(visits: list[int]) -> None:
    text = "\n".join(f"build{i}/out{i}.txt\nname{i}\n*.ext{i}" for i in range(20_000))
    spec = IgnoreFile(text + "\n!name7\n")
    assert spec.decides("build5/out5.txt", False) is True
    assert spec.decides("build5/out6.txt", False) is None
    assert spec.decides("deep/down/name19999", True) is True
    assert spec.decides("x/name7", False) is False
    assert spec.decides("a.ext123", False) is True
    assert spec.decides("a.ext", False) is None
    assert visits == []  # no automaton ran


def test_a_cache_over_its_bound_starts_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitignore, "MAX_CACHED_POSITIONS", 50)
    spec = IgnoreFile("*a*b*c\n!*x*y")
    for i in range(300):
        path = f"{i}a{i}b{i}c"
        assert spec.decides(path, False) is True
        assert spec.decides(path + "xy", False) is False
    automaton = spec._name_globs
    assert automaton is not None
    assert automaton._held <= 50 + 2 * (len("0a0b0cxy") + 3) * 20


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("foo[", "foo[", None),  # not closed: git gives the pattern up
        ("[ab", "[ab", None),
        ("x[\\]y", "x]y", None),
        ("x[\\]]y", "x]y", True),
        ("[[:foo:]]", "f", None),  # an unknown class
        ("[[:x]y", "xy", True),  # no ":]": "[" and ":" and "x" are characters of the set
        ("[[:x]y", "[y", True),
        ("[]a]", "]", True),
        ("[!]a]", "b", True),
        ("[a-]", "-", True),
        ("[[:digit:]-z]", "-", True),  # a class ends a range: "-" is a character
        ("a\\", "a\\", None),
    ],
)
def test_brackets_read_as_git_reads_them(pattern: str, path: str, expected: bool | None) -> None:
    assert IgnoreFile(pattern).decides(path, False) is expected


def test_leading_stars_are_stepped_once_per_character(visits: list[int]) -> None:
    """Thousands of ``*NAME*`` patterns: the positions of their leading ``*`` are in
    every state, so they are kept out of the states and a new state costs what is left."""
    spec = IgnoreFile("\n".join(f"*x{i}*" for i in range(2000)))
    for j in range(100):
        assert spec.decides(f"dir/name_{j}.txt", False) is None
        assert spec.decides(f"dir/a_x{j}_b", False) is True
    assert len(visits) > 100  # the automaton ran
    # only the states just after "x" and "x1" hold many patterns' next positions, and
    # each is stepped once per following digit
    assert sum(v >= 1000 for v in visits) <= 25
