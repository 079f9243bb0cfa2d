// Starting the real capstan command and running the real kubectl against it, for end-to-end tests.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { after, before } from 'node:test';
import { join } from 'node:path';
import { repoRoot } from '../helpers.js';

const KUBECTL = process.env['KUBECTL'] ?? 'kubectl';

export interface Capstan {
  process: ChildProcess;
  kubeconfig: string;
  dataDir: string;
}

export async function startCapstan(dataDir: string, extra: string[] = []): Promise<Capstan> {
  const child = spawn(process.execPath, [join(repoRoot, 'dist/src/cmd/capstan.js'), '--data-dir', dataDir, '--secure-port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`capstan did not start: ${output}`)), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const m = /kubeconfig: (.+)\n/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`capstan exited with ${code}: ${output}`)));
  });
  return { process: child, kubeconfig, dataDir };
}

export async function stopCapstan(c: Capstan): Promise<void> {
  if (c.process.exitCode !== null || c.process.signalCode !== null) return;
  const exited = new Promise((resolve) => c.process.once('exit', resolve));
  c.process.kill('SIGTERM');
  await exited;
}

/** Which kubectl to run (KUBECTL, or `kubectl`, unless given) and with what environment. */
export interface KubectlOptions {
  binary?: string;
  env?: Record<string, string>;
}

export function kubectl(kubeconfig: string, args: string[], input?: string, options: KubectlOptions = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = options.env ? { ...process.env, ...options.env } : undefined;
    const child = execFile(options.binary ?? KUBECTL, ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000, env }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** kubectl that must succeed; returns its stdout. */
export async function ok(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const r = await kubectl(kubeconfig, args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * A capstan for the tests of one describe block: started before them on a fresh data folder,
 * stopped and its folder removed after. Read `.current` inside the tests.
 */
export function capstanForSuite(extra: string[] = []): { readonly current: Capstan } {
  const suite = {} as { current: Capstan; dir: string };
  before(async () => {
    suite.dir = mkdtempSync(join(tmpdir(), 'capstan-e2e-'));
    suite.current = await startCapstan(join(suite.dir, 'data'), extra);
  });
  after(async () => {
    await stopCapstan(suite.current);
    rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}

/** The system interpreter: Debian's python3-* packages install for it, not for a python3 earlier on PATH. */
export const PYTHON = '/usr/bin/python3';

/** Why PYTHON cannot import `modules` here (what to install), or undefined when it can. */
export function missingPythonModules(modules: string[], packages: string): string | undefined {
  if (!existsSync(PYTHON)) return `${PYTHON} is absent`;
  try {
    execFileSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { stdio: 'ignore', timeout: 20_000 });
    return undefined;
  } catch {
    return `${modules.join(' or ')} is not installed for ${PYTHON} (apt-get install ${packages})`;
  }
}
