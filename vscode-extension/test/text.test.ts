import assert from 'node:assert/strict';
import { test } from 'node:test';

import { hoverMarkdown, mentionsVariable, namesMarkdown, statusText, variableColumn } from '../src/text';

test('variableColumn finds the TORCH_LOGS name for Explain', () => {
  assert.equal(variableColumn('TORCH_LOGS=+dynamo', 14), 0);
  assert.equal(variableColumn('export TORCH_LOGS="+dynamo ,guards"', 25), 7);
  assert.equal(variableColumn('      "env": { "TORCH_LOGS": "+dynamo" },', 33), 16);
  // not the related variables, and not other names that contain it
  assert.equal(variableColumn('TORCH_LOGS_OUT=/tmp/x', 3), undefined);
  assert.equal(variableColumn('MY_TORCH_LOGS=1 $TORCH_LOGS', 3), undefined);
  // two assignments on a line: the one before the cursor
  const line = 'TORCH_LOGS=a python x.py; TORCH_LOGS=b python y.py';
  assert.equal(variableColumn(line, 40), 26);
  assert.equal(variableColumn(line, 5), 0);
  // cursor before the name: the first one
  assert.equal(variableColumn('  TORCH_LOGS=a', 0), 2);
});

test('mentionsVariable', () => {
  assert.equal(mentionsVariable('# nothing\nA=1\n'), false);
  assert.equal(mentionsVariable('TORCH_LOGS_OUT=/tmp/x'), false);
  assert.equal(mentionsVariable('x\nexport TORCH_LOGS=+dynamo'), true);
});

test('namesMarkdown: sorted table with kind and description, pipes escaped', () => {
  const md = namesMarkdown(
    [
      { label: 'guards', labelDetails: { description: 'artifact' }, documentation: { kind: 'markdown', value: 'Guards that were built.' } },
      { label: 'dynamo', detail: 'component', documentation: 'TorchDynamo | bytecode\ntracing' },
    ],
    '2.15',
    'packaged default',
  );
  const lines = md.split('\n');
  assert.equal(lines[0], '# TORCH_LOGS names — torch 2.15');
  assert.match(md, /2 names; packaged default\./);
  const rows = lines.filter((l) => l.startsWith('| `'));
  assert.deepEqual(rows, ['| `dynamo` | component | TorchDynamo \\| bytecode tracing |', '| `guards` | artifact | Guards that were built. |']);
});

test('hoverMarkdown handles every Hover.contents shape', () => {
  assert.equal(hoverMarkdown({ kind: 'markdown', value: '**dynamo**' }), '**dynamo**');
  assert.equal(hoverMarkdown({ kind: 'plaintext', value: 'dynamo' }), '```\ndynamo\n```');
  assert.equal(hoverMarkdown('plain'), 'plain');
  assert.equal(hoverMarkdown({ language: 'text', value: 'x' }), '```text\nx\n```');
  assert.equal(hoverMarkdown(['a', { kind: 'markdown', value: 'b' }]), 'a\n\nb');
  assert.equal(hoverMarkdown(null), '');
});

test('statusText', () => {
  const ok = statusText({ release: '2.15', origin: 'packaged default', trusted: true, state: 'running', interpreter: '/usr/bin/python3 (Python 3.11.2, PATH)' });
  assert.equal(ok.text, '$(flame) torch 2.15');
  assert.match(ok.tooltip, /torch 2\.15: packaged default\./);
  assert.match(ok.tooltip, /Server: \/usr\/bin\/python3/);
  const restricted = statusText({ release: '2.13', origin: 'setting', trusted: false, state: 'running' });
  assert.equal(restricted.text, '$(shield) torch 2.13');
  assert.match(restricted.tooltip, /Restricted mode/);
  const failed = statusText({ release: '2.15', origin: 'x', trusted: true, state: 'failed' });
  assert.equal(failed.text, '$(error) TORCH_LOGS: no server');
  assert.match(failed.tooltip, /The server is not running: see the output\./);
});
