/**
 * The VS Code side of torch-logs-lsp: starts the bundled Python language server and wires
 * settings, commands and the status bar. It holds no TORCH_LOGS logic: completion, hover and
 * diagnostics all come from the server.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CompletionRequest,
  DidChangeConfigurationNotification,
  HoverRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

import {
  bytecodeTag,
  checkEnvironment,
  describeSource,
  expandSetting,
  findOnPath,
  checkVersion,
  installCommand,
  PROBE_CODE,
  PROBE_ENVIRONMENT_CODE,
  ProbeResult,
  resolveInterpreter,
  serverSource,
  SERVER_DISTRIBUTION,
} from './interpreter';
import { COMPOSE_COMMAND, composeTorchLogs } from './composeCommand';
import { RestartQueue } from './restartQueue';
import { DOCUMENT_SELECTOR } from './selector';
import { statusDocument } from './statusDocument';
import {
  ExtensionSettings,
  needsRestart,
  newestRelease,
  parseTorchStatus,
  readSettings,
  releaseInUse,
  sameServerSettings,
  ServerSettings,
  toServerSettings,
  TorchStatus,
} from './settings';
import { hoverMarkdown, mentionsVariable, NameItem, namesMarkdown, statusText, variableColumn } from './text';

const CLIENT_ID = 'torchLogs';
const PYTHON_EXTENSION = 'ms-python.python';
const VIRTUAL_SCHEME = 'torch-logs';
/** Custom request (proposed): the torch release and interpreter the server uses for a document. */
const STATUS_REQUEST = 'torchLogs/status';
/** Custom request: the text of a read-only document the server serves (`torch-logs:/registry/...`). */
const REGISTRY_REQUEST = 'torchLogs/registry';


/** Minimal shape of the Python extension's public API (`environments` part) that we use. */
interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string } | undefined;
    resolveEnvironment(env: { id: string; path: string } | string): Promise<
      { executable?: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

type ServerState = 'starting' | 'running' | 'failed' | 'stopped';

class TorchLogsExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private settings: ExtensionSettings;
  private sentSettings: ServerSettings | undefined;
  private state: ServerState = 'stopped';
  private interpreter: string | undefined;
  private serverPython: string | undefined;
  private pythonEnvironment: string | undefined;
  /** Per document URI: the server's `torchLogs/status` answer; `false` once the server said it has no such request. */
  private readonly torchStatus = new Map<string, TorchStatus>();
  private statusRequestSupported = true;
  private readonly queue = new RestartQueue(() => this.restartNow());
  private readonly status: vscode.StatusBarItem;
  private readonly virtualDocs = new Map<string, string>();
  private readonly virtualChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly activatedAt = Date.now();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.OutputChannel,
  ) {
    this.settings = this.readSettings();
    this.status = vscode.window.createStatusBarItem('torchLogs.status', vscode.StatusBarAlignment.Right, 100);
    this.status.name = 'TORCH_LOGS';
    this.status.command = 'torchLogs.selectTorchVersion';
    this.disposables.push(this.status, this.virtualChanged);
  }

  log(message: string): void {
    this.output.appendLine(`[${new Date().toISOString().slice(11, 23)}] ${message}`);
  }

  register(): void {
    const cmd = (id: string, fn: (...args: unknown[]) => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, fn));
    cmd('torchLogs.restart', () => this.queue.request());
    cmd('torchLogs.showOutput', () => this.output.show(true));
    cmd('torchLogs.explain', () => this.explain());
    cmd('torchLogs.showNames', () => this.showNames());
    cmd('torchLogs.selectTorchVersion', () => this.selectTorchVersion());
    cmd('torchLogs.selectInterpreter', () => this.selectInterpreter());
    cmd(COMPOSE_COMMAND, () => composeTorchLogs(() => this.ensureClient()));

    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(VIRTUAL_SCHEME, {
        onDidChange: this.virtualChanged.event,
        provideTextDocumentContent: (uri) => this.virtualDocs.get(uri.toString()) ?? this.serverDocument(uri),
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigurationChanged(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log('workspace trusted: restarting to use the workspace interpreter');
        void this.queue.request();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateStatus()),
      vscode.window.onDidChangeActiveNotebookEditor(() => this.updateStatus()),
      vscode.workspace.onDidChangeNotebookDocument((e) => {
        if (e.notebook === vscode.window.activeNotebookEditor?.notebook) {
          this.updateStatus();
        }
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === vscode.window.activeTextEditor?.document) {
          this.updateStatus();
        }
      }),
    );
    void this.watchPythonExtension();
  }

  private readSettings(): ExtensionSettings {
    const config = vscode.workspace.getConfiguration('torchLogs');
    return readSettings((key) => config.get(key));
  }

  private serverSettings(): ServerSettings {
    return toServerSettings(this.settings, {
      trusted: vscode.workspace.isTrusted,
      selectedPython: this.pythonEnvironment,
      serverPython: this.serverPython,
      newestRelease: newestRelease(this.packagedReleases()),
      expand: (value) => expandSetting(value, this.settingVariables()),
      insideWorkspace: (file) => this.insideWorkspace(file),
    });
  }

  /** Whether `file` (symbolic links resolved) lies inside a workspace folder. */
  private insideWorkspace(file: string): boolean {
    const real = (p: string) => {
      try {
        return fs.realpathSync(p);
      } catch {
        return path.resolve(p);
      }
    };
    const target = real(file);
    return (vscode.workspace.workspaceFolders ?? []).some((folder) => {
      const root = real(folder.uri.fsPath);
      return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
    });
  }

  /**
   * In an untrusted workspace, why an interpreter may not run: it lies inside the workspace
   * (a bare name is looked up on PATH first, which may hold the workspace's `.venv/bin`).
   */
  private async untrustedReason(command: string): Promise<string | undefined> {
    if (vscode.workspace.isTrusted) {
      return undefined;
    }
    const file = /[\\/]/.test(command) ? command : await findOnPath(command, process.env.PATH, (f) => this.isExecutable(f));
    return file && this.insideWorkspace(file)
      ? 'it is inside the workspace, which is not trusted (Restricted Mode runs no interpreter from the workspace)'
      : undefined;
  }

  /** What `${workspaceFolder}`, `${userHome}`/`~` and `${env:NAME}` stand for in path settings. */
  private settingVariables(): Parameters<typeof expandSetting>[1] {
    return { workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, home: os.homedir(), env: process.env };
  }

  private onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('torchLogs')) {
      return;
    }
    const next = this.readSettings();
    const restart = needsRestart(this.settings, next);
    this.settings = next;
    if (restart) {
      this.log('torchLogs.serverInterpreter or torchLogs.importStrategy changed: restarting the server');
      void this.queue.request();
    } else {
      this.pushSettings();
    }
    this.updateStatus();
  }

  /** Send the settings to a running server (workspace/didChangeConfiguration), if they changed. */
  private pushSettings(): void {
    const settings = this.serverSettings();
    if (!this.client || this.state !== 'running') {
      return; // the next start sends them as initializationOptions
    }
    if (this.sentSettings && sameServerSettings(this.sentSettings, settings)) {
      return;
    }
    this.sentSettings = settings;
    this.torchStatus.clear();
    this.log(`settings -> server: ${JSON.stringify(settings)}`);
    void this.client.sendNotification(DidChangeConfigurationNotification.type, { settings }).then(() => this.updateStatus());
  }

  // -- interpreters ----------------------------------------------------------------

  private pythonApi(): Promise<PythonApi | undefined> {
    const ext = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
    if (!ext) {
      return Promise.resolve(undefined);
    }
    return Promise.resolve(ext.isActive ? ext.exports : ext.activate()).then(
      (api) => api,
      (e) => {
        this.log(`the Python extension did not activate: ${e}`);
        return undefined;
      },
    );
  }

  private async pythonExtensionInterpreter(): Promise<string | undefined> {
    const api = await this.pythonApi();
    const envs = api?.environments;
    if (!envs) {
      return undefined;
    }
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = envs.getActiveEnvironmentPath(resource);
    if (!active) {
      return undefined;
    }
    const resolved = await envs.resolveEnvironment(active);
    return resolved?.executable?.uri?.fsPath ?? active.path;
  }

  private async watchPythonExtension(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      return;
    }
    const api = await this.pythonApi();
    const event = api?.environments?.onDidChangeActiveEnvironmentPath;
    if (!event) {
      return;
    }
    this.pythonEnvironment = await this.pythonExtensionInterpreter().catch(() => undefined);
    this.disposables.push(
      event(async () => {
        this.pythonEnvironment = await this.pythonExtensionInterpreter().catch(() => undefined);
        this.log(`Python environment changed: ${this.pythonEnvironment ?? '(none)'}`);
        if (this.state === 'failed') {
          void this.queue.request(); // the new interpreter may work where the old one did not
        } else {
          this.pushSettings(); // the server keeps running; only the checked environment changes
        }
      }),
    );
  }

  /**
   * Probe an interpreter, remembering successful answers per (path, size, mtime) so later
   * starts skip running Python once more (~0.2 s on a busy machine).
   */
  private async probe(command: string): Promise<ProbeResult> {
    const stat = await fs.promises.stat(command).catch(() => undefined);
    const key = stat ? `probe:${command}:${stat.size}:${stat.mtimeMs}` : undefined;
    const cached = key ? this.context.globalState.get<ProbeResult>(key) : undefined;
    if (cached?.version && !cached.error) {
      return cached;
    }
    const result = await this.runProbe(command);
    if (key && result.version && !result.error) {
      void this.context.globalState.update(key, result);
    }
    return result;
  }

  private runProbe(command: string, environment?: NodeJS.ProcessEnv): Promise<ProbeResult> {
    // -I -S: no site (.pth files, sitecustomize) and no environment: only the version
    // is asked, and a bare start takes ~10 ms where site can take ~50 ms. An environment
    // probe runs as the server will (site and the server's environment variables), as it
    // asks whether torch-logs-lsp can be imported there; it is never cached (a
    // `pip install` changes the answer, not the interpreter).
    const args = environment ? ['-c', PROBE_ENVIRONMENT_CODE] : ['-I', '-S', '-c', PROBE_CODE];
    const parse = environment ? checkEnvironment : checkVersion;
    return new Promise((resolve) => {
      execFile(command, args, { timeout: 10000, windowsHide: true, env: environment }, (err, stdout, stderr) => {
        if (err) {
          const detail = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : String(stderr || err.message).trim();
          resolve({ error: detail.split('\n').slice(-1)[0] || 'did not run' });
          return;
        }
        resolve(parse(stdout));
      });
    });
  }

  private isExecutable(file: string): Promise<boolean> {
    return fs.promises
      .stat(file)
      .then(async (st) => st.isFile() && (await fs.promises.access(file, fs.constants.X_OK).then(() => true, () => false)))
      .catch(() => false);
  }

  // -- the server ---------------------------------------------------------------------

  private async restartNow(): Promise<void> {
    const t0 = Date.now();
    if (this.client) {
      const old = this.client;
      this.client = undefined;
      this.log('stopping the server');
      try {
        await old.stop(2000);
      } catch (e) {
        this.log(`stop: ${e}`);
      }
    }
    this.setState('starting');
    this.settings = this.readSettings();
    const trusted = vscode.workspace.isTrusted;
    const setting = expandSetting(this.settings.serverInterpreter, this.settingVariables());
    const libs = this.context.asAbsolutePath(path.join('bundled', 'libs'));
    const bundled = fs.existsSync(libs);
    const strategy = this.settings.importStrategy;
    // the server's environment when it runs from the interpreter's environment
    const environmentEnv: NodeJS.ProcessEnv = { ...process.env, PYTHONUTF8: '1', PYTHONUNBUFFERED: '1' };
    const askEnvironment = !bundled || strategy === 'fromEnvironment';
    if (!bundled) {
      this.log(`no bundled server in this copy of the extension (${libs}): running the ${SERVER_DISTRIBUTION} installed in the interpreter's environment`);
    }
    const resolution = await resolveInterpreter({
      setting,
      trusted,
      pythonExtension: () => this.pythonExtensionInterpreter(),
      // untrusted: PATH entries inside the workspace (an activated .venv/bin) are skipped
      which: (name) =>
        findOnPath(name, process.env.PATH, async (f) => (await this.isExecutable(f)) && (trusted || !this.insideWorkspace(f))),
      probe: (c) => (askEnvironment ? this.runProbe(c, environmentEnv) : this.probe(c)),
      forbidden: (c) => this.untrustedReason(c),
      requireServer: !bundled,
    });
    for (const a of resolution.attempts) {
      const server = askEnvironment ? `, ${SERVER_DISTRIBUTION} ${a.installed ?? 'not installed'}` : '';
      this.log(`interpreter ${a.command} (${describeSource(a.source)}): ${a.error ?? 'Python ' + a.version + server}`);
    }
    if (!resolution.ok) {
      this.interpreter = undefined;
      this.serverPython = undefined;
      this.setState('failed');
      this.log(resolution.message);
      void this.showStartError(resolution.message);
      return;
    }
    const source = serverSource(strategy, bundled, resolution.installed);
    if (source.fallback) {
      this.log(
        `torchLogs.importStrategy is fromEnvironment but ${SERVER_DISTRIBUTION} is not installed in ${resolution.command}: using the bundled server (\`${installCommand(resolution.command)}\` installs it there)`,
      );
    }
    const fromEnvironment = source.from === 'environment';
    this.interpreter = `${resolution.command} (Python ${resolution.version}, ${describeSource(resolution.source)}${
      fromEnvironment ? `; ${SERVER_DISTRIBUTION} ${resolution.installed} from its environment` : ''
    })`;
    this.serverPython = resolution.command;
    this.torchStatus.clear();
    this.statusRequestSupported = true;

    const env: NodeJS.ProcessEnv = fromEnvironment ? environmentEnv : {
      ...process.env,
      PYTHONNOUSERSITE: '1',
      PYTHONUTF8: '1',
      PYTHONUNBUFFERED: '1',
    };
    delete env.PYTHONDONTWRITEBYTECODE;
    // The bundle ships bytecode for the CPython versions found when it was built; for
    // another version, compiled bytecode goes to the extension's storage (always writable):
    // the first start compiles, later ones load it (lsprotocol alone takes ~0.5 s more to
    // import without it). A cache prefix would hide the shipped bytecode, so it is set only
    // when there is none for this version.
    const tag = bytecodeTag(resolution.version);
    const shipped = tag && fs.existsSync(path.join(libs, 'lsprotocol', '__pycache__', `types.${tag}.pyc`));
    if (!shipped && !fromEnvironment) {
      env.PYTHONPYCACHEPREFIX = path.join(this.context.globalStorageUri.fsPath, 'pycache');
    }
    // The table of code that attrs/cattrs generate at start-up (half of the server's
    // start): the server reads the one shipped for this Python from the bundle and writes
    // its own here only when the shipped one does not fit (see server/codecache.py).
    env.TORCH_LOGS_LSP_CODE_CACHE = path.join(this.context.globalStorageUri.fsPath, 'code-cache');
    if (!fromEnvironment) {
      env.PYTHONPATH = libs; // the bundled server and its pinned dependencies
    }
    // -S with the bundle: the server needs nothing from the interpreter's site-packages,
    // and no .pth file or sitecustomize of the user's environment runs in it (~40 ms).
    // From the environment the server and its dependencies are in site-packages.
    // With a trace on, the server also logs its start-up time and cache use.
    const args = [...(fromEnvironment ? [] : ['-S']), '-m', 'torch_logs_lsp.server', ...(this.traceOn() ? ['--log-level', 'INFO'] : [])];
    const serverOptions: ServerOptions = {
      command: resolution.command,
      args,
      // stdio without TransportKind.stdio, which would append `--stdio` to the arguments
      options: { env },
    };
    const initializationOptions = this.serverSettings();
    let firstDiagnostics = false;
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions,
      markdown: { isTrusted: false, supportHtml: false },
      middleware: {
        handleDiagnostics: (uri, diagnostics, next) => {
          if (!firstDiagnostics) {
            firstDiagnostics = true; // when a start's first diagnostics reach the editor
            this.log(`first diagnostics received: ${diagnostics.length} for ${path.basename(uri.fsPath)}`);
          }
          next(uri, diagnostics);
        },
        // the same for diagnostics the client pulls (textDocument/diagnostic)
        provideDiagnostics: async (document, previousResultId, token, next) => {
          const report = await next(document, previousResultId, token);
          if (!firstDiagnostics && report) {
            firstDiagnostics = true;
            const uri = document instanceof vscode.Uri ? document : document.uri;
            const count = report.kind === 'full' ? report.items.length : 0;
            this.log(`first diagnostics received: ${count} for ${path.basename(uri.fsPath)}`);
          }
          return report;
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, 'TORCH_LOGS', serverOptions, clientOptions);
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setState('running');
      } else if (e.newState === State.Stopped && this.state === 'running') {
        this.setState('stopped');
      }
    });
    this.client = client;
    this.sentSettings = initializationOptions;
    this.log(
      `starting: ${resolution.command} ${args.join(' ')} (${fromEnvironment ? 'server from the environment' : `PYTHONPATH=${env.PYTHONPATH ?? ''}`})`,
    );
    try {
      await client.start();
    } catch (e) {
      if (this.client === client) {
        this.client = undefined;
      }
      this.setState('failed');
      const message = `The TORCH_LOGS server did not start with ${resolution.command}: ${e instanceof Error ? e.message : e}`;
      this.log(message);
      void this.showStartError(message);
      return;
    }
    this.setState('running');
    this.log(
      `server running (${Date.now() - t0} ms to start; ${Date.now() - this.activatedAt} ms since activation) with ${this.interpreter}`,
    );
    this.pushSettings(); // settings that changed while it was starting
  }

  private traceOn(): boolean {
    const trace = vscode.workspace.getConfiguration('torchLogs').get<string>('trace.server', 'off');
    return trace !== 'off';
  }

  private async showStartError(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Select Interpreter', 'Show Output');
    if (choice === 'Select Interpreter') {
      await this.selectInterpreter();
    } else if (choice === 'Show Output') {
      this.output.show(true);
    }
  }

  private async selectInterpreter(): Promise<void> {
    if (vscode.extensions.getExtension(PYTHON_EXTENSION) && !this.settings.serverInterpreter) {
      await vscode.commands.executeCommand('python.setInterpreter');
      return;
    }
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: 'Use this Python for the TORCH_LOGS server',
      title: 'Python 3.10 or newer',
    });
    if (picked?.[0]) {
      await vscode.workspace
        .getConfiguration('torchLogs')
        .update('serverInterpreter', picked[0].fsPath, vscode.ConfigurationTarget.Global);
    }
  }

  stop(): Promise<void> | undefined {
    const c = this.client;
    this.client = undefined;
    return c?.stop();
  }

  start(): Promise<void> {
    return this.queue.request();
  }

  // -- commands ---------------------------------------------------------------------

  private async ensureClient(): Promise<LanguageClient | undefined> {
    if (!this.client || this.state !== 'running') {
      await this.queue.request();
    }
    if (!this.client || this.state !== 'running') {
      void vscode.window.showErrorMessage('The TORCH_LOGS server is not running.', 'Show Output').then((c) => {
        if (c) {
          this.output.show(true);
        }
      });
      return undefined;
    }
    return this.client;
  }

  private async hoverAt(client: LanguageClient, doc: vscode.TextDocument, pos: vscode.Position): Promise<string> {
    const params = client.code2ProtocolConverter.asTextDocumentPositionParams(doc, pos);
    const hover = await client.sendRequest(HoverRequest.type, params);
    return hover ? hoverMarkdown(hover.contents) : '';
  }

  /** Explain: the server's hover on the TORCH_LOGS variable name (its effective configuration). */
  private async explain(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Open a file with a TORCH_LOGS value first.');
      return;
    }
    const client = await this.ensureClient();
    if (!client) {
      return;
    }
    const doc = editor.document;
    const cursor = editor.selection.active;
    let markdown = '';
    // The variable name is usually on the cursor's line; a shell line continuation may put
    // the value a few lines below it.
    for (let line = cursor.line; line >= Math.max(0, cursor.line - 5) && !markdown; line--) {
      const text = doc.lineAt(line).text;
      const col = variableColumn(text, line === cursor.line ? cursor.character : text.length);
      if (col !== undefined) {
        markdown = await this.hoverAt(client, doc, new vscode.Position(line, col + 1));
      }
    }
    if (!markdown) {
      markdown = await this.hoverAt(client, doc, cursor);
    }
    if (!markdown) {
      void vscode.window.showInformationMessage('No TORCH_LOGS value at the cursor.');
      return;
    }
    const where = `${vscode.workspace.asRelativePath(doc.uri)}:${cursor.line + 1}`;
    await this.showMarkdown('Explain TORCH_LOGS.md', `# TORCH_LOGS at ${where}\n\n${markdown}\n`);
  }

  /**
   * Show all names: the server's completion list for an empty value, formatted as a table.
   * The request goes to a scratch `.env` file in the extension's storage (never opened in an
   * editor, so no diagnostics are published for it).
   */
  private async showNames(): Promise<void> {
    const client = await this.ensureClient();
    if (!client) {
      return;
    }
    const dir = this.context.globalStorageUri.fsPath;
    await fs.promises.mkdir(dir, { recursive: true });
    const file = path.join(dir, 'all-names.env');
    await fs.promises.writeFile(file, 'TORCH_LOGS=\n');
    const result = await client.sendRequest(CompletionRequest.type, {
      textDocument: { uri: vscode.Uri.file(file).toString() },
      position: { line: 0, character: 'TORCH_LOGS='.length },
    });
    const items = (Array.isArray(result) ? result : result?.items ?? []) as NameItem[];
    if (!items.length) {
      void vscode.window.showWarningMessage('The TORCH_LOGS server returned no names; see the output.');
      return;
    }
    const doc = vscode.window.activeTextEditor?.document;
    const known = doc ? this.torchStatus.get(doc.uri.toString()) : undefined;
    const { release, origin } = known
      ? { release: known.release, origin: known.how }
      : releaseInUse(this.settings, this.packagedReleases(), vscode.workspace.isTrusted);
    await this.showMarkdown('TORCH_LOGS names.md', namesMarkdown(items, release, origin));
  }

  /**
   * A read-only document the server writes: the packaged registry of a torch release
   * (`torch-logs:/registry/2.15/_registrations.py`), where Go to Definition leads when no torch
   * of that release is installed. Empty when the server is not running or does not know it.
   */
  private async serverDocument(uri: vscode.Uri): Promise<string> {
    const client = this.client;
    if (!client || this.state !== 'running') {
      return '';
    }
    try {
      const answer = await client.sendRequest<{ text?: unknown } | null>(REGISTRY_REQUEST, { uri: uri.toString() });
      return typeof answer?.text === 'string' ? answer.text : '';
    } catch (e) {
      this.log(`${REGISTRY_REQUEST} failed for ${uri.toString()}: ${String(e)}`);
      return '';
    }
  }

  private async showMarkdown(name: string, markdown: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: VIRTUAL_SCHEME, path: '/' + name });
    this.virtualDocs.set(uri.toString(), markdown);
    this.virtualChanged.fire(uri);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  }

  /** The releases of `torchLogs.torchVersion`'s enum in package.json (the single source). */
  private packagedReleases(): string[] {
    const prop = this.context.extension.packageJSON?.contributes?.configuration?.properties?.['torchLogs.torchVersion'];
    return ((prop?.enum as string[] | undefined) ?? []).filter((r) => r !== 'auto');
  }

  private async selectTorchVersion(): Promise<void> {
    const prop = this.context.extension.packageJSON?.contributes?.configuration?.properties?.['torchLogs.torchVersion'];
    const values: string[] = prop?.enum ?? ['auto'];
    const descriptions: string[] = prop?.markdownEnumDescriptions ?? [];
    const current = this.settings.torchVersion;
    const picked = await vscode.window.showQuickPick(
      values.map((v, i) => ({
        label: v,
        description: (v === current ? '(current) ' : '') + (descriptions[i] ?? '').replace(/`/g, ''),
      })),
      { title: 'TORCH_LOGS: torch release whose names are valid', placeHolder: `now: ${current}` },
    );
    if (!picked || picked.label === current) {
      return;
    }
    const config = vscode.workspace.getConfiguration('torchLogs');
    const inspected = config.inspect('torchVersion');
    const target =
      inspected?.workspaceValue !== undefined || vscode.workspace.workspaceFolders?.length
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
    await config.update('torchVersion', picked.label, target);
  }

  // -- status bar ----------------------------------------------------------------------

  private setState(state: ServerState): void {
    this.state = state;
    this.updateStatus();
  }

  updateStatus(): void {
    // the active editor's document, or in the notebook editor the first cell we check
    const cells = vscode.window.activeNotebookEditor?.notebook.getCells().map((c) => c.document);
    const doc = statusDocument(
      vscode.window.activeTextEditor?.document,
      cells,
      (d) => vscode.languages.match(DOCUMENT_SELECTOR, d) > 0 && mentionsVariable(d.getText()),
    );
    if (!doc) {
      this.status.hide();
      return;
    }
    const known = this.torchStatus.get(doc.uri.toString());
    if (!known) {
      this.requestTorchStatus(doc);
    }
    const { release, origin } = known
      ? { release: known.release, origin: known.how }
      : releaseInUse(this.settings, this.packagedReleases(), vscode.workspace.isTrusted);
    const { text, tooltip } = statusText({
      release,
      origin,
      trusted: vscode.workspace.isTrusted,
      state: this.state,
      interpreter: this.interpreter,
    });
    this.status.text = text;
    this.status.tooltip = tooltip;
    this.status.command = this.state === 'failed' ? 'torchLogs.showOutput' : 'torchLogs.selectTorchVersion';
    this.status.backgroundColor =
      this.state === 'failed' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.status.show();
  }

  /** Ask the server which torch it uses for a document (once per document and settings). */
  private requestTorchStatus(doc: vscode.TextDocument): void {
    const client = this.client;
    if (!client || this.state !== 'running' || !this.statusRequestSupported) {
      return;
    }
    const uri = doc.uri.toString();
    client.sendRequest(STATUS_REQUEST, { textDocument: { uri } }).then(
      (raw) => {
        const status = parseTorchStatus(raw);
        if (status && client === this.client) {
          this.torchStatus.set(uri, status);
          this.updateStatus();
        }
      },
      (e: { code?: number }) => {
        if (e?.code === -32601) {
          this.statusRequestSupported = false; // MethodNotFound: an older server
        }
      },
    );
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }
}

let extension: TorchLogsExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('TORCH_LOGS');
  context.subscriptions.push(output);
  extension = new TorchLogsExtension(context, output);
  context.subscriptions.push(extension);
  extension.register();
  extension.log(
    `activating ${context.extension.id} ${context.extension.packageJSON?.version} (workspace ${
      vscode.workspace.isTrusted ? 'trusted' : 'restricted mode'
    })`,
  );
  extension.updateStatus();
  await extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}
