/**
 * "Compose TORCH_LOGS", the client's part: turn the server's `torchLogs/composeOptions` answer
 * (the names of the release in use and the goal recipes) into quick pick items, the picks into
 * a `torchLogs/compose` request, and read its answer. The server decides what is written and
 * how it is quoted for the file (server/features/compose.py); nothing here knows TORCH_LOGS.
 * No `vscode` import: unit-tested with plain objects (composeCommand.ts shows the pickers).
 */

export const OPTIONS_REQUEST = 'torchLogs/composeOptions';
export const COMPOSE_REQUEST = 'torchLogs/compose';

export interface ComposeName {
  name: string;
  kind: string;
  description: string;
  /** The prefixes the name takes: `["+", "", "-"]`, or `[""]` for an artifact. */
  prefixes: string[];
  offByDefault: boolean;
}

export interface ComposeRecipe {
  id: string;
  title: string;
  detail: string;
  after: string;
}

export interface ComposeOptions {
  release: string;
  names: ComposeName[];
  recipes: ComposeRecipe[];
}

/** A quick pick row: a recipe or a name (`separator`: a heading row). */
export interface PickRow {
  label: string;
  description?: string;
  detail?: string;
  separator?: boolean;
  recipe?: string;
  name?: string;
  /** Whether choosing the name asks for its level (it takes a prefix). */
  leveled?: boolean;
}

export interface ComposeAnswer {
  assignments: [string, string][];
  /** A WorkspaceEdit as the server sent it (converted by the caller), or undefined. */
  edit?: unknown;
  after: string[];
  message?: string;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function parseOptions(raw: unknown): ComposeOptions | undefined {
  if (!raw || typeof raw !== 'object') {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  const names: ComposeName[] = (Array.isArray(r.names) ? r.names : [])
    .filter((n): n is Record<string, unknown> => !!n && typeof n === 'object' && typeof n.name === 'string')
    .map((n) => ({
      name: n.name as string,
      kind: str(n.kind),
      description: str(n.description),
      prefixes: Array.isArray(n.prefixes) ? n.prefixes.filter((p): p is string => typeof p === 'string') : [''],
      offByDefault: n.offByDefault === true,
    }));
  const recipes: ComposeRecipe[] = (Array.isArray(r.recipes) ? r.recipes : [])
    .filter((x): x is Record<string, unknown> => !!x && typeof x === 'object' && typeof x.id === 'string')
    .map((x) => ({ id: x.id as string, title: str(x.title) || (x.id as string), detail: str(x.detail), after: str(x.after) }));
  return { release: str(r.release), names, recipes };
}

/** The rows of the multi-select pick: the goals first, then every name with its kind. */
export function pickRows(options: ComposeOptions): PickRow[] {
  const rows: PickRow[] = [];
  if (options.recipes.length) {
    rows.push({ label: 'Goals', separator: true });
    for (const r of options.recipes) {
      rows.push({ label: r.title, detail: r.detail, recipe: r.id });
    }
  }
  rows.push({ label: `Names of torch ${options.release}`, separator: true });
  for (const n of options.names) {
    const kind = n.offByDefault ? `${n.kind}, off by default` : n.kind;
    rows.push({
      label: n.name,
      description: kind,
      detail: n.description || undefined,
      name: n.name,
      leveled: n.prefixes.length > 1,
    });
  }
  return rows;
}

/** The level rows for a name that takes a prefix: `+name` DEBUG, `name` INFO, `-name` ERROR. */
export function levelRows(name: string, prefixes: readonly string[] = ['+', '', '-']): { label: string; description: string; item: string }[] {
  const words: Record<string, string> = { '+': 'DEBUG', '': 'INFO', '-': 'ERROR' };
  return prefixes
    .filter((p) => p in words)
    .map((p) => ({ label: `${p}${name}`, description: words[p], item: `${p}${name}` }));
}

/**
 * The `torchLogs/compose` params for the picked rows; `levels` gives the item chosen for a
 * name that takes a level (by name; a name without one is written as it is).
 */
export function composeParams(
  uri: string,
  position: { line: number; character: number },
  picked: readonly PickRow[],
  levels: ReadonlyMap<string, string> = new Map(),
): { textDocument: { uri: string }; position: { line: number; character: number }; items: string[]; recipes: string[] } {
  const recipes = picked.filter((p) => p.recipe).map((p) => p.recipe as string);
  const items = picked.filter((p) => p.name).map((p) => levels.get(p.name as string) ?? (p.name as string));
  return { textDocument: { uri }, position, items, recipes };
}

export function parseAnswer(raw: unknown): ComposeAnswer | undefined {
  if (!raw || typeof raw !== 'object') {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  const assignments = (Array.isArray(r.assignments) ? r.assignments : []).filter(
    (a): a is [string, string] => Array.isArray(a) && a.length === 2 && typeof a[0] === 'string' && typeof a[1] === 'string',
  );
  const after = (Array.isArray(r.after) ? r.after : []).filter((a): a is string => typeof a === 'string');
  const edit = r.edit && typeof r.edit === 'object' ? r.edit : undefined;
  return { assignments, edit, after, message: str(r.message) || undefined };
}

/** The assignments as lines to copy (`VAR=value`), for a file the server cannot write to. */
export function assignmentText(answer: ComposeAnswer): string {
  return answer.assignments.map(([v, value]) => `${v}=${value}`).join('\n');
}
