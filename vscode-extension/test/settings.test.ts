import assert from 'node:assert/strict';
import { test } from 'node:test';

import { expandSetting } from '../src/interpreter';
import { Environment, ExtensionSettings, needsRestart, parseTorchStatus, readSettings, releaseInUse, sameServerSettings, toServerSettings } from '../src/settings';

const get = (values: Record<string, unknown>) => (key: string) => values[key];
const PACKAGED = ['2.15', '2.14', '2.13', '2.12', '2.2', '2.1'];

test('defaults', () => {
  assert.deepEqual(readSettings(get({})), { serverInterpreter: '', importStrategy: 'useBundled', python: '', torchVersion: 'auto', locale: 'auto', severity: {}, diagnosticMode: 'workspace' });
});

test('values are read and trimmed; blanks and wrong types give defaults', () => {
  const s = readSettings(
    get({ serverInterpreter: ' /usr/bin/python3 ', torchVersion: '2.13', locale: 'ru', severity: { TL202: 'off', ' TL301 ': 'Error' } }),
  );
  assert.deepEqual(s, { serverInterpreter: '/usr/bin/python3', importStrategy: 'useBundled', python: '', torchVersion: '2.13', locale: 'ru', severity: { TL202: 'off', TL301: 'error' }, diagnosticMode: 'workspace' });
  const bad = readSettings(get({ serverInterpreter: 3, torchVersion: '  ', locale: null, severity: ['TL202'] }));
  assert.deepEqual(bad, { serverInterpreter: '', importStrategy: 'useBundled', python: '', torchVersion: 'auto', locale: 'auto', severity: {}, diagnosticMode: 'workspace' });
  // non-string levels are dropped, unknown levels are passed on for the server to report
  assert.deepEqual(readSettings(get({ severity: { TL201: 1, TL202: 'loud' } })).severity, { TL202: 'loud' });
});

const TRUSTED: Environment = { trusted: true, newestRelease: '2.15' };

test('the server gets {"torchLogs": {...}} with camelCase keys and without client-only settings', () => {
  const s: ExtensionSettings = { serverInterpreter: '/py', importStrategy: 'useBundled', python: '', torchVersion: '2.13', locale: 'en', severity: { TL202: 'off' }, diagnosticMode: 'workspace' };
  assert.deepEqual(toServerSettings(s, TRUSTED), { torchLogs: { locale: 'en', torchVersion: '2.13', severity: { TL202: 'off' } } });
  // the payload is a copy: later edits of the settings object do not leak into what was sent
  const sent = toServerSettings(s, TRUSTED);
  s.severity.TL201 = 'hint';
  assert.deepEqual(sent.torchLogs.severity, { TL202: 'off' });
});

test('torchLogs.diagnosticMode: openFilesOnly is sent, the default (workspace) is not', () => {
  const s = readSettings(get({ diagnosticMode: 'openFilesOnly' }));
  assert.equal(s.diagnosticMode, 'openFilesOnly');
  assert.equal(toServerSettings(s, TRUSTED).torchLogs.diagnosticMode, 'openFilesOnly');
  assert.equal('diagnosticMode' in toServerSettings(readSettings(get({})), TRUSTED).torchLogs, false);
  assert.equal(readSettings(get({ diagnosticMode: 'everything' })).diagnosticMode, 'workspace');
});

test('checked interpreter: torchLogs.python, else the Python extension selection, else none', () => {
  const s = readSettings(get({}));
  const env = { ...TRUSTED, selectedPython: '/ws/.venv/bin/python', serverPython: '/usr/bin/python3' };
  assert.equal(toServerSettings(s, env).torchLogs.python, '/ws/.venv/bin/python');
  assert.equal(toServerSettings({ ...s, python: '/opt/torch/bin/python' }, env).torchLogs.python, '/opt/torch/bin/python');
  assert.equal('python' in toServerSettings(s, TRUSTED).torchLogs, false); // the server searches
  assert.equal(toServerSettings(s, env).torchLogs.torchVersion, 'auto');
});

test('untrusted: never the workspace interpreter, and the packaged registry', () => {
  const s = readSettings(get({}));
  const env: Environment = { trusted: false, selectedPython: '/ws/.venv/bin/python', serverPython: '/usr/bin/python3', newestRelease: '2.15' };
  assert.deepEqual(toServerSettings(s, env).torchLogs, { locale: 'auto', torchVersion: '2.15', severity: {}, python: '/usr/bin/python3' });
  // an explicit release and a user-level torchLogs.python are kept
  assert.deepEqual(toServerSettings({ ...s, torchVersion: '2.4', python: '/home/u/py/bin/python' }, env).torchLogs, {
    locale: 'auto',
    torchVersion: '2.4',
    severity: {},
    python: '/home/u/py/bin/python',
  });
});

test('only a serverInterpreter change needs a restart', () => {
  const a = readSettings(get({}));
  assert.equal(needsRestart(a, { ...a, torchVersion: '2.13' }), false);
  assert.equal(needsRestart(a, { ...a, locale: 'ru' }), false);
  assert.equal(needsRestart(a, { ...a, severity: { TL202: 'off' } }), false);
  assert.equal(needsRestart(a, { ...a, python: '/ws/.venv/bin/python' }), false);
  assert.equal(needsRestart(a, { ...a, serverInterpreter: '/usr/bin/python3' }), true);
  assert.equal(needsRestart({ ...a, serverInterpreter: '/x' }, a), true);
  // the server's code changes place: a new process
  assert.equal(needsRestart(a, { ...a, importStrategy: 'fromEnvironment' }), true);
});

test('importStrategy: the two values of the Python tools template; anything else is useBundled', () => {
  assert.equal(readSettings(get({ importStrategy: 'fromEnvironment' })).importStrategy, 'fromEnvironment');
  assert.equal(readSettings(get({ importStrategy: ' useBundled ' })).importStrategy, 'useBundled');
  assert.equal(readSettings(get({ importStrategy: 'fromenvironment' })).importStrategy, 'useBundled');
  assert.equal(readSettings(get({ importStrategy: 7 })).importStrategy, 'useBundled');
});

test('sameServerSettings ignores key order', () => {
  const x = { torchLogs: { locale: 'en', torchVersion: 'auto', severity: { A: 'off', B: 'hint' } } };
  const y = { torchLogs: { severity: { B: 'hint', A: 'off' }, torchVersion: 'auto', locale: 'en' } };
  assert.equal(sameServerSettings(x, y), true);
  assert.equal(sameServerSettings(x, { torchLogs: { ...x.torchLogs, locale: 'ru' } }), false);
});

test('release in use (fallback when the server cannot tell)', () => {
  const s = readSettings(get({}));
  assert.deepEqual(releaseInUse(s, PACKAGED).release, '2.15');
  assert.match(releaseInUse(s, PACKAGED).origin, /packaged default, unless a pin comment/);
  assert.deepEqual(releaseInUse(s, PACKAGED, false), { release: '2.15', origin: 'packaged default (restricted mode)' });
  assert.deepEqual(releaseInUse({ ...s, torchVersion: '2.13' }, PACKAGED), { release: '2.13', origin: 'torchLogs.torchVersion' });
  assert.deepEqual(releaseInUse({ ...s, torchVersion: '2.13.0' }, PACKAGED).release, '2.13');
  assert.deepEqual(releaseInUse({ ...s, torchVersion: '2.99' }, PACKAGED).release, '2.15');
  // numeric order, not string order: 2.15 > 2.2
  assert.deepEqual(releaseInUse(s, ['2.2', '2.15', '2.10']).release, '2.15');
});

test('parseTorchStatus', () => {
  assert.deepEqual(parseTorchStatus({ release: '2.13', how: 'torch installed for /ws/.venv/bin/python', python: '/ws/.venv/bin/python' }), {
    release: '2.13',
    how: 'torch installed for /ws/.venv/bin/python',
    python: '/ws/.venv/bin/python',
  });
  assert.deepEqual(parseTorchStatus({ release: '2.15' }), { release: '2.15', how: '', python: undefined });
  assert.equal(parseTorchStatus(null), undefined);
  assert.equal(parseTorchStatus({ how: 'x' }), undefined);
});

test('torchLogs.python is expanded like serverInterpreter (${workspaceFolder}, ~, ${env:NAME})', () => {
  const s: ExtensionSettings = { serverInterpreter: '', importStrategy: 'useBundled', python: '${workspaceFolder}/.venv/bin/python', torchVersion: 'auto', locale: 'auto', severity: {}, diagnosticMode: 'workspace' };
  const expand = (v: string) => expandSetting(v, { workspaceFolder: '/ws', home: '/home/u', env: { PY: '/opt/py' } });
  assert.equal(toServerSettings(s, { ...TRUSTED, expand }).torchLogs.python, '/ws/.venv/bin/python');
  assert.equal(toServerSettings({ ...s, python: '~/py/bin/python' }, { ...TRUSTED, expand }).torchLogs.python, '/home/u/py/bin/python');
  const untrusted: Environment = { trusted: false, serverPython: '/usr/bin/python3', newestRelease: '2.15', expand };
  assert.equal(toServerSettings({ ...s, python: '${env:PY}' }, untrusted).torchLogs.python, '/opt/py');
  // without an expander (unit use) the value is passed on as written
  assert.equal(toServerSettings(s, TRUSTED).torchLogs.python, '${workspaceFolder}/.venv/bin/python');
});

test('untrusted: torchLogs.python inside the workspace, or not absolute, is replaced by the server interpreter', () => {
  const s: ExtensionSettings = { serverInterpreter: '', importStrategy: 'useBundled', python: '${workspaceFolder}/.venv/bin/python', torchVersion: 'auto', locale: 'auto', severity: {}, diagnosticMode: 'workspace' };
  const expand = (v: string) => expandSetting(v, { workspaceFolder: '/ws', home: '/home/u', env: {} });
  const insideWorkspace = (f: string) => f.startsWith('/ws/');
  const env: Environment = { trusted: false, serverPython: '/usr/bin/python3', newestRelease: '2.15', expand, insideWorkspace };
  assert.equal(toServerSettings(s, env).torchLogs.python, '/usr/bin/python3');
  assert.equal(toServerSettings({ ...s, python: 'python3' }, env).torchLogs.python, '/usr/bin/python3');
  assert.equal(toServerSettings({ ...s, python: '.venv/bin/python' }, env).torchLogs.python, '/usr/bin/python3');
  assert.equal(toServerSettings({ ...s, python: '~/py/bin/python' }, env).torchLogs.python, '/home/u/py/bin/python');
  // trusted: the workspace's own interpreter is what the user means
  assert.equal(toServerSettings(s, { ...env, trusted: true }).torchLogs.python, '/ws/.venv/bin/python');
});

test('torchLogs.inlayHints.enabled: sent only when turned off (the server default is on)', () => {
  const off = readSettings((key) => (key === 'inlayHints.enabled' ? false : undefined));
  assert.equal(off.inlayHints, false);
  assert.deepEqual(toServerSettings(off, { trusted: true, newestRelease: '2.15' }).torchLogs.inlayHints, { enabled: false });
  const on = readSettings((key) => (key === 'inlayHints.enabled' ? true : undefined));
  assert.equal('inlayHints' in toServerSettings(on, { trusted: true, newestRelease: '2.15' }).torchLogs, false);
});
