/**
 * Small text helpers of the commands and the status bar. They hold no TORCH_LOGS knowledge:
 * the server decides what a value means; these only find where to ask and format answers.
 * No `vscode` import.
 */

export const VARIABLE = 'TORCH_LOGS';

/**
 * Column of the `TORCH_LOGS` variable name to hover for "Explain": the last whole-word
 * occurrence that starts at or before the cursor, else the first one on the line.
 * `TORCH_LOGS_OUT` and `MY_TORCH_LOGS` do not count.
 */
export function variableColumn(line: string, cursor: number): number | undefined {
  const re = /(?<![\w$])TORCH_LOGS(?!\w)/g;
  let before: number | undefined;
  let first: number | undefined;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    first ??= m.index;
    if (m.index <= cursor) {
      before = m.index;
    }
  }
  return before ?? first;
}

/** Whether a document mentions the variable (the status bar shows only then). */
export function mentionsVariable(text: string): boolean {
  return /(?<![\w$])TORCH_LOGS(?!\w)/.test(text);
}

export interface NameItem {
  label: string | { label: string };
  detail?: string;
  labelDetails?: { description?: string; detail?: string };
  documentation?: string | { kind?: string; value: string };
  sortText?: string;
}

function text(v: NameItem['documentation']): string {
  if (!v) {
    return '';
  }
  return typeof v === 'string' ? v : v.value;
}

function cell(s: string): string {
  return s.replace(/\r?\n+/g, ' ').replace(/\|/g, '\\|').trim();
}

/** A Markdown page listing every name the server offers (completion items after `TORCH_LOGS=`). */
export function namesMarkdown(items: readonly NameItem[], release: string, origin: string): string {
  const rows = [...items]
    .map((it) => ({
      name: typeof it.label === 'string' ? it.label : it.label.label,
      kind: it.labelDetails?.description ?? it.detail ?? '',
      doc: text(it.documentation),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const out = [
    `# TORCH_LOGS names — torch ${release}`,
    '',
    `${rows.length} names; ${origin}. Prefix a name with \`+\` for DEBUG or \`-\` for ERROR; ` +
      'a bare name is INFO. Separate items with commas.',
    '',
    '| name | kind | description |',
    '| --- | --- | --- |',
    ...rows.map((r) => `| \`${cell(r.name)}\` | ${cell(r.kind)} | ${cell(r.doc)} |`),
    '',
  ];
  return out.join('\n');
}

/** Markdown of an LSP Hover's contents (MarkupContent, MarkedString or an array of them). */
export function hoverMarkdown(contents: unknown): string {
  if (contents === null || contents === undefined) {
    return '';
  }
  if (typeof contents === 'string') {
    return contents;
  }
  if (Array.isArray(contents)) {
    return contents.map(hoverMarkdown).filter(Boolean).join('\n\n');
  }
  if (typeof contents === 'object') {
    const c = contents as { kind?: string; language?: string; value?: unknown };
    if (typeof c.value === 'string') {
      if (c.language) {
        return '```' + c.language + '\n' + c.value + '\n```';
      }
      return c.kind === 'plaintext' ? '```\n' + c.value + '\n```' : c.value;
    }
  }
  return '';
}

export interface StatusInput {
  release: string;
  origin: string;
  trusted: boolean;
  state: 'starting' | 'running' | 'failed' | 'stopped';
  interpreter?: string;
}

export function statusText(s: StatusInput): { text: string; tooltip: string } {
  const icon = s.state === 'failed' ? '$(error)' : s.state === 'starting' ? '$(loading~spin)' : s.trusted ? '$(flame)' : '$(shield)';
  // a failed server checks nothing: no release is shown then
  const text = s.state === 'failed' ? `${icon} TORCH_LOGS: no server` : `${icon} torch ${s.release}`;
  const lines = [`TORCH_LOGS names of torch ${s.release}: ${s.origin}.`];
  if (!s.trusted) {
    lines.push('Restricted mode: no workspace interpreter is run; the packaged registry is used.');
  }
  if (s.state === 'failed') {
    lines.push('The server is not running: see the output.');
  } else if (s.interpreter) {
    lines.push(`Server: ${s.interpreter}`);
  }
  lines.push('Click to choose the release.');
  return { text, tooltip: lines.join('\n') };
}
