import assert from 'node:assert/strict';
import { test } from 'node:test';

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  bytecodeTag,
  checkEnvironment,
  checkVersion,
  expandSetting,
  findOnPath,
  installCommand,
  PROBE_ENVIRONMENT_CODE,
  ProbeResult,
  resolveInterpreter,
  ResolveInput,
  serverSource,
} from '../src/interpreter';

/** A fake machine: which interpreters exist on PATH and what each probe answers. */
function machine(opts: {
  setting?: string;
  trusted?: boolean;
  ext?: string;
  path?: Record<string, string>;
  versions: Record<string, string | Error>;
}): { input: ResolveInput; probed: string[] } {
  const probed: string[] = [];
  const input: ResolveInput = {
    setting: opts.setting ?? '',
    trusted: opts.trusted ?? true,
    pythonExtension: opts.ext === undefined ? undefined : async () => opts.ext,
    which: async (name) => opts.path?.[name],
    probe: async (cmd): Promise<ProbeResult> => {
      probed.push(cmd);
      const v = opts.versions[cmd];
      if (v === undefined) {
        return { error: 'not found' };
      }
      if (v instanceof Error) {
        throw v;
      }
      return checkVersion(v);
    },
  };
  return { input, probed };
}

test('the setting wins over everything else', async () => {
  const m = machine({
    setting: '/opt/py/bin/python',
    ext: '/ws/.venv/bin/python',
    path: { python3: '/usr/bin/python3' },
    versions: { '/opt/py/bin/python': '3.12.1', '/ws/.venv/bin/python': '3.11.0', '/usr/bin/python3': '3.11.2' },
  });
  const r = await resolveInterpreter(m.input);
  assert.equal(r.ok, true);
  assert.deepEqual(r.ok && [r.command, r.source, r.version], ['/opt/py/bin/python', 'setting', '3.12.1']);
  assert.deepEqual(m.probed, ['/opt/py/bin/python']);
});

test('a setting that does not work is an error, with no silent fallback', async () => {
  const m = machine({
    setting: '/nope/python',
    path: { python3: '/usr/bin/python3' },
    versions: { '/usr/bin/python3': '3.11.2' },
  });
  const r = await resolveInterpreter(m.input);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.message : '', /torchLogs\.serverInterpreter is "\/nope\/python".*not found/);
  assert.deepEqual(m.probed, ['/nope/python']);
});

test('a too old Python in the setting is reported with its version', async () => {
  const m = machine({ setting: '/py39', versions: { '/py39': '3.9.18' } });
  const r = await resolveInterpreter(m.input);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.message : '', /Python 3\.9\.18 is too old \(the server needs 3\.10 or newer\)/);
});

test('without a setting the Python extension interpreter comes before PATH', async () => {
  const m = machine({
    ext: '/ws/.venv/bin/python',
    path: { python3: '/usr/bin/python3' },
    versions: { '/ws/.venv/bin/python': '3.10.13', '/usr/bin/python3': '3.11.2' },
  });
  const r = await resolveInterpreter(m.input);
  assert.deepEqual(r.ok && [r.command, r.source], ['/ws/.venv/bin/python', 'python-extension']);
});

test('a Python extension interpreter that is too old falls back to PATH', async () => {
  const m = machine({
    ext: '/ws/.venv38/bin/python',
    path: { python3: '/usr/bin/python3' },
    versions: { '/ws/.venv38/bin/python': '3.8.18', '/usr/bin/python3': '3.11.2' },
  });
  const r = await resolveInterpreter(m.input);
  assert.deepEqual(r.ok && [r.command, r.source], ['/usr/bin/python3', 'path']);
  assert.equal(r.attempts.length, 2);
  assert.match(r.attempts[0].error ?? '', /too old/);
});

test('in an untrusted workspace the Python extension is not asked', async () => {
  let asked = false;
  const m = machine({ trusted: false, path: { python3: '/usr/bin/python3' }, versions: { '/usr/bin/python3': '3.11.2' } });
  m.input.pythonExtension = async () => {
    asked = true;
    return '/ws/.venv/bin/python';
  };
  const r = await resolveInterpreter(m.input);
  assert.equal(asked, false);
  assert.deepEqual(r.ok && [r.command, r.source], ['/usr/bin/python3', 'path']);
});

test('the Python extension failing or having no interpreter is not an error', async () => {
  const m = machine({ path: { python3: '/usr/bin/python3' }, versions: { '/usr/bin/python3': '3.13.0' } });
  m.input.pythonExtension = async () => {
    throw new Error('API not ready');
  };
  assert.equal((await resolveInterpreter(m.input)).ok, true);
  m.input.pythonExtension = async () => undefined;
  assert.equal((await resolveInterpreter(m.input)).ok, true);
});

test('python3 before python; python when python3 is too old', async () => {
  const both = machine({
    path: { python3: '/usr/bin/python3', python: '/usr/bin/python' },
    versions: { '/usr/bin/python3': '3.11.2', '/usr/bin/python': '3.12.0' },
  });
  assert.deepEqual((await resolveInterpreter(both.input)).ok && both.probed, ['/usr/bin/python3']);
  const old3 = machine({
    path: { python3: '/usr/bin/python3', python: '/opt/bin/python' },
    versions: { '/usr/bin/python3': '3.9.2', '/opt/bin/python': '3.12.0' },
  });
  const r = await resolveInterpreter(old3.input);
  assert.deepEqual(r.ok && [r.command, r.source], ['/opt/bin/python', 'path']);
});

test('nothing works: one message listing every attempt and what to do', async () => {
  const m = machine({
    ext: '/ws/.venv/bin/python',
    path: { python3: '/usr/bin/python3' },
    versions: { '/ws/.venv/bin/python': '3.8.0', '/usr/bin/python3': new Error('spawn EACCES') },
  });
  const r = await resolveInterpreter(m.input);
  assert.equal(r.ok, false);
  const msg = !r.ok ? r.message : '';
  assert.match(msg, /needs Python 3\.10 or newer/);
  assert.match(msg, /\/ws\/\.venv\/bin\/python \(Python 3\.8\.0 is too old/);
  assert.match(msg, /\/usr\/bin\/python3 \(spawn EACCES\)/);
  assert.match(msg, /Select an interpreter or set torchLogs\.serverInterpreter/);
});

test('no Python at all', async () => {
  const r = await resolveInterpreter(machine({ versions: {} }).input);
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.message : '', /No python3 or python was found on PATH/);
});

test('checkVersion', () => {
  assert.deepEqual(checkVersion('3.10.0\n'), { version: '3.10.0' });
  assert.deepEqual(checkVersion('4.0.1'), { version: '4.0.1' });
  assert.match(checkVersion('3.9.18').error ?? '', /too old/);
  assert.match(checkVersion('2.7.18').error ?? '', /too old/);
  assert.match(checkVersion('Python was not found; run without arguments').error ?? '', /unexpected output/);
});

test('expandSetting', () => {
  const vars = { workspaceFolder: '/ws', home: '/home/u', env: { PYENV: '/pyenv' } };
  assert.equal(expandSetting('', vars), '');
  assert.equal(expandSetting(undefined, vars), '');
  assert.equal(expandSetting('  /usr/bin/python3 ', vars), '/usr/bin/python3');
  assert.equal(expandSetting('${workspaceFolder}/.venv/bin/python', vars), '/ws/.venv/bin/python');
  assert.equal(expandSetting('~/py/bin/python', vars), '/home/u/py/bin/python');
  assert.equal(expandSetting('${userHome}/x', vars), '/home/u/x');
  assert.equal(expandSetting('${env:PYENV}/shims/python', vars), '/pyenv/shims/python');
  assert.equal(expandSetting('${env:MISSING}python', vars), 'python');
});

test('findOnPath: first executable in PATH order, empty entries skipped', async () => {
  const exe = new Set(['/b/python3', '/c/python3', 'python3']);
  const isExe = async (f: string) => exe.has(f);
  assert.equal(await findOnPath('python3', '/a::/b:/c', isExe, 'linux'), '/b/python3');
  assert.equal(await findOnPath('python', '/a:/b', isExe, 'linux'), undefined);
  assert.equal(await findOnPath('python3', undefined, isExe, 'linux'), undefined);
  const win = new Set(['C:\\Py\\python.exe']);
  assert.equal(await findOnPath('python', 'C:\\Windows;C:\\Py', async (f) => win.has(f), 'win32'), 'C:\\Py\\python.exe');
});

test('bytecode tag of a version names the shipped .pyc files', () => {
  assert.equal(bytecodeTag('3.11.7'), 'cpython-311');
  assert.equal(bytecodeTag('3.10.0'), 'cpython-310');
  assert.equal(bytecodeTag('3.14.0rc1'), 'cpython-314');
  assert.equal(bytecodeTag('?'), undefined);
});

test('untrusted: an interpreter inside the workspace is never run, not even probed', async () => {
  const inside = async (cmd: string) => (cmd.startsWith('/ws/') ? 'it is inside the workspace' : undefined);
  const m = machine({
    setting: '/ws/.venv/bin/python',
    trusted: false,
    versions: { '/ws/.venv/bin/python': '3.12.1' },
  });
  const r = await resolveInterpreter({ ...m.input, forbidden: inside });
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.message, /cannot run the TORCH_LOGS server: it is inside the workspace/);
  assert.deepEqual(m.probed, []);
  // on PATH: skipped, the next candidate is used
  const p = machine({
    trusted: false,
    path: { python3: '/ws/.venv/bin/python3', python: '/usr/bin/python' },
    versions: { '/ws/.venv/bin/python3': '3.12.1', '/usr/bin/python': '3.11.2' },
  });
  const r2 = await resolveInterpreter({ ...p.input, forbidden: inside });
  assert.equal(r2.ok && r2.command, '/usr/bin/python');
  assert.deepEqual(p.probed, ['/usr/bin/python']);
});

/** Environment probes: `version\ninstalled-or-dash`, as PROBE_ENVIRONMENT_CODE prints. */
function envMachine(answers: Record<string, string>, opts: { setting?: string; ext?: string; path?: Record<string, string> } = {}) {
  const probed: string[] = [];
  const input: ResolveInput = {
    setting: opts.setting ?? '',
    trusted: true,
    pythonExtension: opts.ext === undefined ? undefined : async () => opts.ext,
    which: async (name) => opts.path?.[name],
    probe: async (cmd) => {
      probed.push(cmd);
      return cmd in answers ? checkEnvironment(answers[cmd]) : { error: 'not found' };
    },
    requireServer: true,
  };
  return { input, probed };
}

test('checkEnvironment: the version line, then the installed torch-logs-lsp or -', () => {
  assert.deepEqual(checkEnvironment('3.12.1\n0.1.0\n'), { version: '3.12.1', installed: '0.1.0' });
  assert.deepEqual(checkEnvironment('3.12.1\r\n-\r\n'), { version: '3.12.1' });
  assert.deepEqual(checkEnvironment('3.12.1'), { version: '3.12.1' });
  assert.equal(checkEnvironment('3.8.10\n0.1.0').error?.includes('too old'), true);
});

test('no bundle: an interpreter without torch-logs-lsp is skipped, the next one with it runs the server', async () => {
  const m = envMachine(
    { '/ws/.venv/bin/python': '3.12.1\n-', '/usr/bin/python3': '3.11.2\n0.1.0' },
    { ext: '/ws/.venv/bin/python', path: { python3: '/usr/bin/python3' } },
  );
  const r = await resolveInterpreter(m.input);
  assert.equal(r.ok, true);
  assert.equal(r.ok && r.command, '/usr/bin/python3');
  assert.equal(r.ok && r.installed, '0.1.0');
  assert.match(r.attempts[0].error ?? '', /torch-logs-lsp is not installed in it \(install it with `\/ws\/\.venv\/bin\/python -m pip install torch-logs-lsp`\)/);
});

test('no bundle and torch-logs-lsp nowhere: the message says what is missing and how to install it', async () => {
  const m = envMachine({ '/usr/bin/python3': '3.11.2\n-' }, { path: { python3: '/usr/bin/python3' } });
  const r = await resolveInterpreter(m.input);
  assert.equal(r.ok, false);
  const message = r.ok ? '' : r.message;
  assert.match(message, /bundles no server \(the platform-neutral \.vsix\)/);
  assert.match(message, /\/usr\/bin\/python3 \(torch-logs-lsp is not installed in it/);
  assert.match(message, /pip install torch-logs-lsp/);
  assert.match(message, /the \.vsix built for your platform/);
});

test('no bundle and a serverInterpreter without torch-logs-lsp: an error naming the setting, no fallback', async () => {
  const m = envMachine({ '/opt/py/bin/python': '3.12.1\n-', '/usr/bin/python3': '3.11.2\n0.1.0' }, {
    setting: '/opt/py/bin/python',
    path: { python3: '/usr/bin/python3' },
  });
  const r = await resolveInterpreter(m.input);
  assert.equal(r.ok, false);
  assert.deepEqual(m.probed, ['/opt/py/bin/python']);
  assert.match(r.ok ? '' : r.message, /torchLogs\.serverInterpreter is "\/opt\/py\/bin\/python".*torch-logs-lsp is not installed in it/);
  assert.match(r.ok ? '' : r.message, /bundles no server \(the platform-neutral \.vsix\)/);
});

test('with a bundle, fromEnvironment does not require the installed server', async () => {
  const m = envMachine({ '/usr/bin/python3': '3.11.2\n-' }, { path: { python3: '/usr/bin/python3' } });
  const r = await resolveInterpreter({ ...m.input, requireServer: false });
  assert.equal(r.ok, true);
  assert.equal(r.ok && r.installed, undefined);
});

test('serverSource: useBundled, fromEnvironment with its fallback to the bundle, and no bundle', () => {
  assert.deepEqual(serverSource('useBundled', true, '0.1.0'), { from: 'bundle' });
  assert.deepEqual(serverSource('fromEnvironment', true, '0.1.0'), { from: 'environment' });
  assert.deepEqual(serverSource('fromEnvironment', true, undefined), { from: 'bundle', fallback: true });
  assert.deepEqual(serverSource('useBundled', false, '0.1.0'), { from: 'environment' });
  assert.deepEqual(serverSource('fromEnvironment', false, '0.1.0'), { from: 'environment' });
});

test('installCommand quotes a path with spaces', () => {
  assert.equal(installCommand('/usr/bin/python3'), '/usr/bin/python3 -m pip install torch-logs-lsp');
  assert.equal(installCommand('C:\\Program Files\\Python312\\python.exe'), '"C:\\Program Files\\Python312\\python.exe" -m pip install torch-logs-lsp');
});

test('PROBE_ENVIRONMENT_CODE run by a real Python: - without torch-logs-lsp, its version with it', () => {
  const python = process.env.TORCH_LOGS_TEST_PYTHON || 'python3';
  // -I: no user site and no PYTHONPATH, in an empty temporary folder: torch-logs-lsp is not importable
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-probe-'));
  const without = execFileSync(python, ['-I', '-c', PROBE_ENVIRONMENT_CODE], { cwd: empty, encoding: 'utf8' });
  assert.equal(checkEnvironment(without).installed, undefined);
  assert.ok(checkEnvironment(without).version);
  // a fake installed distribution: the module and its metadata on sys.path
  fs.mkdirSync(path.join(empty, 'site', 'torch_logs_lsp', 'server'), { recursive: true });
  fs.writeFileSync(path.join(empty, 'site', 'torch_logs_lsp', 'server', '__init__.py'), 'raise SystemExit("imported")\n');
  fs.mkdirSync(path.join(empty, 'site', 'torch_logs_lsp-9.8.7.dist-info'));
  fs.writeFileSync(path.join(empty, 'site', 'torch_logs_lsp-9.8.7.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: torch-logs-lsp\nVersion: 9.8.7\n');
  const withIt = execFileSync(python, ['-c', PROBE_ENVIRONMENT_CODE], {
    cwd: empty,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: path.join(empty, 'site') },
  });
  // found without importing the server module (it would exit)
  assert.equal(checkEnvironment(withIt).installed, '9.8.7');
  fs.rmSync(empty, { recursive: true, force: true });
});
