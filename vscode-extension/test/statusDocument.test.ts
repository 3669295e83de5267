import assert from 'node:assert/strict';
import { test } from 'node:test';

import { NOTEBOOK_CELLS } from '../src/selector';
import { statusDocument } from '../src/statusDocument';
import { mentionsVariable } from '../src/text';

interface Doc {
  scheme: string;
  language: string;
  text: string;
}

/** As the extension judges a document: served (the selector's scheme and language) and naming TORCH_LOGS. */
const relevant = (d: Doc) =>
  (d.scheme === 'file' || (d.scheme === NOTEBOOK_CELLS.scheme && d.language === NOTEBOOK_CELLS.language)) &&
  mentionsVariable(d.text);

const cell = (language: string, text: string): Doc => ({ scheme: NOTEBOOK_CELLS.scheme, language, text });

test('a text editor: its document, when it names TORCH_LOGS', () => {
  const env = { scheme: 'file', language: 'dotenv', text: 'TORCH_LOGS=+dynamo\n' };
  assert.equal(statusDocument(env, undefined, relevant), env);
  assert.equal(statusDocument({ ...env, text: 'A=1\n' }, undefined, relevant), undefined);
});

test('the notebook editor: the first checked cell that names TORCH_LOGS', () => {
  const cells = [
    cell('python', 'import torch\n'),
    cell('markdown', 'TORCH_LOGS=+dynamo is explained here\n'),
    cell('python', 'os.environ["TORCH_LOGS"] = "aot_g"\n'),
    cell('python', '%env TORCH_LOGS=+dynamo\n'),
  ];
  // no cell being edited (activeTextEditor undefined), or a cell that names none
  assert.equal(statusDocument(undefined, cells, relevant), cells[2]);
  assert.equal(statusDocument(cells[0], cells, relevant), cells[2]);
  // the cell being edited names it: that cell
  assert.equal(statusDocument(cells[3], cells, relevant), cells[3]);
  // a notebook without any: hidden
  assert.equal(statusDocument(undefined, cells.slice(0, 2), relevant), undefined);
});
