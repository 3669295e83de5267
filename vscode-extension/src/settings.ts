/**
 * `torchLogs.*` settings: read them from VS Code's configuration, map them to what the server
 * accepts (`{"torchLogs": {...}}` in initializationOptions and in
 * workspace/didChangeConfiguration), and decide whether a change needs a restart.
 * No `vscode` import: unit-tested with plain objects.
 */

export const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'] as const;
export const LOCALES = ['auto', 'en', 'ru'] as const;

export interface ExtensionSettings {
  serverInterpreter: string;
  torchVersion: string;
  locale: string;
  severity: Record<string, string>;
}

/** What the server reads (server/settings.py: camelCase keys under `torchLogs`). */
export interface ServerSettings {
  torchLogs: {
    locale: string;
    torchVersion: string;
    severity: Record<string, string>;
    /**
     * The workspace's selected Python (the one whose torch should be checked), when known.
     * The server ignores it for now; it is sent so the server can pick it up without a
     * restart when it learns to read a torch's registry.
     */
    pythonEnvironment?: string;
  };
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
  return {
    serverInterpreter: str('serverInterpreter', ''),
    torchVersion: str('torchVersion', 'auto'),
    locale: str('locale', 'auto'),
    severity,
  };
}

export function toServerSettings(s: ExtensionSettings, pythonEnvironment?: string): ServerSettings {
  const inner: ServerSettings['torchLogs'] = {
    locale: s.locale,
    torchVersion: s.torchVersion,
    severity: { ...s.severity },
  };
  if (pythonEnvironment) {
    inner.pythonEnvironment = pythonEnvironment;
  }
  return { torchLogs: inner };
}

/** Only a different interpreter needs a new server process; the rest is sent live. */
export function needsRestart(prev: ExtensionSettings, next: ExtensionSettings): boolean {
  return prev.serverInterpreter !== next.serverInterpreter;
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

export type ReleaseOrigin = 'setting' | 'packaged default';

/**
 * The torch release the server checks names against, and where it comes from. Mirrors the
 * server today: `torchVersion` when it names a packaged release, else the packaged default
 * (the newest release; the list is package.json's enum for `torchLogs.torchVersion`).
 */
export function releaseInUse(
  s: ExtensionSettings,
  packaged: readonly string[],
): { release: string; origin: ReleaseOrigin } {
  const newest = newestRelease(packaged);
  const wanted = s.torchVersion.replace(/^(\d+\.\d+)\.\d+$/, '$1');
  if (wanted !== 'auto' && packaged.includes(wanted)) {
    return { release: wanted, origin: 'setting' };
  }
  return { release: newest, origin: 'packaged default' };
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
