/**
 * Which documents the language client sends to the server (no `vscode` import, so the unit
 * tests can read it). The server decides the file kind from the path and the text, never from
 * the language id alone; a document of no kind it reads, or one that names no TORCH_LOGS-family
 * variable, costs one substring search there (no parse).
 */

export interface DocumentFilter {
  scheme: string;
  language?: string;
  pattern?: string;
}

/** Schemes of the documents served: files and untitled editors (never git:, vscode-vfs:, ...). */
export const SCHEMES = ['file', 'untitled'];

/**
 * The cells of notebooks: Python cells (VS Code's Jupyter notebooks and its interactive
 * window). The server asks for notebook document sync of `jupyter-notebook` notebooks, so the
 * client sends those cells with `notebookDocument/*` (the server then knows the cells' order;
 * markdown cells come too, only to count cells); a cell of another notebook type is sent as a
 * plain text document and checked on its own. This filter also routes completion, hover and
 * code actions of the cells to the server.
 */
export const NOTEBOOK_CELLS: DocumentFilter = { scheme: 'vscode-notebook-cell', language: 'python' };

/**
 * Languages served in every scheme. `dockerfile`, `powershell`, `bat` and `makefile` are VS
 * Code's own ids; `dockercompose` is the Docker extension's id for compose files and
 * `github-actions-workflow` the GitHub Actions extension's id for workflows (without those
 * extensions both are `yaml`).
 */
export const LANGUAGES = [
  'dotenv',
  'shellscript',
  'python',
  'dockerfile',
  'yaml',
  'dockercompose',
  'github-actions-workflow',
  'powershell',
  'bat',
  'makefile',
];

/**
 * Test settings, served by name whatever their language: VS Code has no `toml` language of
 * its own (the Even Better TOML extension adds one) and opens `setup.cfg` as `properties`,
 * so a language filter would miss them; any other TOML or INI file is never sent.
 */
export const TEST_SETTINGS = [
  '**/{pyproject.toml,tox.toml,pytest.toml,.pytest.toml}',
  '**/{pytest.ini,.pytest.ini,tox.ini,setup.cfg}',
];

/**
 * Files served by name whatever their language: env files, VS Code launch/task/workspace
 * files, and dev container configurations (`.devcontainer/devcontainer.json`,
 * `.devcontainer/<name>/devcontainer.json`, `.devcontainer.json`; VS Code opens them as
 * `jsonc` with the Dev Containers extension and may open them as `json` without it, so the
 * filter names no language).
 */
export const PATTERNS = [
  '**/.env',
  '**/.env.*',
  '**/*.env',
  '**/.vscode/launch.json',
  '**/.vscode/tasks.json',
  '**/*.code-workspace',
  '**/{devcontainer.json,.devcontainer.json}',
];

export const DOCUMENT_SELECTOR: DocumentFilter[] = [
  ...LANGUAGES.flatMap((language) => SCHEMES.map((scheme) => ({ scheme, language }))),
  ...[...PATTERNS, ...TEST_SETTINGS].map((pattern) => ({ scheme: 'file', pattern })),
  NOTEBOOK_CELLS,
];
