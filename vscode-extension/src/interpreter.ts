/**
 * Which Python runs the bundled server. Plain TypeScript (no `vscode` import) so the order
 * can be unit-tested: every effect (probing a Python, searching PATH, asking the Python
 * extension) is passed in.
 *
 * Order:
 *   1. `torchLogs.serverInterpreter` when set. If it does not work we stop there with an
 *      error: silently running another Python than the one the user chose hides mistakes.
 *   2. The Python extension's active interpreter (only in a trusted workspace: it is usually
 *      the workspace's own virtualenv). If it does not work (e.g. Python 3.8) we go on.
 *   3. `python3`, then `python`, on PATH.
 *
 * Where the server's code comes from (`torchLogs.importStrategy`, the convention of the Python
 * tools extension template): `useBundled` runs the server bundled in the .vsix;
 * `fromEnvironment` runs the `torch-logs-lsp` installed in the interpreter's environment
 * and falls back to the bundle when it is not installed there. The platform-neutral .vsix
 * has no bundle: there every candidate interpreter must have `torch-logs-lsp` installed
 * ({@link ResolveInput.requireServer}).
 */

export type ImportStrategy = 'useBundled' | 'fromEnvironment';
export const IMPORT_STRATEGIES: readonly ImportStrategy[] = ['useBundled', 'fromEnvironment'];
/** The distribution the environment must have (PyPI name) and the module the server runs. */
export const SERVER_DISTRIBUTION = 'torch-logs-lsp';
export const SERVER_MODULE = 'torch_logs_lsp.server';

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export type InterpreterSource = 'setting' | 'python-extension' | 'path';

export interface ProbeResult {
  /** `major.minor.micro` when the interpreter ran. */
  version?: string;
  /** Why it could not be used (did not start, too old, ...). */
  error?: string;
  /**
   * Environment probes only ({@link PROBE_ENVIRONMENT_CODE}): the version of `torch-logs-lsp`
   * installed in the interpreter's environment; undefined when it is not installed.
   */
  installed?: string;
}

export interface Attempt {
  command: string;
  source: InterpreterSource;
  error?: string;
  version?: string;
  installed?: string;
}

export interface ResolveInput {
  /** The setting, already expanded (see {@link expandSetting}); empty when unset. */
  setting: string;
  /** Workspace trust: in an untrusted workspace the Python extension is not asked. */
  trusted: boolean;
  /** The Python extension's active interpreter (path), or undefined. */
  pythonExtension?: () => Promise<string | undefined>;
  /** Absolute path of an executable on PATH, or undefined. */
  which: (name: string) => Promise<string | undefined>;
  /** Run `python -c ...` and report its version. */
  probe: (command: string) => Promise<ProbeResult>;
  /**
   * Why a candidate may not be run at all (in an untrusted workspace: it lies inside the
   * workspace), or undefined. Checked before the probe, which would already run it.
   */
  forbidden?: (command: string) => Promise<string | undefined>;
  /**
   * There is no bundled server: an interpreter is usable only when its probe reports
   * `torch-logs-lsp` installed (the probe must be an environment probe).
   */
  requireServer?: boolean;
}

export type Resolution =
  | {
      ok: true;
      command: string;
      source: InterpreterSource;
      version: string;
      /** torch-logs-lsp's version in the interpreter's environment (environment probes). */
      installed?: string;
      attempts: Attempt[];
    }
  | { ok: false; message: string; attempts: Attempt[] };

/** Parse the probe's output (`3.11.7`) and check it against {@link MIN_PYTHON}. */
export function checkVersion(output: string): ProbeResult {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(output.trim());
  if (!m) {
    return { error: `unexpected output ${JSON.stringify(output.trim().slice(0, 80))}` };
  }
  const version = `${m[1]}.${m[2]}.${m[3]}`;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    return { version, error: `Python ${version} is too old (the server needs ${MIN_PYTHON.join('.')} or newer)` };
  }
  return { version };
}

/** The code the probe runs: prints `major.minor.micro`. */
/**
 * The tag CPython gives the bytecode files of a version (`3.11.7` -> `cpython-311`), as in
 * `__pycache__/types.cpython-311.pyc`; undefined for a version it cannot read.
 */
export function bytecodeTag(version: string): string | undefined {
  const m = /^(\d+)\.(\d+)/.exec(version);
  return m ? `cpython-${m[1]}${m[2]}` : undefined;
}

export const PROBE_CODE = "import sys; print('%d.%d.%d' % sys.version_info[:3])";

/**
 * The code of an environment probe: the version (`3.11.7`) on the first line, then the
 * version of the installed `torch-logs-lsp` whose server module can be found, or `-`. Nothing
 * is imported but the (namespace) package `torch_logs_lsp` that holds the module.
 */
export const PROBE_ENVIRONMENT_CODE = [
  'import sys, importlib.util as u, importlib.metadata as m',
  "print('%d.%d.%d' % sys.version_info[:3])",
  'try:',
  `    print(m.version('${SERVER_DISTRIBUTION}') if u.find_spec('${SERVER_MODULE}') else '-')`,
  'except Exception:',
  "    print('-')",
].join('\n');

/** Parse an environment probe's output (see {@link PROBE_ENVIRONMENT_CODE}). */
export function checkEnvironment(output: string): ProbeResult {
  const [first = '', second = ''] = output.trim().split(/\r?\n/);
  const result = checkVersion(first);
  const installed = second.trim();
  return installed && installed !== '-' ? { ...result, installed } : result;
}

/** The command that installs the server into an interpreter's environment. */
export function installCommand(python: string): string {
  const quoted = /[\s"']/.test(python) ? `"${python}"` : python;
  return `${quoted} -m pip install ${SERVER_DISTRIBUTION}`;
}

/** The reason an interpreter cannot run the server when there is no bundle. */
export function notInstalledReason(python: string): string {
  return `${SERVER_DISTRIBUTION} is not installed in it (install it with \`${installCommand(python)}\`)`;
}

/**
 * Run the bundled server or the environment's. `bundled`: the .vsix has a bundle;
 * `installed`: torch-logs-lsp's version in the interpreter's environment (undefined: not
 * installed or not probed). `fallback` is set when `fromEnvironment` had to use the bundle.
 */
export function serverSource(
  strategy: ImportStrategy,
  bundled: boolean,
  installed: string | undefined,
): { from: 'bundle' | 'environment'; fallback?: boolean } {
  if (!bundled) {
    return { from: 'environment' };
  }
  if (strategy === 'fromEnvironment') {
    return installed ? { from: 'environment' } : { from: 'bundle', fallback: true };
  }
  return { from: 'bundle' };
}

/** `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~` in the setting. */
export function expandSetting(
  value: string | undefined,
  vars: { workspaceFolder?: string; home: string; env: Record<string, string | undefined> },
): string {
  let out = (value ?? '').trim();
  if (!out) {
    return '';
  }
  if (out === '~' || out.startsWith('~/')) {
    out = vars.home + out.slice(1);
  }
  out = out.replace(/\$\{userHome\}/g, vars.home);
  out = out.replace(/\$\{env:([^}]+)\}/g, (_, name: string) => vars.env[name] ?? '');
  if (vars.workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, vars.workspaceFolder);
  }
  return out;
}

export async function resolveInterpreter(input: ResolveInput): Promise<Resolution> {
  const attempts: Attempt[] = [];
  const tryOne = async (command: string, source: InterpreterSource): Promise<Attempt> => {
    let result: ProbeResult;
    try {
      const reason = input.forbidden ? await input.forbidden(command) : undefined;
      result = reason ? { error: reason } : await input.probe(command);
      if (input.requireServer && !result.error && !result.installed) {
        result = { ...result, error: notInstalledReason(command) };
      }
    } catch (e) {
      result = { error: e instanceof Error ? e.message : String(e) };
    }
    const attempt: Attempt = { command, source, ...result };
    attempts.push(attempt);
    return attempt;
  };
  const success = (a: Attempt): Resolution => ({
    ok: true,
    command: a.command,
    source: a.source,
    version: a.version ?? '?',
    ...(a.installed ? { installed: a.installed } : {}),
    attempts,
  });

  if (input.setting) {
    const a = await tryOne(input.setting, 'setting');
    if (!a.error) {
      return success(a);
    }
    return {
      ok: false,
      attempts,
      message:
        `torchLogs.serverInterpreter is "${input.setting}", which cannot run the TORCH_LOGS server: ${a.error}.` +
        (input.requireServer
          ? ` This copy of the extension bundles no server (the platform-neutral .vsix): install ${SERVER_DISTRIBUTION} there, choose an interpreter that has it, or install the .vsix built for your platform.`
          : ''),
    };
  }

  if (input.trusted && input.pythonExtension) {
    let fromExtension: string | undefined;
    try {
      fromExtension = await input.pythonExtension();
    } catch {
      fromExtension = undefined;
    }
    if (fromExtension) {
      const a = await tryOne(fromExtension, 'python-extension');
      if (!a.error) {
        return success(a);
      }
    }
  }

  for (const name of ['python3', 'python']) {
    const found = await input.which(name);
    if (!found) {
      continue;
    }
    const a = await tryOne(found, 'path');
    if (!a.error) {
      return success(a);
    }
  }

  const tried = attempts.length
    ? ' Tried: ' + attempts.map((a) => `${a.command} (${a.error})`).join('; ') + '.'
    : ' No python3 or python was found on PATH.';
  const needs = input.requireServer
    ? `This copy of the extension bundles no server (the platform-neutral .vsix): it runs the ${SERVER_DISTRIBUTION} installed in the environment of a Python ${MIN_PYTHON.join('.')} or newer.`
    : `The TORCH_LOGS server needs Python ${MIN_PYTHON.join('.')} or newer.`;
  const todo = input.requireServer
    ? ` Install it (\`pip install ${SERVER_DISTRIBUTION}\`) into the interpreter of your choice and select that interpreter, or install the .vsix built for your platform, which bundles the server.`
    : ' Select an interpreter or set torchLogs.serverInterpreter.';
  return { ok: false, attempts, message: `${needs}${tried}${todo}` };
}

/** Search PATH like `which` (POSIX and Windows), with the file check passed in. */
export async function findOnPath(
  name: string,
  pathVar: string | undefined,
  isExecutable: (file: string) => Promise<boolean>,
  platform: string = process.platform,
): Promise<string | undefined> {
  const sep = platform === 'win32' ? ';' : ':';
  const exts = platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  const join = (dir: string, file: string) =>
    dir.endsWith('/') || dir.endsWith('\\') ? dir + file : dir + (platform === 'win32' ? '\\' : '/') + file;
  for (const dir of (pathVar ?? '').split(sep)) {
    if (!dir) {
      continue; // an empty entry means the current folder: never run a workspace binary by accident
    }
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (await isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

export function describeSource(source: InterpreterSource): string {
  switch (source) {
    case 'setting':
      return 'torchLogs.serverInterpreter';
    case 'python-extension':
      return "the Python extension's interpreter";
    case 'path':
      return 'PATH';
  }
}
