"""The VS Code extension for every target VS Code publishes for, plus the platform-neutral
one, as a release builds them: scripts/release-build.sh (which runs
vscode-extension/scripts/package-all.sh in a copy of the tracked files) once for the test
session, shared with tests/release/test_distribution.py (the ``release_build`` fixture; a few
minutes, the wheels come from a cache after the first build), then each ``.vsix`` (a zip)
is opened and every native binary inside it is read with tests/support/vsix_binaries.py:

* a platform .vsix: each ELF/Mach-O/PE file (found by its first bytes, whatever its name,
  and every ``*.so``/``*.pyd``/``*.dylib``/``*.dll`` must be one) is built for the target's
  CPU, and on Linux links the target's C library (glibc, or musl for alpine-x64); the
  CPython-specific modules (tree-sitter, PyYAML) are there for each of CPython 3.10-3.14
  under the file name that CPython imports on that platform; the manifest names the
  target;
* the neutral .vsix holds no native binary and no bundle, and declares no target;
* every .vsix has what the Marketplace and Open VSX show: license, repository, icon.
* the linux-x64 bundle, unpacked, loads its native modules in each CPython 3.10-3.14 found
  on this machine (each imports the module of its own version).

``TORCH_LOGS_LSP_RELEASE_DIR=<dir>`` tests the files already in that folder instead of
building them (tests/support/release_build.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.support.release_build import ReleaseBuild, require_or_skip
from tests.support.vsix_binaries import is_native, read_binary

PYTHONS = ("310", "311", "312", "313", "314")
# target -> (format, cpu, libc, the CPython-specific module suffix for CPython 3.X ("{v}": "312"))
TARGETS = {
    "linux-x64": ("elf", "x86_64", "glibc", ".cpython-{v}-x86_64-linux-gnu.so"),
    "linux-arm64": ("elf", "aarch64", "glibc", ".cpython-{v}-aarch64-linux-gnu.so"),
    "alpine-x64": ("elf", "x86_64", "musl", ".cpython-{v}-x86_64-linux-musl.so"),
    "darwin-x64": ("macho", "x86_64", None, ".cpython-{v}-darwin.so"),
    "darwin-arm64": ("macho", "arm64", None, ".cpython-{v}-darwin.so"),
    "win32-x64": ("pe", "x86_64", None, ".cp{v}-win_amd64.pyd"),
}
NATIVE_NAME = re.compile(r"\.(so|pyd|dylib|dll)(\.[0-9.]+)?$")
# CPython-specific extension modules every platform bundle needs (import name -> file stem)
PER_VERSION = ("tree_sitter/_binding", "yaml/_yaml")
GRAMMARS = ("bash", "json", "make", "powershell", "python", "toml", "yaml")


@pytest.fixture(scope="module")
def vsix_dir(release_build: ReleaseBuild) -> Path:
    if not release_build.vsix:
        require_or_skip("npm is not on PATH: the .vsix files cannot be built")
    return release_build.out


def _open(vsix_dir: Path, name: str) -> zipfile.ZipFile:
    path = vsix_dir / f"torch-logs-{name}.vsix"
    assert path.is_file(), f"{path} was not built"
    return zipfile.ZipFile(path)


def _natives(z: zipfile.ZipFile) -> dict[str, bytes]:
    """Every file of the .vsix that is a native binary by its first bytes or by its name."""
    out = {}
    for info in z.infolist():
        if info.is_dir():
            continue
        with z.open(info) as f:
            head = f.read(4)
        if is_native(head) or NATIVE_NAME.search(info.filename):
            out[info.filename] = z.read(info)
    return out


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_platform_vsix_holds_only_its_platforms_binaries(vsix_dir: Path, target: str) -> None:
    fmt, cpu, libc, suffix = TARGETS[target]
    with _open(vsix_dir, target) as z:
        natives = _natives(z)
        manifest = z.read("extension.vsixmanifest").decode()
        names = set(z.namelist())
    assert f'TargetPlatform="{target}"' in manifest
    assert len(natives) >= len(PER_VERSION) * len(PYTHONS) + len(GRAMMARS)
    libcs = set()
    for name, data in natives.items():
        assert name.startswith("extension/bundled/libs/"), name
        binary = read_binary(data)  # a *.so that is not a binary fails here
        assert binary.format == fmt, (name, binary)
        assert cpu in binary.cpus, (name, binary)
        if fmt == "elf":
            assert binary.libc in (libc, None), (name, binary.needed)
            libcs.add(binary.libc)
    if libc:
        assert libc in libcs  # the C library is really seen, not just never contradicted
    libs = "extension/bundled/libs/"
    for stem in PER_VERSION:
        for v in PYTHONS:
            wanted = libs + stem + suffix.format(v=v)
            if target == "alpine-x64" and v == "310":
                # CPython 3.10 on musl still names its modules "-linux-gnu" (3.11 fixed the
                # triplet): the musllinux wheel uses the name 3.10 imports; its libc is
                # checked above.
                wanted = wanted.replace("-linux-musl", "-linux-gnu")
            assert wanted in natives, f"{wanted} missing"
    for grammar in GRAMMARS:
        # abi3: one module for every CPython (Windows names it without a tag)
        abi3 = "_binding.pyd" if fmt == "pe" else "_binding.abi3.so"
        assert f"{libs}tree_sitter_{grammar}/{abi3}" in natives
    # the server itself, pure Python
    assert f"{libs}torch_logs_lsp/server/__main__.py" in names
    assert f"{libs}torch_logs_lsp/knowledge/data/descriptions.json" in names


def test_neutral_vsix_has_no_native_code_and_no_bundle(vsix_dir: Path) -> None:
    with _open(vsix_dir, "universal") as z:
        assert _natives(z) == {}
        assert not [n for n in z.namelist() if n.startswith("extension/bundled/")]
        manifest = z.read("extension.vsixmanifest").decode()
        package = json.loads(z.read("extension/package.json"))
    assert "TargetPlatform" not in manifest
    setting = package["contributes"]["configuration"]["properties"]["torchLogs.importStrategy"]
    assert setting["enum"] == ["useBundled", "fromEnvironment"]


@pytest.mark.parametrize("name", ["universal", *sorted(TARGETS)])
def test_marketplace_and_open_vsx_metadata(vsix_dir: Path, name: str) -> None:
    with _open(vsix_dir, name) as z:
        names = set(z.namelist())
        manifest = z.read("extension.vsixmanifest").decode()
        package = json.loads(z.read("extension/package.json"))
        icon = z.read("extension/" + package["icon"])
    assert package["license"] == "MIT"
    assert re.search(r"<License>extension/LICENSE(\.txt)?</License>", manifest), manifest
    assert {"extension/LICENSE.txt", "extension/LICENSE"} & names
    assert package["repository"]["url"].startswith("https://")
    assert icon[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", icon[16:24])  # IHDR: the Marketplace wants >= 128 px
    assert width >= 128 and height >= 128
    assert f"<Icon>extension/{package['icon']}</Icon>" in manifest
    assert "extension/dist/extension.js" in names and "extension/readme.md" in names


def _local_cpythons() -> dict[str, str]:
    """CPython 3.10-3.14 interpreters of this machine (PATH, pyenv): version -> path."""
    found: dict[str, str] = {}
    for v in PYTHONS:
        dotted = f"{v[0]}.{v[1:]}"
        candidates = [shutil.which(f"python{dotted}")]
        candidates += sorted(
            str(p) for p in Path.home().glob(f".pyenv/versions/{dotted}.*/bin/python{dotted}")
        )
        for c in candidates:
            if c and subprocess.run([c, "-c", "pass"], capture_output=True).returncode == 0:
                found[v] = c
                break
    return found


def test_linux_x64_bundle_loads_its_native_modules_in_each_local_cpython(
    vsix_dir: Path, tmp_path: Path
) -> None:
    """The per-version modules side by side: each CPython here imports its own (the C
    tree-sitter binding, a grammar, PyYAML's C loader) from the unpacked bundle alone."""
    if not (os.uname().sysname == "Linux" and os.uname().machine == "x86_64"):
        pytest.skip("the linux-x64 bundle loads only on Linux x86_64")
    with _open(vsix_dir, "linux-x64") as z:
        z.extractall(tmp_path, [n for n in z.namelist() if n.startswith("extension/bundled/")])
    libs = tmp_path / "extension" / "bundled" / "libs"
    code = (
        "import sys, tree_sitter, tree_sitter_bash, yaml\n"
        "parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))\n"
        "tree = parser.parse(b'TORCH_LOGS=+dynamo python x.py\\n')\n"
        "assert tree.root_node.type == 'program', tree.root_node\n"
        "assert yaml.__with_libyaml__\n"
        "assert tree_sitter.__file__.startswith(sys.argv[1]), tree_sitter.__file__\n"
        "print(tree_sitter._binding.__file__.rsplit('/', 1)[-1])\n"
    )
    pythons = _local_cpythons()
    assert pythons, "no CPython 3.10-3.14 found"
    for v, python in pythons.items():
        proc = subprocess.run(
            [python, "-S", "-c", code, str(libs)],
            env={"PYTHONPATH": str(libs), "PYTHONNOUSERSITE": "1", "PATH": os.environ["PATH"]},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, (python, proc.stderr[-2000:])
        assert proc.stdout.strip() == f"_binding.cpython-{v}-x86_64-linux-gnu.so", proc.stdout
