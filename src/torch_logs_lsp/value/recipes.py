"""Goal recipes: the TORCH_LOGS family settings for a question about torch.compile.

One place for the recipes the editor's "Compose TORCH_LOGS" offers (the server's
``torchLogs/compose``): each names the TORCH_LOGS items and the other family variables
it sets. :func:`assignments` fits recipes (and any chosen items) to a release: a recipe
whose names the release does not all know, or whose variables it does not all read, is
left out (``output_code`` without ``TORCH_LOGS_OUT`` is ``TL411``), as are chosen items
it does not know, so what is written passes ``torch-logs check`` for that release
(tests/value/test_recipes.py runs every recipe through the check in every host). The
names come from
``torch/_logging/_registrations.py`` (``recompiles``, ``graph_breaks``, ``output_code``,
``guards``: every packaged release 2.1-2.15); ``TORCH_LOGS_OUT`` and ``TORCH_TRACE`` are
read from torch 2.3 (``torch/_logging/_internal.py``); ``tlparse`` reads a
``TORCH_TRACE`` directory (https://github.com/pytorch/tlparse).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from torch_logs_lsp.knowledge.registry import Registry
from torch_logs_lsp.knowledge.versions import holds
from torch_logs_lsp.value.family import SINCE_FACT


@dataclass(frozen=True)
class Recipe:
    """A goal: ``id`` (stable, for clients), ``title`` and ``detail`` (English, shown in a
    picker), the TORCH_LOGS ``items`` it writes (with their ``+``/``-`` prefix), the other
    family variables it sets (``others``: variable, value) and what to do next
    (``after``, ``""`` when nothing)."""

    id: str
    title: str
    detail: str
    items: tuple[str, ...] = ()
    others: tuple[tuple[str, str], ...] = ()
    after: str = ""


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "recompiles",
        "Why does it recompile?",
        "recompiles: the guard that failed each time a function is compiled again",
        items=("recompiles",),
    ),
    Recipe(
        "graph_breaks",
        "Where are the graph breaks?",
        "graph_breaks: each break, its reason and the user code where it happened",
        items=("graph_breaks",),
    ),
    Recipe(
        "output_code",
        "Show the generated code",
        "output_code (off by default) written to the file torch_logs.txt (TORCH_LOGS_OUT)",
        items=("output_code",),
        others=(("TORCH_LOGS_OUT", "torch_logs.txt"),),
    ),
    Recipe(
        "bug_report",
        "Everything for a bug report",
        "TORCH_TRACE: structured logs of every compilation in the directory torch_trace",
        others=(("TORCH_TRACE", "torch_trace"),),
        after="run `tlparse torch_trace` (pip install tlparse) and attach its output",
    ),
)


def recipe(recipe_id: str) -> Recipe | None:
    """The recipe named ``recipe_id``, or ``None``."""
    return next((r for r in RECIPES if r.id == recipe_id), None)


def _known(item: str, registry: Registry) -> bool:
    return registry.kind(item.lstrip("+-")) is not None


def reads(variable: str, release: str) -> bool:
    """Whether torch ``release`` reads the family ``variable``."""
    key = SINCE_FACT.get(variable)
    return key is None or holds(key, release)


def fits(r: Recipe, registry: Registry) -> bool:
    """Whether ``registry``'s release knows every item of ``r`` and reads every variable."""
    return all(_known(i, registry) for i in r.items) and all(
        reads(v, registry.release) for v, _ in r.others
    )


def assignments(
    recipes: Iterable[Recipe], items: Iterable[str], registry: Registry
) -> list[tuple[str, str]]:
    """The ``(variable, value)`` pairs to write for ``recipes`` and the chosen TORCH_LOGS
    ``items`` (``"+dynamo"``): TORCH_LOGS first (the recipes' items, then ``items``, each
    name once, the last prefix given winning), then the recipes' other variables in order.
    Recipes :func:`fits` does not accept for ``registry`` and items it does not know are
    left out; empty when nothing is left."""
    chosen: dict[str, str] = {}
    others: dict[str, str] = {}
    every = [r for r in recipes if fits(r, registry)]
    for item in [*(i for r in every for i in r.items), *items]:
        if _known(item, registry):
            chosen[item.lstrip("+-")] = item
    for r in every:
        for variable, value in r.others:
            others.setdefault(variable, value)
    out = [("TORCH_LOGS", ",".join(chosen.values()))] if chosen else []
    return out + list(others.items())


def offered(registry: Registry) -> list[Recipe]:
    """The recipes that write something for ``registry``'s release."""
    return [r for r in RECIPES if fits(r, registry)]
