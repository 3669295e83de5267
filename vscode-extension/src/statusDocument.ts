/**
 * Which document the status bar item describes (no `vscode` import, so the unit tests can
 * read it): the active text editor's document when the server checks it and it names a
 * TORCH_LOGS variable; else, in the notebook editor (no cell being edited, or a cell that
 * names none), the first cell of the active notebook that does. `undefined`: hide the item.
 */
export function statusDocument<D>(
  active: D | undefined,
  notebookCells: readonly D[] | undefined,
  relevant: (doc: D) => boolean,
): D | undefined {
  if (active !== undefined && relevant(active)) {
    return active;
  }
  return notebookCells?.find(relevant);
}
