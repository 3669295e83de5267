/**
 * Which documents the language client sends to the server (no `vscode` import, so the unit
 * tests can read it). The server decides the file kind from the path and the text, never from
 * the language id alone; a document of no kind it reads, or one that names no TORCH_LOGS-family
 * variable, costs one substring search there (no parse). The languages and file-name patterns
 * come from the hosts' declarations (`./dev gen` writes `generated/hosts.ts`): a host is sent by
 * its VS Code languages (`dockercompose` is the Docker extension's id for compose files,
 * `github-actions-workflow` the GitHub Actions extension's id for workflows) or, where a language
 * filter would miss its files or take too many (VS Code has no `toml` language of its own, opens
 * `setup.cfg` as `properties`, and `devcontainer.json` as `json` without the Dev Containers
 * extension), by the base names its name rule claims.
 */

import { LANGUAGES, PATTERNS } from './generated/hosts';

export { LANGUAGES, PATTERNS };

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

export const DOCUMENT_SELECTOR: DocumentFilter[] = [
  ...LANGUAGES.flatMap((language) => SCHEMES.map((scheme) => ({ scheme, language }))),
  ...Object.values(PATTERNS).map((pattern) => ({ scheme: 'file', pattern })),
  NOTEBOOK_CELLS,
];
