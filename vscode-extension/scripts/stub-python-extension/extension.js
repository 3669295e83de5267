// The Python extension's `environments` API as documented in @vscode/python-extension
// (getActiveEnvironmentPath, resolveEnvironment, onDidChangeActiveEnvironmentPath), over two
// interpreters given in STUB_PYTHON_ENVS (path-separated): the first is active; the command
// "Stub Python: Switch Environment" makes the next one active and fires the event.
'use strict';
const vscode = require('vscode');
const path = require('path');

function activate() {
  const envs = (process.env.STUB_PYTHON_ENVS || '').split(path.delimiter).filter(Boolean);
  let active = 0;
  const changed = new vscode.EventEmitter();
  const current = () => ({ id: envs[active], path: envs[active] });
  vscode.commands.registerCommand('stubPython.switchEnvironment', () => {
    active = (active + 1) % envs.length;
    changed.fire({ ...current(), resource: vscode.workspace.workspaceFolders?.[0] });
  });
  return {
    environments: {
      getActiveEnvironmentPath: () => current(),
      resolveEnvironment: async (env) => {
        const p = typeof env === 'string' ? env : env.path;
        return { id: p, path: p, executable: { uri: vscode.Uri.file(p) } };
      },
      onDidChangeActiveEnvironmentPath: changed.event,
    },
  };
}

module.exports = { activate, deactivate() {} };
