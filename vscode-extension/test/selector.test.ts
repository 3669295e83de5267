import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { DOCUMENT_SELECTOR, LANGUAGES, NOTEBOOK_CELLS, PATTERNS } from '../src/selector';

const TEST_SETTINGS = [PATTERNS.toml, PATTERNS.ini];

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  activationEvents: string[];
};

test('every language is served in files and untitled editors, and only there (and Python notebook cells)', () => {
  const documents = DOCUMENT_SELECTOR.filter((f) => f !== NOTEBOOK_CELLS);
  for (const language of ['dotenv', 'shellscript', 'python', 'dockerfile', 'yaml', 'dockercompose', 'github-actions-workflow', 'powershell', 'bat', 'makefile']) {
    const schemes = documents.filter((f) => f.language === language).map((f) => f.scheme);
    assert.deepEqual(schemes.sort(), ['file', 'untitled'], language);
  }
  assert.ok(documents.every((f) => f.scheme === 'file' || f.scheme === 'untitled'));
  assert.ok(DOCUMENT_SELECTOR.every((f) => (f.language === undefined) !== (f.pattern === undefined)));
});

test('devcontainer.json, launch.json, tasks.json and env files are served by name, whatever their language', () => {
  const filter = DOCUMENT_SELECTOR.find((f) => f.pattern?.includes('devcontainer'));
  assert.deepEqual(filter, { scheme: 'file', pattern: PATTERNS.jsonc });
  for (const name of ['devcontainer.json', '.devcontainer.json', 'launch.json', 'tasks.json', '*.code-workspace']) {
    assert.ok(PATTERNS.jsonc.includes(name), name);
  }
  for (const name of ['.env', '*.env', '.env.*']) {
    assert.ok(PATTERNS.dotenv.includes(name), name);
  }
  assert.ok(Object.values(PATTERNS).every((p) => p.startsWith('**/')));
});

test('activation: every served language but plain yaml; no activation by YAML files', () => {
  // An unrelated YAML file (any Kubernetes manifest) must not start a Python process; once
  // the server runs, YAML documents are sent and cost it one substring search.
  for (const language of LANGUAGES.filter((l) => l !== 'yaml')) {
    assert.ok(manifest.activationEvents.includes(`onLanguage:${language}`), language);
  }
  assert.ok(!manifest.activationEvents.includes('onLanguage:yaml'));
  assert.ok(!manifest.activationEvents.some((e) => /ya?ml|workflows|Dockerfile|devcontainer/i.test(e) && e.startsWith('workspaceContains:')));
  assert.ok(manifest.activationEvents.includes('onLanguage:jsonc')); // devcontainer.json, launch.json
});

test('notebook cells: Python cells only, by the cell scheme (a filter VS Code and LSP both read)', () => {
  assert.deepEqual(
    DOCUMENT_SELECTOR.filter((f) => f.scheme === 'vscode-notebook-cell'),
    [{ scheme: 'vscode-notebook-cell', language: 'python' }],
  );
  // no `notebook` key: vscode.languages.match (the status bar) ignores it and would match
  // every Python document
  assert.ok(DOCUMENT_SELECTOR.every((f) => Object.keys(f).every((k) => ['scheme', 'language', 'pattern'].includes(k))));
  assert.ok(manifest.activationEvents.includes('onNotebook:jupyter-notebook'));
});

test('test settings are served by file name only: pyproject/tox/pytest TOML and INI files, never any TOML or INI', () => {
  // the names the server's toml and ini hosts claim (hosts/toml.py, ini.py)
  const filters = DOCUMENT_SELECTOR.filter((f) => TEST_SETTINGS.includes(f.pattern ?? ''));
  assert.deepEqual(filters.map((f) => f.scheme), ['file', 'file']);
  assert.ok(!DOCUMENT_SELECTOR.some((f) => f.language === 'toml' || f.language === 'ini' || f.language === 'properties'));
  for (const name of ['pyproject.toml', 'tox.toml', 'pytest.toml', '.pytest.toml', 'pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg']) {
    assert.ok(TEST_SETTINGS.some((p) => p.includes(name)), name);
  }
  assert.ok(!TEST_SETTINGS.some((p) => /Cargo|\*\.toml|\*\.ini/.test(p)));
  assert.ok(manifest.activationEvents.includes('workspaceContains:pyproject.toml'));
  for (const language of ['powershell', 'bat', 'makefile']) {
    assert.ok(manifest.activationEvents.includes(`onLanguage:${language}`), language);
  }
});
