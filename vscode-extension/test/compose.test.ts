import assert from 'node:assert/strict';
import { test } from 'node:test';

import { assignmentText, composeParams, levelRows, parseAnswer, parseOptions, pickRows } from '../src/compose';

const OPTIONS = {
  release: '2.15',
  names: [
    { name: 'dynamo', kind: 'component', description: 'TorchDynamo', prefixes: ['+', '', '-'], offByDefault: false },
    { name: 'output_code', kind: 'artifact', description: 'Generated code', prefixes: [''], offByDefault: true },
    { name: 3 },
  ],
  recipes: [{ id: 'recompiles', title: 'Why does it recompile?', detail: 'recompiles: ...', after: '' }, { title: 'no id' }],
};

test('parseOptions keeps well-formed names and recipes', () => {
  const o = parseOptions(OPTIONS);
  assert.ok(o);
  assert.equal(o.release, '2.15');
  assert.deepEqual(o.names.map((n) => n.name), ['dynamo', 'output_code']);
  assert.deepEqual(o.recipes.map((r) => r.id), ['recompiles']);
  assert.equal(parseOptions(null), undefined);
  assert.deepEqual(parseOptions({}), { release: '', names: [], recipes: [] });
});

test('pickRows: goals first, then the names with kind and description', () => {
  const rows = pickRows(parseOptions(OPTIONS)!);
  assert.deepEqual(
    rows.map((r) => [r.label, !!r.separator]),
    [
      ['Goals', true],
      ['Why does it recompile?', false],
      ['Names of torch 2.15', true],
      ['dynamo', false],
      ['output_code', false],
    ],
  );
  assert.equal(rows[1].recipe, 'recompiles');
  assert.equal(rows[3].leveled, true);
  assert.equal(rows[4].leveled, false);
  assert.equal(rows[4].description, 'artifact, off by default');
  assert.equal(rows[3].detail, 'TorchDynamo');
  // no recipes for the release: no goals heading
  assert.equal(pickRows({ release: '2.1', names: [], recipes: [] })[0].label, 'Names of torch 2.1');
});

test('levelRows: a row per prefix the name takes', () => {
  assert.deepEqual(
    levelRows('dynamo').map((r) => [r.label, r.description]),
    [
      ['+dynamo', 'DEBUG'],
      ['dynamo', 'INFO'],
      ['-dynamo', 'ERROR'],
    ],
  );
  assert.deepEqual(levelRows('dynamo', ['+']).map((r) => r.item), ['+dynamo']);
});

test('composeParams: recipes by id, names with their chosen level', () => {
  const rows = pickRows(parseOptions(OPTIONS)!);
  const picked = [rows[1], rows[3], rows[4]];
  const params = composeParams('file:///w/.env', { line: 2, character: 0 }, picked, new Map([['dynamo', '-dynamo']]));
  assert.deepEqual(params, {
    textDocument: { uri: 'file:///w/.env' },
    position: { line: 2, character: 0 },
    items: ['-dynamo', 'output_code'],
    recipes: ['recompiles'],
  });
});

test('parseAnswer and assignmentText', () => {
  const a = parseAnswer({
    assignments: [['TORCH_LOGS', 'output_code'], ['TORCH_LOGS_OUT', 'torch_logs.txt'], ['bad']],
    edit: { changes: {} },
    after: ['run tlparse', 3],
    message: null,
  });
  assert.ok(a);
  assert.deepEqual(a.assignments, [
    ['TORCH_LOGS', 'output_code'],
    ['TORCH_LOGS_OUT', 'torch_logs.txt'],
  ]);
  assert.deepEqual(a.after, ['run tlparse']);
  assert.equal(a.message, undefined);
  assert.deepEqual(a.edit, { changes: {} });
  assert.equal(assignmentText(a), 'TORCH_LOGS=output_code\nTORCH_LOGS_OUT=torch_logs.txt');
  assert.equal(parseAnswer('x'), undefined);
  assert.equal(parseAnswer({ edit: null })?.edit, undefined);
});
