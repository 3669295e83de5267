"""torch's compile knobs per release (``data/knobs-by-version.json``, built by
``scripts/knobs.py`` with :mod:`.knob_sources`): their documentation as torch states it,
default, value form and the release each first appeared in, and what torch does with a
value (:func:`judge`).

The packaged file is compact: ``releases`` (the packaged releases, oldest first) and
``knobs``: for each name ``in`` (``[first, last]`` ranges of releases whose sources read
it), the newest release's record (``file``, ``entry``, ``doc``, ``default``, ``forms``) and
``changed`` (``[first, last, fields]``: for a run of releases, the fields that differ from
it, ``doc`` never).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

Record = dict[str, object]


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split(".") if p.isdigit())


def compact(per_release: dict[str, dict[str, Record]], source: str) -> dict[str, object]:
    """The packaged form of ``per_release`` (release -> name -> record)."""
    releases = sorted(per_release, key=_key)
    names = sorted({n for recs in per_release.values() for n in recs})
    knobs: dict[str, object] = {}
    for name in names:
        present = [r for r in releases if name in per_release[r]]
        ranges: list[list[str]] = []
        for r in present:
            i = releases.index(r)
            if ranges and releases.index(ranges[-1][1]) == i - 1:
                ranges[-1][1] = r
            else:
                ranges.append([r, r])
        base = dict(per_release[present[-1]][name])
        changed: list[list[object]] = []  # [first, last, diff] for runs of releases
        for r in present[:-1]:
            diff = {
                k: v for k, v in per_release[r][name].items() if k != "doc" and base.get(k) != v
            }
            last = changed[-1] if changed else None
            if (
                last is not None
                and last[2] == diff
                and releases.index(str(last[1])) == releases.index(r) - 1
            ):
                last[1] = r
            elif diff:
                changed.append([r, r, diff])
        entry: dict[str, object] = {"in": ranges, **base}
        if changed:
            entry["changed"] = changed
        knobs[name] = entry
    return {"_source": source, "releases": releases, "knobs": knobs}


def _changed(entry: dict[str, object], releases: list[str]) -> dict[str, Record]:
    """The ``changed`` runs of a packaged entry, by release."""
    out: dict[str, Record] = {}
    for first, last, diff in entry.get("changed", []):  # type: ignore[attr-defined]
        for r in releases[releases.index(first) : releases.index(last) + 1]:
            out[r] = diff
    return out


def expand(data: dict[str, object]) -> dict[str, dict[str, Record]]:
    """The inverse of :func:`compact` (docs of older releases are the newest's)."""
    releases = [str(r) for r in data.get("releases", [])]  # type: ignore[attr-defined]
    knobs: dict[str, dict[str, object]] = data.get("knobs", {})  # type: ignore[assignment]
    out: dict[str, dict[str, Record]] = {r: {} for r in releases}
    for name, entry in knobs.items():
        base = {k: v for k, v in entry.items() if k not in ("in", "changed")}
        changed = _changed(entry, releases)
        for first, last in entry["in"]:  # type: ignore[attr-defined]
            for r in releases[releases.index(first) : releases.index(last) + 1]:
                out[r][name] = {**base, **changed.get(r, {})}
    return out


@dataclass(frozen=True)
class KnobInfo:
    """One knob in one release: ``file`` the torch file documenting it
    (``torch/_inductor/config.py``), ``entry`` the config entry it feeds (``max_autotune``;
    ``name()`` for a function), ``doc`` torch's comment text (may be ``""``), ``default``
    the source text of torch's default (``None``: none given), ``forms`` how torch reads
    the value at each place (see :class:`.knob_sources.Form`), ``since`` the first
    packaged release whose sources read it."""

    name: str
    file: str
    entry: str
    doc: str
    default: str | None
    forms: tuple[dict[str, object], ...]
    since: str

    @property
    def module(self) -> str:
        """The Python module of :attr:`file` (``torch._inductor.config``)."""
        return self.file.removesuffix(".py").replace("/", ".")

    def accepted(self) -> str:
        """The values torch tells apart, in words (``"1" (any other value: off)``; ``an
        integer (int())``; ``any text``)."""
        kinds = {str(f["kind"]) for f in self.forms if f["kind"] != "present"}
        if not kinds or "text" in kinds:
            return "any text"
        strings: list[str] = []
        methods: list[str] = []
        for form in self.forms:
            if form["kind"] in ("eq", "config", "tristate"):
                strings += [str(v) for v in form.get("values") or ["1", "0"]]  # type: ignore[attr-defined]
                methods += [str(m) for m in form.get("methods", [])]  # type: ignore[attr-defined]
        parts: list[str] = []
        if strings:
            text = " or ".join(f'"{v}"' for v in dict.fromkeys(strings))
            if methods:
                text += " (after " + ", ".join(f".{m}()" for m in dict.fromkeys(methods)) + ")"
            results = {f.get("result") for f in self.forms if f["kind"] == "eq"}
            if kinds == {"eq"} and len(results) == 1 and None not in results:
                text += f" (any other value: {results.pop()})"
            if "config" in kinds:
                text += " (True/False); other text is kept as the value"
            if "tristate" in kinds:
                text += "; other text: the default"
            parts.append(text)
        if "int" in kinds:
            parts.append("an integer (int())")
        if "float" in kinds:
            parts.append("a number (float())")
        if "nonempty" in kinds:
            parts.append("any non-empty text is on (bool())")
        return "; ".join(parts)


@cache
def _data() -> dict[str, object]:
    ref = resources.files("torch_logs_lsp.knowledge.data").joinpath("knobs-by-version.json")
    loaded: dict[str, object] = json.loads(ref.read_text("utf-8"))
    return loaded


def packaged_releases() -> list[str]:
    """The releases (``"2.13"``) whose knobs are packaged, oldest first."""
    return [str(r) for r in _data()["releases"]]  # type: ignore[attr-defined]


def _release(release: str | None) -> str:
    releases = packaged_releases()
    if release in releases:
        return release
    if release is not None and _key(release) and _key(release) < _key(releases[0]):
        return releases[0]
    return releases[-1]


@cache
def knobs(release: str | None) -> dict[str, KnobInfo]:
    """The knobs torch ``release`` (``"2.13"``) reads, by name, in name order; a release not
    packaged gets the nearest packaged one (the newest for a newer or unknown one)."""
    rel = _release(release)
    releases = packaged_releases()
    at = releases.index(rel)
    out: dict[str, KnobInfo] = {}
    table: dict[str, dict[str, object]] = _data()["knobs"]  # type: ignore[assignment]
    for name, entry in table.items():
        ranges: list[list[str]] = entry["in"]  # type: ignore[assignment]
        if not any(releases.index(a) <= at <= releases.index(b) for a, b in ranges):
            continue
        rec = {**entry, **_changed(entry, releases).get(rel, {})}
        out[name] = KnobInfo(
            name=name,
            file=str(rec["file"]),
            entry=str(rec["entry"]),
            doc=str(rec["doc"]),
            default=None if rec["default"] is None else str(rec["default"]),
            forms=tuple(rec["forms"]),  # type: ignore[arg-type]
            since=ranges[0][0],
        )
    return out


def _apply(value: str, methods: list[str]) -> str:
    for m in methods:
        value = getattr(value, m)()
    return value


#: Words that mean "on" or "off" to a person (any case): a value is judged only when it is
#: one of them (or, for ``int()``/``float()``, any value) and torch reads it otherwise.
ON_WORDS = frozenset({"1", "true", "yes", "on", "y", "t", "enable", "enabled"})
OFF_WORDS = frozenset({"0", "false", "no", "off", "n", "f", "disable", "disabled", ""})


def _word(value: str) -> str | None:
    """``"1"`` for an on word, ``"0"`` for an off word, else ``None``."""
    word = value.strip().lower()
    return "1" if word in ON_WORDS else "0" if word in OFF_WORDS else None


def _surprise(form: dict[str, object], value: str) -> bool | None:
    """Whether torch's read ``form`` does with ``value`` other than what it says
    (``None``: the read takes any text, so nothing is judged)."""
    kind = form["kind"]
    if kind in ("int", "float"):
        try:
            (int if kind == "int" else float)(value)
        except ValueError:
            return True
        return False
    if kind == "nonempty":
        return value != "" and _word(value) == "0"  # bool("0") is True
    if kind not in ("eq", "config", "tristate"):
        return None
    values: list[str] = form.get("values") or ["1", "0"]  # type: ignore[assignment]
    methods: list[str] = form.get("methods", [])  # type: ignore[assignment]
    if _apply(value, methods) in values:
        return False
    meant = _word(value)
    if meant is None:
        return False  # not a switch word: what it means is not known
    if kind == "config":  # the text is kept: true unless empty
        return bool(form.get("boolean")) and meant == "0" and value != ""
    result = form.get("result")
    if result == "off":
        return meant == "1"
    if result == "on":
        return meant == "0"
    return meant in values  # torch takes `1` (or `0`) but not this spelling of it


def _quoted(values: list[str]) -> str:
    return " or ".join(f'"{v}"' for v in values)


def judge(knob: KnobInfo, value: str) -> str | None:
    """What torch does with ``value`` of ``knob`` (a message after ``NAME=value: ``) when
    every read of it does other than the value says: an on/off word (:data:`ON_WORDS`,
    :data:`OFF_WORDS`) that no comparison matches and that torch takes the other way (or,
    where torch's meaning of a mismatch is not known, a spelling of a value torch does
    take, ``true`` for ``1``), text ``int()``/``float()`` rejects, an off word ``bool()``
    takes as true. Else ``None``: a value some read compares equal, or a knob any of whose
    reads takes any text, is never judged."""
    forms = [f for f in knob.forms if f["kind"] != "present"]
    if not forms:
        return None
    verdicts = [_surprise(f, value) for f in forms]
    if any(v is None or not v for v in verdicts):
        return None
    form = forms[0]
    kinds = {f["kind"] for f in forms}
    entry = f"{knob.module}.{knob.entry}"
    if kinds == {"eq"}:
        values: list[str] = list(dict.fromkeys(str(v) for f in forms for v in f["values"]))  # type: ignore[attr-defined]
        methods = form.get("methods") or []
        how = f"torch compares the value with {_quoted(values)}"
        if methods:
            how += " after " + ", ".join(f".{m}()" for m in methods)  # type: ignore[attr-defined]
        results = {f.get("result") for f in forms}
        if results == {"off"}:
            return f"{how}; this matches none, so torch reads it as off ({entry} is False)"
        if results == {"on"}:
            return f"{how}; this matches none, so torch reads it as on ({entry} is True)"
        return f"{how}; this matches none, so torch takes it as none of them"
    if kinds == {"config"}:
        if form.get("boolean"):
            truth = "true" if value else "false"  # bool() of the kept text
            text = json.dumps(value)
            return (
                'torch turns only "1" and "0" into True and False: '
                f"{entry} becomes the text {text}, which Python takes as {truth}"
            )
        return None
    if kinds == {"tristate"}:
        default = knob.default or "None"
        return f'torch reads only "1" and "0": it ignores this and uses the default ({default})'
    if kinds == {"int"} or kinds == {"float"}:
        what = "an integer" if kinds == {"int"} else "a number"
        return (
            f"torch reads it with {form['kind']}(): this is not {what}, so reading it "
            f"raises ValueError ({knob.file})"
        )
    if kinds == {"nonempty"}:
        return f"torch tests only whether the value is empty: this turns {entry} on"
    return "torch compares it with values this matches none of"


__all__ = ["KnobInfo", "compact", "expand", "judge", "knobs", "packaged_releases"]
