import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ExtensionSettings, needsRestart, readSettings, releaseInUse, sameServerSettings, toServerSettings } from '../src/settings';

const get = (values: Record<string, unknown>) => (key: string) => values[key];
const PACKAGED = ['2.15', '2.14', '2.13', '2.12', '2.2', '2.1'];

test('defaults', () => {
  assert.deepEqual(readSettings(get({})), { serverInterpreter: '', torchVersion: 'auto', locale: 'auto', severity: {} });
});

test('values are read and trimmed; blanks and wrong types give defaults', () => {
  const s = readSettings(
    get({ serverInterpreter: ' /usr/bin/python3 ', torchVersion: '2.13', locale: 'ru', severity: { TL202: 'off', ' TL301 ': 'Error' } }),
  );
  assert.deepEqual(s, { serverInterpreter: '/usr/bin/python3', torchVersion: '2.13', locale: 'ru', severity: { TL202: 'off', TL301: 'error' } });
  const bad = readSettings(get({ serverInterpreter: 3, torchVersion: '  ', locale: null, severity: ['TL202'] }));
  assert.deepEqual(bad, { serverInterpreter: '', torchVersion: 'auto', locale: 'auto', severity: {} });
  // non-string levels are dropped, unknown levels are passed on for the server to report
  assert.deepEqual(readSettings(get({ severity: { TL201: 1, TL202: 'loud' } })).severity, { TL202: 'loud' });
});

test('the server gets {"torchLogs": {...}} with camelCase keys and without client-only settings', () => {
  const s: ExtensionSettings = { serverInterpreter: '/py', torchVersion: '2.13', locale: 'en', severity: { TL202: 'off' } };
  assert.deepEqual(toServerSettings(s), { torchLogs: { locale: 'en', torchVersion: '2.13', severity: { TL202: 'off' } } });
  assert.deepEqual(toServerSettings(s, '/ws/.venv/bin/python').torchLogs.pythonEnvironment, '/ws/.venv/bin/python');
  // the payload is a copy: later edits of the settings object do not leak into what was sent
  const sent = toServerSettings(s);
  s.severity.TL201 = 'hint';
  assert.deepEqual(sent.torchLogs.severity, { TL202: 'off' });
});

test('only a serverInterpreter change needs a restart', () => {
  const a = readSettings(get({}));
  assert.equal(needsRestart(a, { ...a, torchVersion: '2.13' }), false);
  assert.equal(needsRestart(a, { ...a, locale: 'ru' }), false);
  assert.equal(needsRestart(a, { ...a, severity: { TL202: 'off' } }), false);
  assert.equal(needsRestart(a, { ...a, serverInterpreter: '/usr/bin/python3' }), true);
  assert.equal(needsRestart({ ...a, serverInterpreter: '/x' }, a), true);
});

test('sameServerSettings ignores key order', () => {
  const x = { torchLogs: { locale: 'en', torchVersion: 'auto', severity: { A: 'off', B: 'hint' } } };
  const y = { torchLogs: { severity: { B: 'hint', A: 'off' }, torchVersion: 'auto', locale: 'en' } };
  assert.equal(sameServerSettings(x, y), true);
  assert.equal(sameServerSettings(x, { torchLogs: { ...x.torchLogs, locale: 'ru' } }), false);
});

test('release in use: the setting when packaged, else the newest packaged release', () => {
  const s = readSettings(get({}));
  assert.deepEqual(releaseInUse(s, PACKAGED), { release: '2.15', origin: 'packaged default' });
  assert.deepEqual(releaseInUse({ ...s, torchVersion: '2.13' }, PACKAGED), { release: '2.13', origin: 'setting' });
  assert.deepEqual(releaseInUse({ ...s, torchVersion: '2.13.0' }, PACKAGED), { release: '2.13', origin: 'setting' });
  assert.deepEqual(releaseInUse({ ...s, torchVersion: '2.99' }, PACKAGED), { release: '2.15', origin: 'packaged default' });
  // numeric order, not string order: 2.15 > 2.2
  assert.deepEqual(releaseInUse(s, ['2.2', '2.15', '2.10']).release, '2.15');
});
