"""The project's version has one source: ``version`` in ``pyproject.toml``'s ``[project]``
table (the Python package's metadata, so ``torch-logs --version`` and ``torch-logs-lsp
--version``, come from it). Other files must carry it literally: the VS Code extension's
``package.json`` (vsce reads nothing else) and ``package-lock.json``, the README's pre-commit
example (``rev: vX.Y.Z``, the tag a release creates) and the newest release heading of
``CHANGELOG.md``. This script writes them all from one number and checks that they agree.

    python3 scripts/set_version.py 0.2.0      # set 0.2.0 everywhere; in CHANGELOG.md the
                                              # entries under [Unreleased] become 0.2.0's,
                                              # dated today (an existing undated 0.2.0
                                              # heading just gets today's date)
    python3 scripts/set_version.py --check [--tag v0.2.0] [--released]
                                              # exit 1 when the files disagree, the tag is
                                              # not v + the version, or (--released) the
                                              # version's CHANGELOG heading has no date
    python3 scripts/set_version.py --notes 0.2.0   # print 0.2.0's CHANGELOG section

Standard library only (Python >= 3.10; ``tomllib`` from 3.11, else ``tomli``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = "pyproject.toml"
PACKAGE_JSON = "vscode-extension/package.json"
PACKAGE_LOCK = "vscode-extension/package-lock.json"
CHANGELOG = "CHANGELOG.md"
README = "README.md"

#: X.Y.Z without leading zeros: valid for PEP 440, semver and the VS Code Marketplace alike.
VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
#: ``## [0.1.0] - 2026-01-31`` (or ``- Unreleased`` before the release) / ``## [Unreleased]``
RELEASE_HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>.+?))?[ \t]*$", re.M)
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
UNRELEASED = "Unreleased"
#: the README's pre-commit example: ``    rev: v0.1.0``
README_REV = re.compile(r"^(?P<indent>[ \t]*rev:[ \t]*)(?P<rev>\S+)[ \t]*$", re.M)


class VersionError(Exception):
    """A file does not have the shape this script reads or writes."""


def _read(root: Path, name: str) -> str:
    return (root / name).read_text(encoding="utf-8")


def _write(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text, encoding="utf-8", newline="")


def pyproject_version(root: Path = ROOT) -> str:
    """``[project] version`` of pyproject.toml: the single source."""
    version = tomllib.loads(_read(root, PYPROJECT))["project"]["version"]
    assert isinstance(version, str)
    return version


def changelog_releases(text: str) -> list[tuple[str, str | None]]:
    """The release headings of a Keep a Changelog file, newest first: ``(version, date)``,
    ``date`` as written (``"2026-01-31"``, ``"Unreleased"``) or None; without the
    ``[Unreleased]`` section itself."""
    return [
        (m["version"], m["date"])
        for m in RELEASE_HEADING.finditer(text)
        if m["version"] != UNRELEASED
    ]


def readme_rev(text: str) -> str:
    """The ``rev:`` of the README's pre-commit example (exactly one in the file)."""
    revs = [m["rev"] for m in README_REV.finditer(text)]
    if len(revs) != 1:
        raise VersionError(f"{README}: {len(revs)} 'rev:' lines, expected exactly one")
    return revs[0]


def versions(root: Path = ROOT) -> dict[str, str | None]:
    """Every place that carries the version -> the version found there (None: missing)."""
    package = json.loads(_read(root, PACKAGE_JSON))
    lock = json.loads(_read(root, PACKAGE_LOCK))
    releases = changelog_releases(_read(root, CHANGELOG))
    rev = readme_rev(_read(root, README))
    return {
        f"{PYPROJECT} [project] version": pyproject_version(root),
        f"{PACKAGE_JSON} version": package.get("version"),
        f"{PACKAGE_LOCK} version": lock.get("version"),
        f'{PACKAGE_LOCK} packages[""].version': lock.get("packages", {}).get("", {}).get("version"),
        f"{CHANGELOG} newest release heading": releases[0][0] if releases else None,
        f"{README} pre-commit rev (without the v)": rev[1:] if rev.startswith("v") else rev,
    }


def check(root: Path = ROOT, tag: str | None = None, released: bool = False) -> list[str]:
    """What disagrees with pyproject.toml's version, one sentence each (empty: all agree)."""
    want = pyproject_version(root)
    problems = [
        f"{place}: {found!r}, but pyproject.toml says {want!r}"
        for place, found in versions(root).items()
        if found != want
    ]
    if not VERSION.fullmatch(want):
        problems.append(f"pyproject.toml: version {want!r} is not X.Y.Z")
    if tag is not None and tag != f"v{want}":
        problems.append(f"tag {tag!r} is not 'v{want}', the version in pyproject.toml")
    if released:
        dates = dict(changelog_releases(_read(root, CHANGELOG)))
        date = dates.get(want)
        if date is None or not DATE.fullmatch(date):
            problems.append(
                f"{CHANGELOG}: the heading of {want} has no release date ({date!r}); "
                f"run scripts/set_version.py {want} before tagging"
            )
    return problems


def notes(version: str, root: Path = ROOT) -> str:
    """The body of ``version``'s CHANGELOG section (for the GitHub release)."""
    text = _read(root, CHANGELOG)
    headings = list(RELEASE_HEADING.finditer(text))
    for i, m in enumerate(headings):
        if m["version"] == version:
            end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
            body = text[m.end() : end]
            # the link references at the end of the file are not part of the last section
            body = re.sub(r"^\[[^\]]+\]: \S+\s*$", "", body, flags=re.M)
            return body.strip() + "\n"
    raise VersionError(f"{CHANGELOG}: no section for {version}")


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _set_pyproject(text: str, version: str) -> str:
    lines = text.splitlines(keepends=True)
    section = None
    for i, line in enumerate(lines):
        header = re.match(r"^\s*\[([^\]]+)\]\s*$", line)
        if header:
            section = header[1].strip()
        elif section == "project" and re.match(r"^version\s*=", line):
            lines[i] = re.sub(r'=\s*"[^"]*"', f'= "{version}"', line, count=1)
            return "".join(lines)
    raise VersionError(f"{PYPROJECT}: no version line in [project]")


def _set_json(text: str, version: str, lock: bool) -> str:
    data = json.loads(text)
    data["version"] = version
    if lock:
        data["packages"][""]["version"] = version
    # npm's own layout: two spaces, non-ASCII kept, a final newline
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _repository(root: Path) -> str:
    urls = tomllib.loads(_read(root, PYPROJECT))["project"]["urls"]
    url = urls["Repository"]
    assert isinstance(url, str)
    return url.rstrip("/")


def _set_changelog(text: str, version: str, today: str, repository: str) -> str:
    headings = list(RELEASE_HEADING.finditer(text))
    unreleased = next((m for m in headings if m["version"] == UNRELEASED), None)
    if unreleased is None:
        raise VersionError(f"{CHANGELOG}: no '## [{UNRELEASED}]' heading")
    after = headings[headings.index(unreleased) + 1 :]
    pending = text[unreleased.end() : after[0].start() if after else len(text)].strip()
    releases = changelog_releases(text)
    existing = next((m for m in after if m["version"] == version), None)
    if existing is not None:
        if pending:
            raise VersionError(
                f"{CHANGELOG}: {version} has a section already; move the entries under "
                f"[{UNRELEASED}] into it first"
            )
        if existing["date"] and DATE.fullmatch(existing["date"]):
            return text  # released already: nothing to do
        return text[: existing.start()] + f"## [{version}] - {today}" + text[existing.end() :]
    if releases and _key(version) <= _key(releases[0][0]):
        raise VersionError(f"{version} is not newer than {releases[0][0]}, the newest release")
    text = text[: unreleased.end()] + f"\n\n## [{version}] - {today}" + text[unreleased.end() :]
    # link references: [Unreleased] compares with the new tag, the new one with the last
    previous = releases[0][0] if releases else None
    link = (
        f"[{version}]: {repository}/compare/v{previous}...v{version}"
        if previous
        else f"[{version}]: {repository}/releases/tag/v{version}"
    )
    unreleased_link = re.compile(rf"^\[{UNRELEASED}\]: .*$", re.M)
    new_unreleased = f"[{UNRELEASED}]: {repository}/compare/v{version}...HEAD"
    if unreleased_link.search(text):
        return unreleased_link.sub(lambda _: f"{new_unreleased}\n{link}", text, count=1)
    return text.rstrip("\n") + f"\n\n{new_unreleased}\n{link}\n"


def set_version(version: str, root: Path = ROOT, today: str | None = None) -> list[str]:
    """Write ``version`` into every file that carries it (see the module's docstring);
    returns the files changed."""
    if not VERSION.fullmatch(version):
        raise VersionError(f"{version!r} is not X.Y.Z (digits, no leading zeros)")
    today = today or datetime.date.today().isoformat()
    # every new text first, so that an error leaves every file as it was
    readme = _read(root, README)
    readme_rev(readme)  # exactly one rev: line
    new = {
        PYPROJECT: _set_pyproject(_read(root, PYPROJECT), version),
        PACKAGE_JSON: _set_json(_read(root, PACKAGE_JSON), version, lock=False),
        PACKAGE_LOCK: _set_json(_read(root, PACKAGE_LOCK), version, lock=True),
        CHANGELOG: _set_changelog(_read(root, CHANGELOG), version, today, _repository(root)),
        README: README_REV.sub(lambda m: f"{m['indent']}v{version}", readme, count=1),
    }
    changed = [name for name, text in new.items() if text != _read(root, name)]
    for name in changed:
        _write(root, name, new[name])
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/set_version.py",
        description="Set or check the project's version (pyproject.toml is its source).",
    )
    parser.add_argument("version", nargs="?", help="X.Y.Z to set everywhere")
    parser.add_argument("--check", action="store_true", help="check that every file agrees")
    parser.add_argument("--tag", help="with --check: the tag must be v + the version")
    parser.add_argument(
        "--released", action="store_true", help="with --check: the CHANGELOG heading is dated"
    )
    parser.add_argument("--notes", metavar="X.Y.Z", help="print that release's CHANGELOG section")
    args = parser.parse_args(argv)
    try:
        if args.notes:
            sys.stdout.write(notes(args.notes))
            return 0
        if args.check:
            problems = check(tag=args.tag, released=args.released)
            for place, found in versions().items():
                print(f"{found or '-':>10}  {place}")
            for problem in problems:
                print(f"error: {problem}", file=sys.stderr)
            return 1 if problems else 0
        if not args.version:
            parser.error("give a version, --check or --notes")
        changed = set_version(args.version)
    except VersionError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{args.version}: {', '.join(changed) + ' written' if changed else 'nothing to change'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
