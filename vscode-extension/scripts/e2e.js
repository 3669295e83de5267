// The browser half of scripts/e2e.sh: drives VS Code (code-server) in Debian's chromium with
// playwright-core and checks what a user sees. Usage: node e2e.js <url> <artifacts-dir>
// Env: PLAYWRIGHT (path to playwright-core), DESCRIPTIONS (core/data/descriptions.json).
// DOM selectors as verified in shared/recipes/vscode-e2e/e2e.js.
'use strict';
const { chromium } = require(process.env.PLAYWRIGHT || 'playwright-core');
const fs = require('fs');
const path = require('path');

const [url, out] = process.argv.slice(2);
const descriptions = JSON.parse(fs.readFileSync(process.env.DESCRIPTIONS, 'utf8')).names;
const t0 = Date.now();
const lap = (m) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s ${new Date().toISOString().slice(11, 23)}] ${m}`);
const result = { checks: {}, blocked: [], pageErrors: [] };
let page;

function check(name, ok, detail) {
  result.checks[name] = { ok: !!ok, detail };
  lap(`${ok ? 'PASS' : 'FAIL'} ${name}${detail === undefined ? '' : ': ' + JSON.stringify(detail).slice(0, 300)}`);
}

const editorSel = '.editor-group-container.active .editor-instance .monaco-editor';

async function quickOpen(file) {
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type(file);
  // the row whose file name is exactly `file` (typing ".env" also lists inductor.env, ...)
  const row = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${file.replace(/\./g, '\\.')}\\s*$`) }) })
    .first();
  await row.waitFor({ timeout: 20000 });
  return row;
}

async function openFile(file, lineText) {
  const editor = page.locator(editorSel).first();
  const line = editor.locator('.view-line', { hasText: lineText }).first();
  // Quick Open's list re-renders while results come in (rows are reused), so a click can land
  // on another file: check the editor's content and try again.
  const exact = new RegExp(`^\\s*${file.replace(/\./g, '\\.')}\\s*$`);
  for (let attempt = 1; ; attempt++) {
    const tab = page.locator('.tabs-container .tab').filter({ has: page.locator('.label-name', { hasText: exact }) });
    if (await tab.count()) {
      await tab.first().click(); // already open: its tab
    } else {
      await (await quickOpen(file)).click();
    }
    try {
      await line.waitFor({ timeout: attempt < 3 ? 5000 : 30000 });
      return editor;
    } catch (e) {
      if (attempt >= 3) throw e;
      lap(`quick open of ${file} landed elsewhere; again`);
    }
  }
}

/** Screen box of the first occurrence of `needle` on the view line containing `lineText`
 * (in the editors `sel` selects: by default the active text editor). */
async function textBox(lineText, needle, sel = editorSel) {
  return page.evaluate(
    ({ sel, lineText, needle }) => {
      const lines = [...document.querySelectorAll(`${sel} .view-line`)];
      const line = lines.find((l) => l.textContent.replace(/\u00a0/g, ' ').includes(lineText));
      if (!line) return null;
      const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
      const nodes = [];
      let full = '';
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        nodes.push({ n, start: full.length });
        full += n.textContent.replace(/\u00a0/g, ' ');
      }
      const at = full.indexOf(needle);
      if (at < 0) return null;
      const range = document.createRange();
      const locate = (offset) => {
        const hit = nodes.filter((x) => x.start <= offset).at(-1);
        return [hit.n, offset - hit.start];
      };
      range.setStart(...locate(at));
      range.setEnd(...locate(at + needle.length - 1));
      const r = range.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    },
    { sel, lineText, needle },
  );
}

async function hoverText(lineText, needle, sel = editorSel) {
  await page.mouse.move(5, 5);
  await page.waitForTimeout(100);
  const box = await textBox(lineText, needle, sel);
  if (!box) throw new Error(`"${needle}" not found on the line "${lineText}"`);
  await page.mouse.move(box.x + 2, box.y + box.height / 2);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
  const hover = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: needle }).first();
  await hover.waitFor({ state: 'visible', timeout: 20000 });
  return (await hover.innerText()).trim();
}

async function runCommand(title) {
  await page.keyboard.press('Control+Shift+P');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type(title);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await row.waitFor({ timeout: 20000 });
  await row.click();
}

/** Click recompiles.env in Quick Open; the times of the click and of its first squiggle. */
async function timedOpen() {
  const row = await quickOpen('recompiles.env');
  const click = Date.now();
  await row.click();
  await page.locator(editorSel).first().locator('.squiggly-error').first().waitFor({ state: 'attached', timeout: 30000 });
  return { click, squiggle: Date.now() };
}

/** A new window: close the editors and reload (a new extension host and server). */
async function reloadWindow() {
  await runCommand('View: Close All Editors');
  await page.reload();
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
}

/** Open `file` (a line of it holds `lineText`) and wait for its first squiggle. */
async function openUntilSquiggle(file, lineText) {
  await openFile(file, lineText);
  await page.locator(editorSel).first().locator('.squiggly-error').first().waitFor({ state: 'attached', timeout: 30000 });
}

/** The status bar item (`torch 2.15`), once shown. */
async function statusItem() {
  const status = page.locator('.statusbar-item', { hasText: /torch \d+\.\d+/ }).first();
  await status.waitFor({ timeout: 20000 });
  return status;
}

/** The Problems panel's row for `aot_g` whose text matches `re` (its text, or null). */
async function problemRow(re) {
  await page.keyboard.press('Control+Shift+M');
  const row = page.locator('.markers-panel .monaco-list-row').filter({ hasText: 'aot_g' }).filter({ hasText: re }).first();
  const ok = await row.waitFor({ timeout: 15000 }).then(() => true, () => false);
  const text = ok ? (await row.innerText()).replace(/\s+/g, ' ') : null;
  await page.keyboard.press('Control+Shift+M');
  return text;
}

/** Text of every frame (Markdown previews live in nested webview iframes). */
async function framesText(needle, timeout) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const f of page.frames().filter((f) => f !== page.mainFrame())) {
      const t = await f.evaluate(() => document.body?.innerText || '').catch(() => '');
      if (t.includes(needle)) return t;
    }
    await page.waitForTimeout(200);
  }
  return '';
}

(async () => {
  const ctx = await chromium.launchPersistentContext(path.join(out, 'chrome-profile'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'],
  });
  // the page may only talk to 127.0.0.1
  await ctx.route('**/*', (route) => {
    const u = route.request().url();
    if (/^(https?|wss?):\/\/127\.0\.0\.1[:/]/.test(u) || /^(data|blob):/.test(u)) return route.continue();
    result.blocked.push(u);
    return route.abort();
  });
  if (!process.env.E2E_SCENARIO) writeLinkFiles(); // before the window lists the files
  page = ctx.pages()[0] || (await ctx.newPage());
  page.on('pageerror', (e) => result.pageErrors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60000 });
  lap('workbench ready');

  if (process.env.E2E_SCENARIO === 'no-python') {
    // torchLogs.serverInterpreter points nowhere: a clear error with "Select Interpreter"
    await openFile('recompiles.env', 'TORCH_LOGS=aot_g');
    const toast = page.locator('.notification-toast', { hasText: 'torchLogs.serverInterpreter' }).first();
    await toast.waitFor({ timeout: 30000 });
    const toastText = (await toast.innerText()).replace(/\s+/g, ' ');
    check('error names the setting and the reason', /cannot run the TORCH_LOGS server: not found/.test(toastText), toastText);
    check('error offers Select Interpreter', await toast.getByRole('button', { name: 'Select Interpreter' }).isVisible(), null);
    const bad = page.locator('.statusbar-item', { hasText: 'TORCH_LOGS: no server' }).first();
    const shown = await bad.waitFor({ timeout: 20000 }).then(() => true, () => false);
    check('status bar item shows the failure', shown && /codicon-error/.test((await bad.innerHTML()) || ''), shown ? await bad.innerText() : null);
    await page.screenshot({ path: path.join(out, 'no-python.png') });
    return finish(ctx);
  }

  if (process.env.E2E_SCENARIO === 'neutral') {
    // the platform-neutral .vsix (no bundled server) with an interpreter that lacks
    // torch-logs-lsp: an error that says so and how to install it
    await openFile('recompiles.env', 'TORCH_LOGS=aot_g');
    const toast = page.locator('.notification-toast', { hasText: 'bundles no server' }).first();
    const shown = await toast.waitFor({ timeout: 30000 }).then(() => true, () => false);
    const toastText = shown ? (await toast.innerText()).replace(/\s+/g, ' ') : null;
    check('neutral .vsix: the error says torch-logs-lsp is not installed and how to install it',
      shown && /torch-logs-lsp is not installed in it/.test(toastText) && /pip install torch-logs-lsp/.test(toastText), toastText);
    check('neutral .vsix: the error offers Select Interpreter', shown && (await toast.getByRole('button', { name: 'Select Interpreter' }).isVisible()), null);
    const bad = page.locator('.statusbar-item', { hasText: 'TORCH_LOGS: no server' }).first();
    check('neutral .vsix: the status bar item shows the failure', await bad.waitFor({ timeout: 20000 }).then(() => true, () => false), null);
    await page.screenshot({ path: path.join(out, 'neutral.png') });
    return finish(ctx);
  }

  if (process.env.E2E_SCENARIO === 'neutral-env') {
    // the platform-neutral .vsix with an interpreter where torch-logs-lsp is installed:
    // the server of that environment runs (no bundle, no PYTHONPATH)
    await openUntilSquiggle('recompiles.env', 'TORCH_LOGS=aot_g');
    check('neutral .vsix: squiggle for aot_g from the environment\'s server', true, null);
    const row = await problemRow(/TL201/);
    check('neutral .vsix: Problems row for aot_g', !!row, row);
    const logText = extensionLog();
    check('neutral .vsix: the server was started from the environment', /server from the environment/.test(logText) && /no bundled server in this copy/.test(logText),
      (logText.match(/.*starting: .*/) || [null])[0]);
    await page.screenshot({ path: path.join(out, 'neutral-env.png') });
    return finish(ctx);
  }

  if (process.env.E2E_SCENARIO === 'floor') {
    // the same measurement as below, with a server that answers at once
    const first = await timedOpen();
    result.openToSquiggleMs = first.squiggle - first.click;
    await reloadWindow();
    const warm = await timedOpen();
    result.openToSquiggleWarmMs = warm.squiggle - warm.click;
    check('floor: squiggles from the instant server', true, null);
    return finish(ctx);
  }

  if (process.env.E2E_SCENARIO === 'untrusted') {
    // restricted mode: diagnostics from the packaged registry; the workspace's own
    // interpreters (.vscode/settings.json, .venv) are never run
    await openUntilSquiggle('recompiles.env', 'TORCH_LOGS=aot_g');
    check('squiggle for aot_g in restricted mode', true, null);
    const status = await statusItem();
    const statusHtml = (await status.innerHTML()) || '';
    check('status bar shows restricted mode (shield) and the packaged release', /codicon-shield/.test(statusHtml) && /torch 2\.15/.test(await status.innerText()), (await status.innerText()).trim());
    const row = await problemRow(/TL201/);
    check('Problems row for aot_g in restricted mode', !!row, row);
    const marks = ['evil/python3.RAN', '.venv/bin/python.RAN'].filter((m) => fs.existsSync(path.join(process.env.E2E_WS, m)));
    check('no interpreter of the workspace ran', marks.length === 0, marks);
    await page.screenshot({ path: path.join(out, 'untrusted.png') });
    return finish(ctx);
  }

  if (process.env.E2E_SCENARIO === 'python-extension') {
    // the server runs with the Python extension's interpreter (environment A, torch 2.4);
    // switching to environment B (no torch) changes the checked torch without a restart
    await openUntilSquiggle('recompiles.env', 'TORCH_LOGS=aot_g');
    const status = await statusItem();
    const statusShows = async (re) => {
      await page.locator('.statusbar-item', { hasText: re }).first().waitFor({ timeout: 10000 }).catch(() => {});
      return (await status.innerText()).trim();
    };
    const before = await statusShows(/torch 2\.4\b/);
    check("status bar: torch 2.4 from the Python extension's environment", /torch 2\.4$/.test(before), before);
    const p1 = await problemRow(/torch 2\.4\b/);
    check('diagnostic checks against torch 2.4', !!p1, p1);
    await runCommand('Stub Python: Switch Environment');
    const after = await statusShows(/torch 2\.15\b/);
    check('after switching to an environment without torch: torch 2.15 (packaged)', /torch 2\.15$/.test(after), after);
    const p2 = await problemRow(/torch 2\.15\b/);
    check('diagnostic re-checked against torch 2.15', !!p2, p2);
    // the extension's log: the server was started once, with environment A's interpreter
    let log = '';
    for (let i = 0; i < 50 && !/Python environment changed/.test(log); i++) {
      log = extensionLog();
      await page.waitForTimeout(100);
    }
    const starts = log.split('\n').filter((l) => l.includes('] starting: '));
    check("server started once, with the Python extension's interpreter", starts.length === 1 && /envA\/bin\/python -S -m torch_logs_lsp\.server/.test(starts[0]) && /the Python extension's interpreter/.test(log), starts);
    check('the environment change reached the server without a restart', /Python environment changed: .*envB\/bin\/python/.test(log) && !/stopping the server/.test(log), null);
    await page.screenshot({ path: path.join(out, 'python-extension.png') });
    return finish(ctx);
  }

  // 1. open envs/recompiles.env (activates the extension: the time includes the server's start)
  const opened = await timedOpen();
  result.openToSquiggleMs = opened.squiggle - opened.click;
  result.windows = [opened];
  let editor = page.locator(editorSel).first();
  lap(`open recompiles.env -> first squiggle: ${result.openToSquiggleMs} ms`);
  const squiggleBox = await editor.locator('.squiggly-error').first().boundingBox();
  const agBox = await textBox('TORCH_LOGS=aot_g', 'aot_g');
  check('squiggle under aot_g', squiggleBox && agBox && Math.abs(squiggleBox.x - agBox.x) < 4 && squiggleBox.width > agBox.width * 0.7, { squiggleBox, agBox });

  // 2. status bar: the torch release in use
  const status = page.locator('.statusbar-item', { hasText: /torch \d+\.\d+/ }).first();
  await status.waitFor({ timeout: 20000 });
  result.statusBar = (await status.innerText()).trim();
  check('status bar shows the torch release', /^torch \d+\.\d+$/.test(result.statusBar), result.statusBar);

  // 3. Problems panel row with our code
  await page.keyboard.press('Control+Shift+M');
  const rows = page.locator('.markers-panel .monaco-list-row');
  await rows.filter({ hasText: 'aot_g' }).first().waitFor({ timeout: 20000 });
  result.problems = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') || e.innerText));
  const problemText = await rows.filter({ hasText: 'aot_g' }).first().innerText();
  check('Problems row for aot_g with code TL201', /TL201/.test(problemText) && /aot_graphs/.test(problemText), problemText.replace(/\s+/g, ' '));
  // the code is a link to its section of the docs (the diagnostic's codeDescription.href)
  const codeLinks = await linkAttributes(rows.filter({ hasText: 'aot_g' }).first());
  check('Problems row: TL201 links to its section of docs/codes.md', codeLinks.some((v) => /docs\/codes\.md#tl201$/.test(v)), codeLinks);
  await page.screenshot({ path: path.join(out, 'problems.png') });
  // 3a. workspace diagnostics: a file never opened (containers/.devcontainer/devcontainer.json,
  // `gards`) is listed too (the panel's filter shows its row, whatever the list's length)
  const problemsFilter = page.locator('.markers-panel-action-filter input, .viewpane-filter input').first();
  await problemsFilter.fill('gards');
  const unopened = rows.filter({ hasText: 'gards' }).first();
  const listed = await unopened.waitFor({ timeout: 60000 }).then(() => true, () => false);
  result.unopenedProblem = listed ? (await unopened.innerText()).replace(/\s+/g, ' ') : null;
  check('Problems row for a file never opened (workspace diagnostics: gards in devcontainer.json)', listed && /TL201/.test(result.unopenedProblem) && /guards/.test(result.unopenedProblem), result.unopenedProblem);
  await page.screenshot({ path: path.join(out, 'problems-workspace.png') });
  await problemsFilter.fill('');
  await page.keyboard.press('Control+Shift+M'); // close the panel again

  // 3b. the same in a new window (page reload: a new extension host and server, with the
  // bytecode cache of the first start) -- the usual case after the first day
  await reloadWindow();
  const warm = await timedOpen();
  result.openToSquiggleWarmMs = warm.squiggle - warm.click;
  result.windows.push(warm);
  lap(`after reload: open recompiles.env -> first squiggle: ${result.openToSquiggleWarmMs} ms`);

  // 4. hover on guards in .env
  editor = await openFile('.env', 'TORCH_LOGS=+dynamo,guards');
  result.hoverGuards = await hoverText('TORCH_LOGS=+dynamo,guards', 'guards');
  const guardsDoc = descriptions.guards.en;
  check('hover on guards shows its description', result.hoverGuards.includes(guardsDoc.slice(0, 40)), result.hoverGuards);
  await page.screenshot({ path: path.join(out, 'hover.png') });

  // 4b. Go to Definition on guards: its register_artifact call, in the installed torch's
  // _registrations.py or (no torch of the release found) the packaged registry's read-only
  // torch-logs: document, whose text the extension asks the server for
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  const guardsBox = await textBox('TORCH_LOGS=+dynamo,guards', 'guards');
  await page.mouse.click(guardsBox.x + 4, guardsBox.y + guardsBox.height / 2);
  await page.keyboard.press('F12');
  const defTab = page.locator('.tabs-container .tab.active', { hasText: '_registrations.py' });
  await defTab.waitFor({ timeout: 30000 }).catch(() => {});
  result.definitionTab = (await page.locator('.tabs-container .tab.active').first().getAttribute('aria-label').catch(() => null)) || '';
  const defEditor = page.locator(editorSel).first();
  const defLine = defEditor.locator('.view-line', { hasText: '"guards"' }).first();
  await defLine.waitFor({ timeout: 20000 }).catch(() => {});
  result.definitionLine = (await defLine.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
  check('Go to Definition on guards opens _registrations.py at its registration',
    /_registrations\.py/.test(result.definitionTab) && /"guards"/.test(result.definitionLine),
    { tab: result.definitionTab, line: result.definitionLine });
  await page.screenshot({ path: path.join(out, 'definition.png') });
  editor = await openFile('.env', 'TORCH_LOGS=+dynamo,guards'); // back to the .env

  // 4c. Go to References on guards: with no torch of the release found, the registration
  // alone (includeDeclaration); one result: VS Code opens it (or peeks it)
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  const refBox = await textBox('TORCH_LOGS=+dynamo,guards', 'guards');
  await page.mouse.click(refBox.x + 4, refBox.y + refBox.height / 2);
  await page.keyboard.press('Shift+F12');
  const referenced = await page.waitForFunction(() => {
    const tab = document.querySelector('.tabs-container .tab.active');
    const peek = document.querySelector('.peekview-widget');
    const text = `${tab ? tab.getAttribute('aria-label') : ''} ${peek ? peek.textContent : ''}`;
    return /_registrations\.py/.test(text) ? text.slice(0, 200) : false;
  }, null, { timeout: 30000 }).then((h) => h.jsonValue(), () => '');
  check('Go to References on guards lists its registration', !!referenced, referenced);
  await page.keyboard.press('Escape');
  editor = await openFile('.env', 'TORCH_LOGS=+dynamo,guards'); // back to the .env

  // 5. completion after TORCH_LOGS=+dyn
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('TORCH_LOGS=+dyn', { delay: 20 });
  const sugg = page.locator('.editor-widget.suggest-widget.visible .monaco-list-row');
  try {
    await sugg.first().waitFor({ timeout: 5000 });
  } catch {
    await page.keyboard.press('Control+Space'); // in case quick suggestions were not triggered
    await sugg.first().waitFor({ timeout: 15000 });
  }
  await page.waitForTimeout(300);
  result.completions = await sugg.evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  const dynamoRow = result.completions.find((r) => r.startsWith('dynamo'));
  check('completion after TORCH_LOGS=+dyn offers dynamo with its detail', dynamoRow && /component/.test(dynamoRow), result.completions);
  await page.screenshot({ path: path.join(out, 'completion.png') });
  await sugg.filter({ has: page.locator('.label-name', { hasText: /^dynamo$/ }) }).first().click(); // accept dynamo
  await page.waitForTimeout(300);
  result.acceptedLine = await editor.locator('.view-line', { hasText: 'TORCH_LOGS=+dyn' }).last().innerText();
  check('accepting the completion writes +dynamo', /TORCH_LOGS=\+dynamo\s*$/.test(result.acceptedLine.replace(/\u00a0/g, ' ')), result.acceptedLine);

  // 6. launch.json (JSONC), a shell script, a Dockerfile, a workflow YAML, PowerShell, batch,
  // Makefile, pyproject.toml and pytest.ini are served too
  for (const [file, line] of [
    ['launch.json', '"TORCH_LOGS": "\\"dynamo\\""'],
    ['train.sh', 'export TORCH_LOGS="+dynamo ,guards"'],
    ['Dockerfile', 'ENV TORCH_LOGS="" \\'],
    ['train.yml', 'TORCH_LOGS=aot_g python train.py'],
    // PowerShell, batch, Makefile (by language), pyproject.toml and pytest.ini (by name)
    ['run.ps1', "$Env:TORCH_LOGS = 'aot_g'"],
    ['run.bat', 'set TORCH_LOGS=dynamo '],
    ['Makefile', 'export TORCH_LOGS=+dynamo ,guards'],
    ['pyproject.toml', '"TORCH_LOGS=Dynamo",'],
    ['pytest.ini', 'D:TORCH_LOGS=+dynamo,recompiles,graph_break'],
  ]) {
    const ed = await openFile(file, line.slice(0, 12));
    await ed.locator('.squiggly-error').first().waitFor({ state: 'attached', timeout: 20000 }).catch(() => {});
    const n = await ed.locator('.squiggly-error').count();
    check(`diagnostics in ${file}`, n > 0, n);
    await page.screenshot({ path: path.join(out, `${file.replace(/\W/g, '_')}.png`) });
  }

  // 7. commands: Show All Names (a Markdown preview listing every name)
  await runCommand('TORCH_LOGS: Show All Names');
  const namesText = await framesText('TORCH_LOGS names', 20000);
  check('Show All Names lists names with kinds', /dynamo/.test(namesText) && /guards/.test(namesText) && /torch \d+\.\d+/.test(namesText), namesText.slice(0, 200));
  await page.screenshot({ path: path.join(out, 'names.png') });

  // 8. Explain: the server's effective configuration of the value on the cursor's line
  editor = await openFile('.env', 'TORCH_LOGS=+dynamo,guards');
  const valueBox = await textBox('TORCH_LOGS=+dynamo,guards', 'output_code');
  await page.mouse.click(valueBox.x + 4, valueBox.y + valueBox.height / 2);
  await runCommand('TORCH_LOGS: Explain TORCH_LOGS Value at Cursor');
  // (step 5 typed a second TORCH_LOGS line at the end: this one is overwritten, TL502)
  const deadText = await framesText('TORCH_LOGS at .env:3', 20000);
  check('Explain on an overwritten value says it never reaches a process', /never reaches a process/.test(deadText), deadText.slice(0, 300));
  editor = await openFile('.env', 'TORCH_LOGS=+dynamo,guards'); // back from the preview
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End'); // the line that wins
  await runCommand('TORCH_LOGS: Explain TORCH_LOGS Value at Cursor');
  const explainText = await framesText('Effective configuration', 20000);
  check('Explain shows the effective configuration', /torch\._dynamo/.test(explainText) && /DEBUG/.test(explainText), explainText.slice(0, 300));
  await page.screenshot({ path: path.join(out, 'explain.png') });

  // README screenshot: a typo squiggled, its hover, our rows in the Problems panel, the status bar
  await runCommand('View: Close All Editors');
  const dontSave = page.getByRole('button', { name: /Don.t Save/ });
  if (await dontSave.isVisible({ timeout: 2000 }).catch(() => false)) await dontSave.click();
  await openFile('recompiles.env', 'TORCH_LOGS=aot_g');
  await page.keyboard.press('Control+Shift+M');
  const filter = page.locator('.markers-panel-action-filter input, .viewpane-filter input').first();
  if (await filter.isVisible({ timeout: 5000 }).catch(() => false)) await filter.fill('torch-logs');
  await page.locator(editorSel).first().locator('.view-lines').click();
  await hoverText('TORCH_LOGS=aot_g', 'aot_g').catch(() => '');
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(out, 'screenshot.png') });

  // 9. the quick fix renames aot_g and the squiggle goes away
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  const ag = await textBox('TORCH_LOGS=aot_g', 'aot_g');
  await page.mouse.click(ag.x + 4, ag.y + ag.height / 2);
  await page.keyboard.press('Control+.');
  const fixRow = page.locator('.action-widget .monaco-list-row', { hasText: /`aot_graphs`/ }).first();
  await fixRow.waitFor({ timeout: 20000 });
  result.quickFixes = await page.locator('.action-widget .monaco-list-row').allInnerTexts();
  await fixRow.click();
  const fixedEditor = page.locator(editorSel).first();
  await fixedEditor.locator('.view-line', { hasText: 'TORCH_LOGS=aot_graphs' }).first().waitFor({ timeout: 20000 });
  await page.waitForFunction(
    (sel) => document.querySelectorAll(`${sel} .squiggly-error`).length === 0, editorSel, { timeout: 20000 },
  ).catch(() => {});
  const left = await fixedEditor.locator('.squiggly-error').count();
  check('quick fix renames aot_g and removes the squiggle', left === 0, { quickFixes: result.quickFixes, squigglesLeft: left });
  await page.screenshot({ path: path.join(out, 'quickfix.png') });

  // 9b. Compose TORCH_LOGS: the goal "Where are the graph breaks?" rewrites the value on the
  // cursor's line (the cursor is still on the TORCH_LOGS line of recompiles.env)
  await runCommand('TORCH_LOGS: Compose TORCH_LOGS');
  const goal = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Where are the graph breaks?' }).first();
  await goal.waitFor({ timeout: 20000 });
  await goal.click(); // (a multi-select pick: the click checks the row)
  await page.keyboard.press('Enter');
  const composed = await fixedEditor.locator('.view-line', { hasText: 'TORCH_LOGS=graph_breaks' }).first()
    .waitFor({ timeout: 20000 }).then(() => true, () => false);
  result.composedLines = await fixedEditor.locator('.view-line').allInnerTexts();
  check('Compose TORCH_LOGS writes the goal\'s value', composed, result.composedLines);
  await page.screenshot({ path: path.join(out, 'compose.png') });

  // 9c. inlay hints after each item: the e2e settings show them while Ctrl+Alt is held
  // (editor.inlayHints.enabled offUnlessPressed), so the lines read above are as typed
  await openFile('.env', 'TORCH_LOGS=+dynamo,guards');
  await page.locator(editorSel).first().locator('.view-lines').click();
  await page.keyboard.down('Control');
  await page.keyboard.down('Alt');
  const hinted = await page.waitForFunction((sel) => {
    // a hint is text injected into the view line (or, in some versions, CSS content)
    const shown = (el) => [...el.querySelectorAll('span')].map((s) => {
      const before = getComputedStyle(s, '::before').content;
      const after = getComputedStyle(s, '::after').content;
      return [before, s.childElementCount ? '' : s.textContent, after].filter((t) => t && t !== 'none' && t !== 'normal').join('');
    }).join('').replace(/\u00a0/g, ' ');
    const line = [...document.querySelectorAll(`${sel} .view-line`)].map(shown).find((t) => t.startsWith('TORCH_LOGS=+dynamo'));
    return line && /DEBUG/.test(line) && /off by default/.test(line) ? line : false;
  }, editorSel, { timeout: 20000 }).then((h) => h.jsonValue(), () => '');
  await page.screenshot({ path: path.join(out, 'inlay-hints.png') });
  await page.keyboard.up('Alt');
  await page.keyboard.up('Control');
  check('inlay hints after +dynamo (DEBUG) and output_code (off by default, named)', !!hinted, hinted);

  // 10. links: a code in a suppression comment, existing TORCH_TRACE / TORCH_LOGS_OUT paths
  await linkChecks();

  // 11. a Jupyter notebook in VS Code's notebook editor (LSP notebook document sync)
  await notebookChecks();

  return finish(ctx);
})().catch(async (e) => {
  console.error('FAIL', e);
  try {
    await page.screenshot({ path: path.join(out, 'failure.png') });
  } catch {}
  fs.writeFileSync(path.join(out, 'result.json'), JSON.stringify(result, null, 2));
  process.exit(2);
});

/** The link targets (href, data-href, title) of the links inside `locator`. */
async function linkAttributes(locator) {
  return locator.locator('a, [href], [data-href]').evaluateAll((els) =>
    els.flatMap((e) => ['href', 'data-href', 'title'].map((a) => e.getAttribute(a)).filter(Boolean)));
}

/**
 * links.env, written into the workspace before the window opens (writeLinkFiles: Quick Open
 * lists the files it found then) with the directory and the file it names: the
 * hover on TL201 in its suppression comment gives the code's title and a link to its section
 * of the docs; the existing TORCH_TRACE directory and TORCH_LOGS_OUT file are document links
 * (underlined: Monaco's `.detected-link`); the missing one is not.
 */
function writeLinkFiles() {
  const ws = process.env.E2E_WS;
  fs.mkdirSync(path.join(ws, 'link-traces'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'link-logs'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'link-logs', 'out.log'), '');
  fs.writeFileSync(
    path.join(ws, 'links.env'),
    '# torch-logs: ignore[TL201]\nTORCH_LOGS=aot_g\nTORCH_TRACE=link-traces\nTORCH_LOGS_OUT=link-logs/out.log\nTORCH_LOGS_OUT=link-missing/out.log\n',
  );
}

async function linkChecks() {
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  const editor = await openFile('links.env', 'TORCH_TRACE=link-traces');
  const hover = await hoverText('# torch-logs: ignore[TL201]', 'TL201').catch((e) => String(e));
  const hoverBox = page.locator('.monaco-hover:not(.hidden)').filter({ hasText: 'TL201' }).first();
  const hoverLinks = (await hoverBox.count()) ? await linkAttributes(hoverBox) : [];
  check('hover on TL201 in a suppression comment: its title and a link to its docs',
    /TL201 · unknown name/.test(hover) && hoverLinks.some((v) => /docs\/codes\.md#tl201$/.test(v)), { hover, hoverLinks });
  await page.screenshot({ path: path.join(out, 'code-hover.png') });
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  const linked = async (lineText) => {
    const link = editor.locator('.view-line', { hasText: lineText }).first().locator('.detected-link');
    await link.first().waitFor({ state: 'attached', timeout: 20000 }).catch(() => {});
    return (await link.allInnerTexts()).join('');
  };
  const trace = await linked('TORCH_TRACE=link-traces');
  const logOut = await linked('TORCH_LOGS_OUT=link-logs/out.log');
  const missing = await editor.locator('.view-line', { hasText: 'link-missing' }).first().locator('.detected-link').count();
  check('document links: the existing TORCH_TRACE directory and TORCH_LOGS_OUT file, not the missing one',
    trace === 'link-traces' && logOut === 'link-logs/out.log' && missing === 0, { trace, logOut, missing });
  await page.screenshot({ path: path.join(out, 'document-links.png') });
}

/** The cells' editors of the notebook editor (VS Code lays it over the editor group, outside
 * the group's DOM: `.notebookOverlay`). */
const cellSel = '.notebookOverlay .cell-editor-container .monaco-editor';

/** The editor of the notebook cell with a line holding `lineText`. */
function cellEditor(lineText) {
  return page.locator(cellSel).filter({ has: page.locator('.view-line', { hasText: lineText }) }).first();
}

/**
 * examples/notebooks/debug.ipynb: cell 1 `import torch`, cell 2 markdown, cell 3
 * `%env TORCH_LOGS=`, cell 4 `os.environ["TORCH_LOGS"] = "aot_g"`. Cell 4 is plain Python:
 * its `aot_g` is squiggled (TL201) and, as the server knows the cells' order, the import in
 * cell 1 makes the write ineffective (TL501, a warning naming cell 1); the quick fix edits
 * the cell through notebookDocument/didChange. The `%env` cell needs the IPython host: its
 * check is skipped, with the reason logged, when that cell has no diagnostics.
 */
async function notebookChecks() {
  await page.keyboard.press('Escape');
  // no editor open: no status bar item (so the one below is the notebook's)
  await runCommand('View: Close All Editors');
  const dontSave = page.getByRole('button', { name: /Don.t Save/ });
  if (await dontSave.isVisible({ timeout: 2000 }).catch(() => false)) await dontSave.click();
  await page.locator('.statusbar-item', { hasText: /torch \d+\.\d+/ }).first().waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
  await (await quickOpen('debug.ipynb')).click();
  const line = 'os.environ["TORCH_LOGS"] = "aot_g"';
  const cell4 = cellEditor('os.environ');
  await cell4.waitFor({ timeout: 30000 });
  lap('notebook open in the notebook editor');
  // the status bar item shows in the notebook editor too (no cell being edited yet)
  const nbStatus = page.locator('.statusbar-item', { hasText: /torch \d+\.\d+/ }).first();
  const nbShown = await nbStatus.waitFor({ state: 'visible', timeout: 20000 }).then(() => true, () => false);
  check('notebook: the status bar item shows the torch release', nbShown, nbShown ? (await nbStatus.innerText()).trim() : null);
  await cell4.locator('.squiggly-error').first().waitFor({ state: 'attached', timeout: 30000 }).catch(() => {});
  const squiggle = await cell4.locator('.squiggly-error').first().boundingBox().catch(() => null);
  const ag = await textBox(line, 'aot_g', cellSel);
  check('notebook: squiggle under aot_g in cell 4 (TL201)', squiggle && ag && Math.abs(squiggle.x - ag.x) < 4 && squiggle.width > ag.width * 0.7, { squiggle, ag });
  const warnings = await cell4.locator('.squiggly-warning').count();
  const hover = await hoverText(line, 'aot_g', cellSel).catch((e) => String(e));
  check("notebook: cell 1's import makes cell 4's write ineffective (TL501 naming cell 1)", warnings > 0 && /TL501/.test(hover) && /cell 1/.test(hover), { warnings, hover });
  await page.screenshot({ path: path.join(out, 'notebook.png') });

  const cell3 = cellEditor('%env');
  const envMarks = (await cell3.count()) ? await cell3.locator('.squiggly-error, .squiggly-warning').count() : 0;
  if (envMarks > 0) {
    check('notebook: squiggle on %env TORCH_LOGS= (cell 3)', true, envMarks);
  } else {
    const reason = 'no diagnostics for the %env cell (cell 3): this build has no IPython host';
    result.skipped = [...(result.skipped || []), { check: 'notebook: squiggle on %env TORCH_LOGS= (cell 3)', reason }];
    lap(`SKIP notebook %env squiggle: ${reason}`);
  }

  // the quick fix renames aot_g inside the cell; the import-order warning stays
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');
  const at = await textBox(line, 'aot_g', cellSel);
  await page.mouse.click(at.x + 4, at.y + at.height / 2);
  await page.keyboard.press('Control+.');
  const fixRow = page.locator('.action-widget .monaco-list-row', { hasText: /`aot_graphs`/ }).first();
  const offered = await fixRow.waitFor({ timeout: 20000 }).then(() => true, () => false);
  if (offered) await fixRow.click();
  const fixed = cellEditor('aot_graphs');
  const edited = offered && (await fixed.waitFor({ timeout: 20000 }).then(() => true, () => false));
  if (edited) {
    await fixed.locator('.squiggly-error').first().waitFor({ state: 'detached', timeout: 20000 }).catch(() => {});
  }
  const errorsLeft = edited ? await fixed.locator('.squiggly-error').count() : -1;
  const warningsLeft = edited ? await fixed.locator('.squiggly-warning').count() : -1;
  check('notebook: quick fix in cell 4 renames aot_g; the TL501 warning stays', edited && errorsLeft === 0 && warningsLeft > 0, { offered, errorsLeft, warningsLeft });
  await page.screenshot({ path: path.join(out, 'notebook-quickfix.png') });
}

/** The extension's log lines (`[HH:MM:SS.mmm] ...`) of every window, for the timelines. */
function extensionLog() {
  const files = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : /TORCH_LOGS\.log$/.test(e.name) ? [path.join(dir, e.name)] : []);
  return process.env.E2E_LOGS ? files(process.env.E2E_LOGS).sort().map((f) => fs.readFileSync(f, 'utf8')).join('\n') : '';
}

/**
 * Where the time from the click to the squiggle went, per window, from the extension's log:
 * the click, the extension's activation, the server's spawn, its "ready" (imports done),
 * the answer to initialize ("server running") and the squiggle, in ms after the click.
 */
function timelines() {
  const log = extensionLog();
  const day = new Date().toISOString().slice(0, 11);
  const at = (line) => Date.parse(day + line.slice(1, 13) + 'Z');
  const windows = log.split(/(?=\[\d\d:\d\d:\d\d\.\d{3}\] activating )/).filter((w) => / activating /.test(w));
  return (result.windows || []).map((w, i) => {
    const lines = (windows[i] || '').split('\n');
    const find = (re) => lines.find((l) => re.test(l));
    const activated = find(/\] activating /);
    const spawned = find(/\] starting: /);
    const running = find(/\] server running /);
    const received = find(/\] first diagnostics received/);
    const ready = /ready (\d+) ms after main/.exec(find(/ready \d+ ms after main/) || '');
    const first = /first diagnostics published (\d+) ms after main\(\) began \((\d+) ms/.exec(find(/first diagnostics published/) || '');
    const rel = (line) => (line ? at(line) - w.click : NaN);
    return {
      activate: rel(activated),
      spawn: rel(spawned),
      serverImportsMs: ready ? Number(ready[1]) : NaN,
      serverFirstPublishMs: first ? Number(first[1]) : NaN,
      firstDocumentMs: first ? Number(first[2]) : NaN,
      initializeAnswered: rel(running),
      diagnosticsReceived: rel(received),
      squiggle: w.squiggle - w.click,
    };
  });
}

async function finish(ctx) {
  if (result.windows) {
    result.timelines = timelines();
    for (const [i, t] of result.timelines.entries()) {
      lap(`${i ? 'after reload' : 'first window'} (ms after the click): activate ${t.activate}, spawn ${t.spawn}, server ready after ${t.serverImportsMs} of its own, initialize answered ${t.initializeAnswered}, first diagnostics ${t.serverFirstPublishMs} after the server's start (the document: ${t.firstDocumentMs}), received by the extension ${t.diagnosticsReceived}, squiggle ${t.squiggle}`);
    }
  }
  result.ok = Object.values(result.checks).every((c) => c.ok) && result.blocked.length === 0;
  result.seconds = (Date.now() - t0) / 1000;
  fs.writeFileSync(path.join(out, 'result.json'), JSON.stringify(result, null, 2));
  lap(`${result.ok ? 'OK' : 'FAILED'}: ${Object.values(result.checks).filter((c) => c.ok).length}/${Object.keys(result.checks).length} checks` + (result.openToSquiggleMs ? `; open->squiggle ${result.openToSquiggleMs} ms (first window), ${result.openToSquiggleWarmMs} ms (after reload)` : ''));
  await ctx.close();
  process.exit(result.ok ? 0 : 1);
}
