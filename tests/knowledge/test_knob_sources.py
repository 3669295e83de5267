"""The compile knobs read from torch's sources with ``ast`` (``knowledge/knob_sources.py``),
and the packaged ``knobs-by-version.json`` (``knowledge/knobs.py``, ``scripts/knobs.py``)."""

from __future__ import annotations

import importlib.util
import json
import sys
import zipfile
from pathlib import Path

import pytest

from torch_logs_lsp.knowledge import knobs as knobs_module
from torch_logs_lsp.knowledge.knob_sources import (
    DOC_FILES,
    documented,
    file_forms,
    file_knobs,
    release_knobs,
)
from torch_logs_lsp.knowledge.knobs import compact, expand, judge, knobs, packaged_releases

SAMPLE = '''
import os
from torch.utils._config_module import Config, get_tristate_env

LOG_VAR = "TORCH_SAMPLE_NAMED"

# Whether to tune.
# Off unless set.
max_tune = os.environ.get("TORCHINDUCTOR_SAMPLE_TUNE") == "1"

keep = os.environ.get("TORCHINDUCTOR_SAMPLE_KEEP", "1") != "0"  # noqa: E501

level = int(os.environ.get("TORCHDYNAMO_SAMPLE_LEVEL", 2))

# fmt: off
flag = os.environ.get("TORCH_SAMPLE_FLAG", "0").lower() in ("1", "true")

cache: bool = Config(
    env_name_force=["TORCHINDUCTOR_SAMPLE_CACHE", "TORCH_SAMPLE_CACHE"],
    default=True,
)
"""Caches the sample."""

job: str = Config(env_name_default="TORCH_SAMPLE_JOB", default="")

suppress = bool(os.environ.get("TORCHDYNAMO_SAMPLE_SUPPRESS", False))

named = os.environ.get(LOG_VAR, None)

remote = get_tristate_env("TORCH_SAMPLE_REMOTE", default=False)

class triton:
    # Graphs.
    graphs = os.environ.get("TORCHINDUCTOR_SAMPLE_GRAPHS") == "1"

def threads():
    """How many threads."""
    if "TORCHINDUCTOR_SAMPLE_THREADS" in os.environ:
        try:
            return int(os.environ["TORCHINDUCTOR_SAMPLE_THREADS"])
        except ValueError:
            return 1
    return 2

other = os.environ.get("CUDA_HOME")
logs = os.environ.get("TORCH_LOGS")
'''


def _by_name() -> dict[str, object]:
    return {k.name: k for k in file_knobs("torch/_inductor/config.py", SAMPLE)}


def test_names_entries_docs_and_defaults():
    found = _by_name()
    assert sorted(found) == sorted(
        [
            "TORCHINDUCTOR_SAMPLE_TUNE",
            "TORCHINDUCTOR_SAMPLE_KEEP",
            "TORCHDYNAMO_SAMPLE_LEVEL",
            "TORCH_SAMPLE_FLAG",
            "TORCHINDUCTOR_SAMPLE_CACHE",
            "TORCH_SAMPLE_CACHE",
            "TORCH_SAMPLE_JOB",
            "TORCHDYNAMO_SAMPLE_SUPPRESS",
            "TORCH_SAMPLE_NAMED",
            "TORCH_SAMPLE_REMOTE",
            "TORCHINDUCTOR_SAMPLE_GRAPHS",
            "TORCHINDUCTOR_SAMPLE_THREADS",
        ]
    )  # not CUDA_HOME (not a knob name), not TORCH_LOGS (a family variable)
    tune = found["TORCHINDUCTOR_SAMPLE_TUNE"]
    assert (tune.entry, tune.doc, tune.default) == (
        "max_tune",
        "Whether to tune. Off unless set.",
        None,
    )
    assert found["TORCHINDUCTOR_SAMPLE_KEEP"].default == "'1'"
    assert found["TORCH_SAMPLE_FLAG"].doc == ""  # `# fmt: off` is not documentation
    cache = found["TORCHINDUCTOR_SAMPLE_CACHE"]
    assert (cache.entry, cache.doc, cache.default) == ("cache", "Caches the sample.", "True")
    assert found["TORCH_SAMPLE_REMOTE"].default == "False"
    assert found["TORCHINDUCTOR_SAMPLE_GRAPHS"].entry == "triton.graphs"
    assert found["TORCHINDUCTOR_SAMPLE_GRAPHS"].doc == "Graphs."
    threads = found["TORCHINDUCTOR_SAMPLE_THREADS"]
    assert (threads.entry, threads.doc) == ("threads()", "How many threads.")


def test_value_forms():
    forms = {n: [f.as_json() for f in fs] for n, fs in file_forms(SAMPLE).items()}
    assert forms["TORCHINDUCTOR_SAMPLE_TUNE"] == [{"kind": "eq", "values": ["1"], "result": "off"}]
    assert forms["TORCHINDUCTOR_SAMPLE_KEEP"] == [{"kind": "eq", "values": ["0"], "result": "on"}]
    assert forms["TORCHDYNAMO_SAMPLE_LEVEL"] == [{"kind": "int"}]
    assert forms["TORCH_SAMPLE_FLAG"] == [
        {"kind": "eq", "values": ["1", "true"], "methods": ["lower"], "result": "off"}
    ]
    assert forms["TORCHINDUCTOR_SAMPLE_CACHE"] == [
        {"kind": "config", "values": ["1", "0"], "boolean": True}
    ]
    assert forms["TORCH_SAMPLE_JOB"] == [{"kind": "config", "values": ["1", "0"]}]
    assert forms["TORCHDYNAMO_SAMPLE_SUPPRESS"] == [{"kind": "nonempty"}]
    assert forms["TORCH_SAMPLE_NAMED"] == [{"kind": "text"}]
    assert forms["TORCH_SAMPLE_REMOTE"] == [{"kind": "tristate"}]
    # inside a try: an int() error is caught, so the value is not judged
    assert sorted(f["kind"] for f in forms["TORCHINDUCTOR_SAMPLE_THREADS"]) == [
        "present",
        "text",
    ]


def test_a_file_that_does_not_parse_has_no_knobs():
    assert file_knobs("torch/_inductor/config.py", "x = (") == []
    assert file_forms("x = (") == {}


def test_documented_files():
    assert documented("torch/_inductor/config.py")
    assert documented("torch/_inductor/runtime/cache_dir_utils.py")
    assert not documented("torch/_inductor/runtime/caching/x.py")
    assert not documented("torch/_inductor/codecache.py")
    assert "torch/_logging/_internal.py" in DOC_FILES


def test_judge_sample_forms():
    def info(forms: list[dict[str, object]], entry: str = "x") -> knobs_module.KnobInfo:
        return knobs_module.KnobInfo(
            "TORCHINDUCTOR_X", "torch/_inductor/config.py", entry, "", None, tuple(forms), "2.1"
        )

    off = info([{"kind": "eq", "values": ["1"], "result": "off"}], "max_autotune")
    assert judge(off, "1") is None
    assert judge(off, "0") is None and judge(off, "false") is None  # off, as they say
    assert judge(off, "2") is None  # not a switch word: what it means is not known
    assert judge(off, "true") == (
        'torch compares the value with "1"; this matches none, so torch reads it as off '
        "(torch._inductor.config.max_autotune is False)"
    )
    lower = info([{"kind": "eq", "values": ["1", "true"], "methods": ["lower"]}])
    assert judge(lower, "TRUE") is None
    assert judge(lower, "yes") is not None
    assert judge(info([{"kind": "int"}]), " 12 ") is None  # int() strips blanks
    assert "ValueError" in (judge(info([{"kind": "int"}]), "high") or "")
    config = info([{"kind": "config", "values": ["1", "0"], "boolean": True}])
    assert judge(config, "0") is None
    assert "which Python takes as true" in (judge(config, "false") or "")
    assert judge(config, "") is None  # "" is kept, and false: off, as it says
    assert judge(config, "true") is None  # kept, and true: on, as it says
    assert judge(info([{"kind": "config", "values": ["1", "0"]}]), "job-1") is None  # a str
    assert judge(info([{"kind": "nonempty"}]), "0") is not None
    assert judge(info([{"kind": "nonempty"}]), "1") is None
    # any read that takes any text: never judged
    mixed = info([{"kind": "eq", "values": ["1"], "result": "off"}, {"kind": "text"}])
    assert judge(mixed, "true") is None


def test_compact_and_expand_round_trip():
    record = {"file": "f", "entry": "e", "doc": "d", "default": "'1'", "forms": []}
    per_release = {
        "2.1": {"A": {**record, "default": "'0'", "doc": "old"}},
        "2.2": {"A": record, "B": record},
        "2.3": {"A": record},
    }
    data = compact(per_release, "src")
    entry = data["knobs"]["A"]  # type: ignore[index]
    assert entry["in"] == [["2.1", "2.3"]]
    assert entry["changed"] == [["2.1", "2.1", {"default": "'0'"}]]  # docs: the newest
    assert data["knobs"]["B"]["in"] == [["2.2", "2.2"]]  # type: ignore[index]
    back = expand(json.loads(json.dumps(data)))
    assert back["2.1"]["A"]["default"] == "'0'" and back["2.1"]["A"]["doc"] == "d"
    assert set(back["2.3"]) == {"A"}


def test_packaged_data():
    releases = packaged_releases()
    assert releases[0] == "2.1" and releases[-1] == "2.15"
    k213 = knobs("2.13")
    assert "TORCHINDUCTOR_FORCE_DISABLE_CACHES" in k213
    assert "TORCHINDUCTOR_CACHE_DIR" in k213
    assert k213["TORCHDYNAMO_VERBOSE"].since == "2.1"
    assert knobs("9.9") == knobs(releases[-1])  # a newer release: the newest packaged


def _torch_dir() -> Path | None:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def test_generator_on_installed_torch_documented_files(tmp_path: Path):
    """The packaged 2.13 entry is what the generator finds in the installed torch 2.13's
    documented files (names, entries, files, defaults, docs); the forms need the whole tree
    (the slow test below)."""
    torch_dir = _torch_dir()
    if torch_dir is None:
        pytest.skip("torch is not installed")
    sub = tmp_path / "torch"
    for doc in DOC_FILES:
        src = torch_dir / doc.removeprefix("torch/")
        files = sorted(src.glob("*.py")) if doc.endswith("/") else [src]
        for f in files:
            dest = sub / f.relative_to(torch_dir)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(f.read_text("utf-8"), "utf-8")
    found = release_knobs(sub)
    packaged = knobs("2.13")
    assert sorted(found.knobs) == sorted(packaged)
    for name, knob in found.knobs.items():
        info = packaged[name]
        assert (knob.file, knob.entry, knob.default) == (info.file, info.entry, info.default)
    newest = packaged_releases()[-1]
    for name, knob in found.knobs.items():  # docs are those of the newest release reading it
        if not any(
            name in knobs(r) for r in packaged_releases()[packaged_releases().index("2.13") + 1 :]
        ):
            assert knob.doc == packaged[name].doc, name
    assert newest != "2.13"


@pytest.mark.slow
def test_generator_script_on_installed_torch(tmp_path: Path):
    """``scripts/knobs.py`` run on the installed torch 2.13 gives the packaged 2.13
    records, forms included."""
    torch_dir = _torch_dir()
    if torch_dir is None:
        pytest.skip("torch is not installed")
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "scripts"))
    try:
        import knobs as script  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    records = script.records(release_knobs(torch_dir))
    packaged = expand(
        json.loads((root / "src/torch_logs_lsp/knowledge/data/knobs-by-version.json").read_text())
    )
    newest = packaged_releases()[-1]
    for name, rec in records.items():
        want = packaged["2.13"][name]
        assert {k: v for k, v in rec.items() if k != "doc"} == {
            k: v for k, v in want.items() if k != "doc"
        }, name
        if name not in packaged[newest]:
            assert rec["doc"] == want["doc"], name
    assert sorted(records) == sorted(packaged["2.13"])


def test_wheel_reader_reads_a_wheel(tmp_path: Path):
    wheel = tmp_path / "torch-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("torch/_inductor/config.py", SAMPLE)
        zf.writestr(
            "torch/_inductor/other.py",
            'import os\nx = os.environ.get("TORCHINDUCTOR_SAMPLE_TUNE", "")\n',
        )
    found = release_knobs(wheel)
    assert "TORCHINDUCTOR_SAMPLE_TUNE" in found.knobs
    # read as text elsewhere in torch: the name's values are not judged
    kinds = [f.kind for f in found.forms["TORCHINDUCTOR_SAMPLE_TUNE"]]
    assert sorted(kinds) == ["eq", "text"]


def test_accepted_values_in_words():
    k = knobs("2.13")
    assert k["TORCHINDUCTOR_MAX_AUTOTUNE"].accepted() == '"1" (any other value: off)'
    assert k["TORCHINDUCTOR_FORCE_DISABLE_CACHES"].accepted() == (
        '"1" or "0" (True/False); other text is kept as the value'
    )
    assert k["TORCHDYNAMO_REPRO_LEVEL"].accepted() == "an integer (int())"
    assert k["TORCHINDUCTOR_CACHE_DIR"].accepted() == "any text"
    assert k["TORCHINDUCTOR_FORCE_DISABLE_CACHES"].module == "torch.compiler.config"
