/**
 * The "TORCH_LOGS: Compose TORCH_LOGS" command: a multi-select pick of the goals and of every
 * name of the torch release in use (from the server), a level for each name that takes one,
 * then the server's edit writing the value in the file's syntax (compose.ts has the logic).
 */
import * as vscode from 'vscode';
import type { LanguageClient, WorkspaceEdit as ProtocolWorkspaceEdit } from 'vscode-languageclient/node';

import {
  assignmentText,
  COMPOSE_REQUEST,
  composeParams,
  levelRows,
  OPTIONS_REQUEST,
  parseAnswer,
  parseOptions,
  PickRow,
  pickRows,
} from './compose';

export const COMPOSE_COMMAND = 'torchLogs.compose';

type Row = vscode.QuickPickItem & { row: PickRow };

/** Run the command in the active editor with the client `getClient` gives (or none). */
export async function composeTorchLogs(getClient: () => Promise<LanguageClient | undefined>): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage('Open the file to write TORCH_LOGS into first.');
    return;
  }
  const client = await getClient();
  if (!client) {
    return;
  }
  const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
  const options = parseOptions(await client.sendRequest(OPTIONS_REQUEST, { textDocument: { uri } }));
  if (!options) {
    void vscode.window.showInformationMessage('The TORCH_LOGS server does not read this file.');
    return;
  }
  const rows: Row[] = [];
  for (const row of pickRows(options)) {
    rows.push(
      row.separator
        ? { label: row.label, kind: vscode.QuickPickItemKind.Separator, row }
        : { label: row.label, description: row.description, detail: row.detail, row },
    );
  }
  const picked = await vscode.window.showQuickPick(rows, {
    canPickMany: true,
    matchOnDescription: true,
    title: `Compose TORCH_LOGS (torch ${options.release})`,
    placeHolder: 'Goals and names to enable',
  });
  if (!picked || !picked.length) {
    return;
  }
  const levels = new Map<string, string>();
  for (const { row } of picked) {
    if (row.name && row.leveled) {
      const prefixes = options.names.find((n) => n.name === row.name)?.prefixes;
      const level = await vscode.window.showQuickPick(levelRows(row.name, prefixes), {
        title: `Level of ${row.name}`,
        placeHolder: '+name DEBUG, name INFO, -name ERROR',
      });
      if (!level) {
        return;
      }
      levels.set(row.name, level.item);
    }
  }
  const position = { line: editor.selection.active.line, character: editor.selection.active.character };
  const params = composeParams(uri, position, picked.map((p) => p.row), levels);
  const answer = parseAnswer(await client.sendRequest(COMPOSE_REQUEST, params));
  if (!answer) {
    return;
  }
  if (answer.edit) {
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(answer.edit as ProtocolWorkspaceEdit);
    await vscode.workspace.applyEdit(edit);
  } else if (answer.assignments.length) {
    const copy = 'Copy';
    const choice = await vscode.window.showInformationMessage(
      `${answer.message ?? 'Not written here'}: ${assignmentText(answer)}`,
      copy,
    );
    if (choice === copy) {
      await vscode.env.clipboard.writeText(assignmentText(answer));
    }
    return;
  } else if (answer.message) {
    void vscode.window.showInformationMessage(answer.message);
    return;
  }
  for (const after of answer.after) {
    void vscode.window.showInformationMessage(`Then ${after}.`);
  }
}
