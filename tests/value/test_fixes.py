"""Value fixes (value/fixes.py): table-driven cases and a property test against torch 2.13."""

from __future__ import annotations

import dataclasses
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.budget import examples
from torch_logs_lsp.knowledge.registry import load_registry
from torch_logs_lsp.value.analysis import analyse
from torch_logs_lsp.value.fixes import (
    QUICKFIX,
    REFACTOR,
    Fix,
    apply_edits,
    fix_all_value,
    value_fixes,
)

REG = load_registry()

FIX_ALL = [
    (" +dynamo ,guards,", "+dynamo,guards"),
    ("+dynamo, guards", "+dynamo, guards"),  # already valid: a space after a comma is fine
    ("dynamo;aot", "dynamo,aot"),
    ("dynamo ; aot|inductor", "dynamo,aot,inductor"),
    ("dynamo aot", "dynamo,aot"),
    ("dynamo;", "dynamo"),
    ('"dynamo"', "dynamo"),
    ("'+dynamo,guards'", "+dynamo,guards"),
    ('dyn"amo', "dynamo"),
    ("Dynamo,graph-breaks", "dynamo,graph_breaks"),
    ("GUARDS", "guards"),
    ("-guards,guards", "guards"),
    ("+output_code", "output_code"),
    ("+dynamo,aot,-dynamo", "+dynamo,aot,-dynamo"),  # conflicting levels: the user's choice
    ("+dynamo,Dynamo", "+dynamo,dynamo"),  # the case fix never drops the explicit +dynamo
    ("dynamo,dynamo", "dynamo"),
    ("++dynamo,,aot", "+dynamo,aot"),
    ("a,+,b", "a,b"),
    ("+ dynamo", "+dynamo"),
    ("dynamo,,,", "dynamo"),
    # left alone: no safe fix
    ("aot_g", "aot_g"),  # three suggestions, none clearly best
    ("", ""),
    ("help", "help"),
    ('""', '""'),
    ("   ", "   "),
    ("+dynamo", "+dynamo"),
    ("dynamo:aot", "dynamo:aot"),
]


@pytest.mark.parametrize(("value", "fixed"), FIX_ALL)
def test_fix_all_value(value: str, fixed: str) -> None:
    assert fix_all_value(value, REG) == fixed


def _fixes(value: str) -> list[Fix]:
    return value_fixes(analyse(value, REG), REG)


def _titles(value: str, kind: str = QUICKFIX) -> list[tuple[str, bool, bool]]:
    return [(f.title, f.preferred, f.safe) for f in _fixes(value) if f.kind == kind]


def test_suggestions_become_change_to_fixes() -> None:
    assert _titles("aot_g") == [
        ("Change to `aot_graphs`", False, False),
        ("Change to `aot_graphs_effects`", False, False),
        ("Change to `aot`", False, False),
    ]
    (best, *others) = _titles("Dynamo")
    assert best == ("Change to `dynamo`", True, True)
    assert all(not preferred for _, preferred, _ in others)


def test_each_fix_is_tied_to_its_diagnostics() -> None:
    a = analyse('"dynamo"', REG)
    (fix,) = [f for f in value_fixes(a, REG) if f.kind == QUICKFIX]
    assert fix.diagnostics == a.diagnostics  # both quote diagnostics, one fix
    assert fix.codes == {"TL107"}
    a = analyse("dynamo;;aot", REG)
    (sep,) = [f for f in value_fixes(a, REG) if f.title.startswith("Separate")]
    assert apply_edits("dynamo;;aot", sep.edits) == "dynamo,aot"


def test_no_separator_guess_drops_a_name() -> None:
    assert all("Change to" not in t for t, _, _ in _titles("dynamo;aot"))


def test_duplicate_keeps_the_item_that_wins() -> None:
    (fix,) = [f for f in _fixes("+dynamo,-aot,+dynamo") if f.codes == {"TL302"}]
    assert apply_edits("+dynamo,-aot,+dynamo", fix.edits) == "-aot,+dynamo"
    (fix,) = [f for f in _fixes("+dynamo,-dynamo") if f.codes == {"TL303"}]
    assert apply_edits("+dynamo,-dynamo", fix.edits) == "-dynamo"


def test_companion_refactors() -> None:
    assert _titles("+inductor", REFACTOR) == [("Also enable `output_code`", False, False)]
    (fix,) = [f for f in _fixes("+inductor,guards") if f.kind == REFACTOR]
    assert apply_edits("+inductor,guards", fix.edits) == "+inductor,output_code,guards"
    assert _titles("+inductor,output_code", REFACTOR) == []
    # DEBUG already shows the artifacts that are not off by default
    assert _titles("+dynamo", REFACTOR) == [("Also enable `verbose_guards`", False, False)]
    assert ("Also enable `graph_breaks`", False, False) in _titles("dynamo", REFACTOR)


def test_rename_hook_is_preferred_and_safe() -> None:
    renames = {"dist_ddp": "ddp"}.get
    a = analyse("dist_ddp", REG)
    fixes = value_fixes(a, REG, renames)
    assert (fixes[0].title, fixes[0].preferred, fixes[0].safe) == (
        "Rename `dist_ddp` to `ddp`",
        True,
        True,
    )
    assert fix_all_value("+dist_ddp", REG, renames) == "+ddp"


def test_renamed_diagnostic_is_a_safe_rename() -> None:
    a = analyse("dist_ddp", REG)
    tl206 = dataclasses.replace(a.diagnostics[0], code="TL206", suggestions=("ddp",))
    first = value_fixes(dataclasses.replace(a, diagnostics=(tl206,)), REG)[0]
    assert (first.title, first.preferred, first.safe) == ("Rename `dist_ddp` to `ddp`", True, True)


def test_ignored_codes_are_not_fixed() -> None:
    assert fix_all_value("-guards", REG, ignore=frozenset({"TL301"})) == "-guards"


# --- property: fix-all makes torch 2.13 accept the value, or leaves only ambiguous names --

warnings.filterwarnings("ignore")  # torch warns that NumPy is missing
import torch._logging._internal as internal  # noqa: E402  (installed by ./dev test)

REG_213 = load_registry("2.13")
_NAMES = [n for n in REG_213.known_names() if n != "custom_format_test_artifact"]


def _typo(name: str, how: int) -> str:
    return [name, name.upper(), name.capitalize(), name.replace("_", "-"), name[:-1]][how]


_name = st.builds(_typo, st.sampled_from(_NAMES), st.integers(0, 4))
_junk = st.sampled_from(["zzqx", "qq_zz", "Zzqx"])
_prefix = st.sampled_from(["", "", "+", "-", "++", "+-", "--"])
_item = st.tuples(_prefix, st.one_of(_name, _name, _name, _junk)).map("".join)
_sep = st.sampled_from([",", ",", ", ", " ,", ",,", ";", "|", " ", " ; ", ",\t", ", ,"])
_wrap = st.sampled_from(["{}", "{}", " {}", "{} ", '"{}"', "'{}'", "{},", '{}"'])


@st.composite
def _broken(draw: st.DrawFn) -> str:
    items = draw(st.lists(_item, min_size=1, max_size=5))
    out = items[0]
    for item in items[1:]:
        out += draw(_sep) + item
    return str(draw(_wrap)).format(out)


def _torch_accepts(value: str) -> bool:
    try:
        state = internal._parse_log_settings(value)
    except (ValueError, ImportError):
        return False
    return not isinstance(state, dict)


@pytest.mark.oracle
@settings(max_examples=examples(400), deadline=None)
@given(_broken())
def test_fix_all_gives_a_value_torch_accepts(value: str) -> None:
    fixed = fix_all_value(value, REG_213)
    left = analyse(fixed, REG_213).diagnostics
    unknown = [d for d in left if d.code == "TL201"]
    # left: unknown names with no clear best; warnings whose fix is the user's choice
    assert {d.code for d in left} <= {"TL201", "TL303", "TL304"}, (value, fixed, left)
    if not unknown:
        assert _torch_accepts(fixed), (value, fixed)
    for d in unknown:  # only names with no clear best (several guesses, or none)
        name = fixed[d.start : d.end]
        assert not [s for s in d.suggestions if s.lower() == name.lower().replace("-", "_")]


def test_fix_all_separates_only_names() -> None:
    # Whitespace between two names becomes a comma in fix-all; next to a character that
    # cannot be in a name (a `#` torch would reject anyway) it is left for the user: fix-all
    # must not turn junk into items (`dynamo,guards,#,c`).
    registry = load_registry()
    assert fix_all_value("dynamo guards", registry) == "dynamo,guards"
    assert fix_all_value("dynamo guards # c", registry) == "dynamo,guards # c"
    assert fix_all_value("dynamo @ guards", registry) == "dynamo @ guards"
