"""Releases: one version everywhere, the changelog, the release workflow's shape and the
files scripts/release-build.sh makes.

- pyproject.toml's version is the source: package.json, package-lock.json, both installed
  commands' ``--version``, the newest CHANGELOG.md heading and the README's pre-commit
  ``rev:`` (the tag a release creates) all say it; scripts/set_version.py writes them.
- .github/workflows/release.yml: started by a ``v*`` tag, checks the tag, publishes only
  after the tests and the build passed, least privilege, actions pinned by commit.
- The release files (the session's ``release_build`` fixture, tests/support/release_build.py)
  carry the version, match SHA256SUMS, and building them wrote nothing into the checkout.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.support.paths import ROOT
from tests.support.release_build import VSIX_NAMES, ReleaseBuild


def _load_set_version() -> ModuleType:
    spec = importlib.util.spec_from_file_location("set_version", ROOT / "scripts/set_version.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["set_version"] = module
    spec.loader.exec_module(module)
    return module


sv = _load_set_version()
VERSION = sv.pyproject_version()
WORKFLOW_TEXT = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
WORKFLOW = yaml.safe_load(WORKFLOW_TEXT)
JOBS: dict[str, Any] = WORKFLOW["jobs"]
FILES = (sv.PYPROJECT, sv.PACKAGE_JSON, sv.PACKAGE_LOCK, sv.CHANGELOG, sv.README)


# --- one version ---------------------------------------------------------------------------


def test_every_file_carries_the_pyproject_version() -> None:
    found = sv.versions()
    assert set(found.values()) == {VERSION}, found
    assert sv.check() == []
    assert sv.VERSION.fullmatch(VERSION)


def _command(name: str) -> str:
    found = shutil.which(name, path=sysconfig.get_path("scripts"))
    assert found, f"{name} is not installed in this environment (./dev test installs it)"
    return found


@pytest.mark.parametrize("command", ["torch-logs", "torch-logs-lsp"])
def test_installed_commands_print_the_version(command: str) -> None:
    proc = subprocess.run(
        [_command(command), "--version"], capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stdout) == (0, f"{command} {VERSION}\n"), proc.stderr


def test_readme_precommit_example_names_the_release_tag() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"repos:\n  - repo: (\S+)\n    rev: (\S+)\n", readme)
    assert example, "the pre-commit example of README.md"
    repository = sv.tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert example[1] == repository["Repository"]
    assert example[2] == f"v{VERSION}"  # the tag the release workflow is started by


def test_set_version_cli_checks_the_tag() -> None:
    script = [sys.executable, "-B", str(ROOT / "scripts" / "set_version.py"), "--check"]
    ok = subprocess.run([*script, "--tag", f"v{VERSION}"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([*script, "--tag", "v99.0.0"], capture_output=True, text=True)
    assert bad.returncode == 1
    assert f"tag 'v99.0.0' is not 'v{VERSION}'" in bad.stderr


# --- the changelog -------------------------------------------------------------------------


def test_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [m[1] for m in re.finditer(r"^## \[([^\]]+)\]", text, re.M)]
    assert headings[0] == "Unreleased"
    releases = sv.changelog_releases(text)
    assert [v for v, _ in releases] == headings[1:]
    keys = [tuple(map(int, v.split("."))) for v, _ in releases]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    for i, (version, date) in enumerate(releases):
        assert sv.VERSION.fullmatch(version)
        # only the newest may be waiting for its date (set_version.py sets it)
        assert (date is not None and sv.DATE.fullmatch(date)) or (i == 0 and date == "Unreleased")
    for heading in headings:  # a link reference for each heading
        assert re.search(rf"^\[{re.escape(heading)}\]: https://\S+$", text, re.M), heading
    assert sv.notes(VERSION).strip()


def test_extension_changelog_points_to_the_projects() -> None:
    text = (ROOT / "vscode-extension" / "CHANGELOG.md").read_text(encoding="utf-8")
    repository = json.loads((ROOT / "vscode-extension" / "package.json").read_text())
    url = repository["repository"]["url"] + "/blob/main/CHANGELOG.md"
    assert url in text
    assert not re.search(r"^## ", text, re.M)  # no second list of changes that can drift


# --- scripts/set_version.py on a copy --------------------------------------------------------


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    return tmp_path


def _json_without_versions(path: Path) -> object:
    data = json.loads(path.read_text())
    data.pop("version")
    if "packages" in data:
        data["packages"][""].pop("version")
    return data


def test_set_version_dates_the_current_release_then_makes_the_next(copy: Path) -> None:
    assert sv.set_version(VERSION, root=copy, today="2031-02-03") == [sv.CHANGELOG]
    assert sv.check(copy, tag=f"v{VERSION}", released=True) == []
    assert sv.changelog_releases((copy / sv.CHANGELOG).read_text())[0] == (VERSION, "2031-02-03")
    assert sv.set_version(VERSION, root=copy) == []  # dated already: nothing to do

    changelog = copy / sv.CHANGELOG
    changelog.write_text(
        changelog.read_text().replace(
            "## [Unreleased]\n", "## [Unreleased]\n\n### Fixed\n\n- Something.\n", 1
        )
    )
    major, minor, _ = map(int, VERSION.split("."))
    new = f"{major}.{minor + 1}.0"
    written = sv.set_version(new, root=copy, today="2031-03-04")
    assert sorted(written) == sorted(FILES)
    assert set(sv.versions(copy).values()) == {new}
    assert sv.check(copy, tag=f"v{new}", released=True) == []
    assert sv.notes(new, root=copy) == "### Fixed\n\n- Something.\n"
    text = changelog.read_text()
    assert f"## [Unreleased]\n\n## [{new}] - 2031-03-04\n\n### Fixed" in text
    repository = "https://github.com/torch-logs-lsp/torch-logs-lsp"
    assert f"[Unreleased]: {repository}/compare/v{new}...HEAD\n" in text
    assert f"[{new}]: {repository}/compare/v{VERSION}...v{new}\n" in text
    assert f"    rev: v{new}\n" in (copy / sv.README).read_text()
    for name in (sv.PACKAGE_JSON, sv.PACKAGE_LOCK):  # nothing else changed, npm's layout
        assert _json_without_versions(copy / name) == _json_without_versions(ROOT / name)
        data = json.loads((copy / name).read_text())
        assert (copy / name).read_text() == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    old = (ROOT / sv.PYPROJECT).read_text().replace(f'version = "{VERSION}"', "")
    assert (copy / sv.PYPROJECT).read_text().replace(f'version = "{new}"', "") == old


@pytest.mark.parametrize("bad", ["1.2", "01.2.3", "1.2.3rc1", "v1.2.3", "0.0.1"])
def test_set_version_refuses_and_leaves_every_file(copy: Path, bad: str) -> None:
    sv.set_version(VERSION, root=copy, today="2031-02-03")
    before = {name: (copy / name).read_bytes() for name in FILES}
    with pytest.raises(sv.VersionError):
        sv.set_version(bad, root=copy)  # not X.Y.Z, or not newer than the newest release
    assert {name: (copy / name).read_bytes() for name in FILES} == before


def test_check_names_the_file_that_disagrees(copy: Path) -> None:
    package = copy / sv.PACKAGE_JSON
    package.write_text(package.read_text().replace(f'"version": "{VERSION}"', '"version": "9.9.9"'))
    assert sv.check(copy) == [
        f"{sv.PACKAGE_JSON} version: '9.9.9', but pyproject.toml says '{VERSION}'"
    ]


# --- the release workflow ------------------------------------------------------------------


def _needs(job: str) -> set[str]:
    """Every job ``job`` waits for, directly or not."""
    direct = JOBS[job].get("needs", [])
    found = {direct} if isinstance(direct, str) else set(direct)
    for other in list(found):
        found |= _needs(other)
    return found


def _steps(job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = JOBS[job]["steps"]
    return steps


def test_release_workflow_runs_on_version_tags_with_least_privilege() -> None:
    # PyYAML reads the key `on` as True (YAML 1.1)
    assert WORKFLOW[True] == {"push": {"tags": ["v*"]}}
    assert WORKFLOW["permissions"] == {}
    for name, job in JOBS.items():
        assert "permissions" in job, f"job {name} states its permissions"
        permissions = job["permissions"]
        assert isinstance(permissions, dict)
        if name != "github":
            assert permissions.get("contents") in (None, "read"), name
        if name != "pypi":
            assert "id-token" not in permissions, name
    assert JOBS["pypi"]["permissions"] == {"id-token": "write"}
    assert JOBS["github"]["permissions"] == {"contents": "write"}


def test_release_workflow_publishes_only_after_tests_and_build() -> None:
    version_step = " ".join(str(s.get("run", "")) for s in _steps("version"))
    assert 'set_version.py --check --tag "$GITHUB_REF_NAME" --released' in version_step
    assert _needs("test") == _needs("build") == {"version"}
    assert any(s.get("run") == "./dev test" for s in _steps("test"))
    assert any("scripts/release-build.sh" in str(s.get("run", "")) for s in _steps("build"))
    for job in ("pypi", "marketplace", "open-vsx", "github"):
        assert {"version", "test", "build"} <= _needs(job), job
    assert {"pypi", "marketplace", "open-vsx"} <= _needs("github")
    for job in ("pypi", "marketplace", "open-vsx"):
        assert JOBS[job]["environment"], job  # a protected environment per registry
    assert JOBS["pypi"]["environment"]["name"] == "pypi"


def test_release_workflow_publishes_every_file() -> None:
    pypi = [s for s in _steps("pypi") if "gh-action-pypi-publish" in str(s.get("uses"))]
    assert len(pypi) == 1 and "password" not in pypi[0].get("with", {})
    vsce = next(s for s in _steps("marketplace") if "vsce publish" in str(s.get("run")))
    assert '--packagePath "$RUNNER_TEMP"/vsix/*.vsix' in str(vsce["run"])
    assert vsce["env"] == {"VSCE_PAT": "${{ secrets.VSCE_PAT }}"}
    ovsx = next(s for s in _steps("open-vsx") if "ovsx" in str(s.get("run")))
    assert re.search(r"ovsx@\d+\.\d+\.\d+ publish", str(ovsx["run"]))
    assert ovsx["env"] == {"OVSX_PAT": "${{ secrets.OVSX_PAT }}"}
    release = next(s for s in _steps("github") if "gh release create" in str(s.get("run")))
    assert "sha256sum -c SHA256SUMS" in str(release["run"])
    uploads = [s["with"] for s in _steps("build") if "upload-artifact" in str(s.get("uses"))]
    assert [u["name"] for u in uploads] == ["python-dist", "vsix", "checksums"]


def test_release_workflow_secrets_only_where_they_publish() -> None:
    for name, job in JOBS.items():
        for step in _steps(name):
            text = json.dumps(step)
            if "secrets." in text:
                assert set(step["env"]) <= {"VSCE_PAT", "OVSX_PAT"}, (name, step)
            # no ${{ }} inside a script: values reach scripts as environment variables
            assert "${{" not in str(step.get("run", "")), (name, step)
        assert "secrets." not in json.dumps({k: v for k, v in job.items() if k != "steps"})


def test_release_workflow_pins_actions_by_commit() -> None:
    uses = re.findall(r"^\s*(?:- )?uses: (\S+)(.*)$", WORKFLOW_TEXT, re.M)
    assert uses
    for action, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), (action, comment)
    for step in (s for job in JOBS for s in _steps(job)):
        if "actions/checkout" in str(step.get("uses")):
            assert step["with"] == {"persist-credentials": False}


# --- the release files ---------------------------------------------------------------------


def test_release_build_writes_nothing_into_the_checkout(release_build: ReleaseBuild) -> None:
    if release_build.status_before is None:
        pytest.skip("TORCH_LOGS_LSP_RELEASE_DIR: the files were built elsewhere")
    assert release_build.status_after is not None
    new = sorted(set(release_build.status_after) - set(release_build.status_before))
    assert new == []  # e.g. "!! build/", "?? dist/", "!! vscode-extension/bundled/"
    assert release_build.changed == []


def test_release_files_carry_the_version(release_build: ReleaseBuild) -> None:
    out = release_build.out
    python = [f"torch_logs_lsp-{VERSION}.tar.gz", f"torch_logs_lsp-{VERSION}-py3-none-any.whl"]
    vsix = [f"torch-logs-{name}.vsix" for name in VSIX_NAMES] if release_build.vsix else []
    assert sorted(p.name for p in out.iterdir()) == sorted([*python, *vsix, "SHA256SUMS"])
    lines = (out / "SHA256SUMS").read_text().splitlines()
    sums = {name: digest for digest, name in (line.split("  ", 1) for line in lines)}
    assert sorted(sums) == sorted([*python, *vsix])
    for name, digest in sums.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name

    with zipfile.ZipFile(out / python[1]) as z:
        metadata = z.read(f"torch_logs_lsp-{VERSION}.dist-info/METADATA").decode()
    assert f"\nVersion: {VERSION}\n" in metadata
    with tarfile.open(out / python[0]) as t:
        assert f"torch_logs_lsp-{VERSION}/PKG-INFO" in t.getnames()
    for name in vsix:
        with zipfile.ZipFile(out / name) as z:
            assert json.loads(z.read("extension/package.json"))["version"] == VERSION
            bundled = {n.split("/")[3] for n in z.namelist() if n.endswith(".dist-info/RECORD")}
        if name != "torch-logs-universal.vsix":  # the bundled server is the released wheel
            assert f"torch_logs_lsp-{VERSION}.dist-info" in bundled, name
