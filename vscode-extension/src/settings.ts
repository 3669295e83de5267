/**
 * `torchLogs.*` settings: read them from VS Code's configuration, map them to what the server
 * accepts (`{"torchLogs": {...}}` in initializationOptions and in
 * workspace/didChangeConfiguration), and decide whether a change needs a restart.
 * No `vscode` import: unit-tested with plain objects.
 */
import { IMPORT_STRATEGIES, ImportStrategy } from './interpreter';

export const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'] as const;
export const LOCALES = ['auto', 'en', 'ru'] as const;
/** `torchLogs.diagnosticMode`: every file of the workspace folders, or the open files only. */
export const DIAGNOSTIC_MODES = ['workspace', 'openFilesOnly'] as const;

export interface ExtensionSettings {
  serverInterpreter: string;
  /** `torchLogs.importStrategy`: the bundled server or the environment's (see interpreter.ts). */
  importStrategy: ImportStrategy;
  /** `torchLogs.python`: the interpreter whose torch and modules are checked. */
  python: string;
  torchVersion: string;
  locale: string;
  severity: Record<string, string>;
  /** `torchLogs.inlayHints.enabled` when turned off (omitted: on, the default). */
  inlayHints?: false;
  diagnosticMode: string;
}

/** What the server reads (server/settings.py: camelCase keys under `torchLogs`). */
export interface ServerSettings {
  torchLogs: {
    locale: string;
    torchVersion: string;
    severity: Record<string, string>;
    /**
     * The interpreter whose torch (registry) and modules the server checks. Omitted: the
     * server looks for `.venv`/`venv` in the workspace, then `python3` on PATH.
     */
    python?: string;
    /** `torchLogs.inlayHints` when turned off (server/settings.py `InlayHints`; omitted: on). */
    inlayHints?: { enabled: false };
    /** Sent only when not the server's default (`workspace`). */
    diagnosticMode?: string;
  };
}

export interface Environment {
  /** Workspace trust. Untrusted: nothing from the workspace may be run or read as code. */
  trusted: boolean;
  /** The Python extension's selected interpreter for the workspace, when known. */
  selectedPython?: string;
  /** The interpreter running the server (never from the workspace when untrusted). */
  serverPython?: string;
  /** The newest packaged release (package.json's enum of torchLogs.torchVersion). */
  newestRelease: string;
  /**
   * Expands `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and `~` in a path setting
   * (see `expandSetting`); identity when omitted.
   */
  expand?: (value: string) => string;
  /**
   * Untrusted workspaces: whether an absolute path lies inside the workspace (such a
   * `torchLogs.python` is ignored, as is any path that is not absolute).
   */
  insideWorkspace?: (file: string) => boolean;
}

/** Read the settings through a getter (`vscode.WorkspaceConfiguration.get` for `torchLogs`). */
export function readSettings(get: (key: string) => unknown): ExtensionSettings {
  const str = (key: string, fallback: string): string => {
    const v = get(key);
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : fallback;
  };
  const severity: Record<string, string> = {};
  const raw = get('severity');
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [code, level] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof level === 'string') {
        // Unknown levels are passed on: the server reports them (one place validates).
        severity[code.trim()] = level.trim().toLowerCase();
      }
    }
  }
  const strategy = str('importStrategy', 'useBundled');
  return {
    serverInterpreter: str('serverInterpreter', ''),
    importStrategy: (IMPORT_STRATEGIES as readonly string[]).includes(strategy) ? (strategy as ImportStrategy) : 'useBundled',
    python: str('python', ''),
    torchVersion: str('torchVersion', 'auto'),
    locale: str('locale', 'auto'),
    severity,
    ...(get('inlayHints.enabled') === false ? { inlayHints: false as const } : {}),
    diagnosticMode: str('diagnosticMode', 'workspace') === 'openFilesOnly' ? 'openFilesOnly' : 'workspace',
  };
}

/**
 * What the server gets. The interpreter whose torch is checked: `torchLogs.python`, else the
 * Python extension's selected interpreter, else none (the server searches). In an untrusted
 * workspace the server must not look at the workspace's interpreters (it would run or read
 * them): it gets the server's own interpreter (from PATH or user settings) and an explicit
 * release, so the packaged registry is used.
 */
export function toServerSettings(s: ExtensionSettings, env: Environment): ServerSettings {
  const inner: ServerSettings['torchLogs'] = {
    locale: s.locale,
    torchVersion: s.torchVersion,
    severity: { ...s.severity },
    ...(s.inlayHints === false ? { inlayHints: { enabled: false as const } } : {}),
  };
  if (s.diagnosticMode === 'openFilesOnly') {
    inner.diagnosticMode = 'openFilesOnly';
  }
  const configured = s.python && env.expand ? env.expand(s.python) : s.python;
  if (env.trusted) {
    const python = configured || env.selectedPython;
    if (python) {
      inner.python = python;
    }
  } else {
    // torchLogs.python is a restricted setting: here it holds only the user-level value
    // only an absolute path outside the workspace: anything else could name one of its files
    const safe = configured && isAbsolutePath(configured) && !env.insideWorkspace?.(configured) ? configured : '';
    const python = safe || env.serverPython;
    if (python) {
      inner.python = python;
    }
    if (inner.torchVersion === 'auto') {
      inner.torchVersion = env.newestRelease;
    }
  }
  return { torchLogs: inner };
}

/** Only a different interpreter or server source needs a new server process; the rest is sent live. */
export function needsRestart(prev: ExtensionSettings, next: ExtensionSettings): boolean {
  return prev.serverInterpreter !== next.serverInterpreter || prev.importStrategy !== next.importStrategy;
}

export function sameServerSettings(a: ServerSettings, b: ServerSettings): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) {
    return v.map(sortKeys);
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/**
 * The torch release the status bar shows when the server cannot tell (servers without the
 * `torchLogs/status` request): `torchVersion` when it names a packaged release, else the
 * newest packaged release (package.json's enum for `torchLogs.torchVersion`). With `auto` in a
 * trusted workspace the server may use a pin comment or the checked interpreter's torch
 * instead, and the origin says so.
 */
export function releaseInUse(
  s: ExtensionSettings,
  packaged: readonly string[],
  trusted = true,
): { release: string; origin: string } {
  const newest = newestRelease(packaged);
  const wanted = s.torchVersion.replace(/^(\d+\.\d+)\.\d+$/, '$1');
  if (wanted !== 'auto' && packaged.includes(wanted)) {
    return { release: wanted, origin: 'torchLogs.torchVersion' };
  }
  if (!trusted) {
    return { release: newest, origin: 'packaged default (restricted mode)' };
  }
  return { release: newest, origin: "packaged default, unless a pin comment or the checked interpreter's torch says otherwise" };
}

/** Answer of the server's `torchLogs/status` request for one document. */
export interface TorchStatus {
  release: string;
  /** Where the release comes from, e.g. "torchLogs.torchVersion", "pin comment (torch=2.4)". */
  how: string;
  /** The interpreter whose torch and modules are checked, if any. */
  python?: string;
}

export function parseTorchStatus(raw: unknown): TorchStatus | undefined {
  if (!raw || typeof raw !== 'object') {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  if (typeof r.release !== 'string' || !r.release) {
    return undefined;
  }
  return {
    release: r.release,
    how: typeof r.how === 'string' ? r.how : '',
    python: typeof r.python === 'string' && r.python ? r.python : undefined,
  };
}

export function newestRelease(packaged: readonly string[]): string {
  const key = (r: string) => r.split('.').map(Number);
  return [...packaged]
    .filter((r) => /^\d+\.\d+$/.test(r))
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return x[0] - y[0] || x[1] - y[1];
    })
    .at(-1) ?? '?';
}

/** A POSIX (`/x`) or Windows (`C:\\x`, `\\\\server\\x`) absolute path. */
export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}
