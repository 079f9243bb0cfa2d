// The data folder is private (issue 14 item 2): it holds every Secret. A first start makes the
// folder 0700 and every file in it 0600 (the database, its -wal and -shm, the lock, the
// kubeconfig); a start on a folder someone loosened tightens it again and says so in one line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { call, kubeconfigTls, repoRoot } from '../helpers.js';

interface Started {
  url: string;
  kubeconfig: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** The real command on `dataDir`, with its stderr kept. */
async function start(dataDir: string): Promise<Started> {
  const child = spawn(process.execPath, [join(repoRoot, 'dist/src/cmd/capstan.js'), '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const [url, kubeconfig] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`capstan did not start: ${stdout}${stderr}`)), 20_000);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const m = /serving on (\S+) [^]*kubeconfig: (.+)\n/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve([m[1]!, m[2]!]);
      }
    });
    child.once('exit', (code) => reject(new Error(`capstan exited with ${code}: ${stdout}${stderr}`)));
  });
  return {
    url,
    kubeconfig,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every regular file directly in `dir`, with its mode. */
function fileModes(dir: string): Record<string, string> {
  const modes: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isFile()) modes[e.name] = modeOf(join(dir, e.name));
  return modes;
}

/** Writes a Secret, so that the database and its WAL hold something worth hiding. */
async function writeSecret(s: Started, name: string): Promise<void> {
  const reply = await call(s.url, 'POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name }, stringData: { password: 'hunter2' } }, tls: kubeconfigTls(s.kubeconfig) });
  assert.equal(reply.status, 201, reply.text);
}

describe('the data folder is private', { timeout: 90_000 }, () => {
  const parent = mkdtempSync(join(tmpdir(), 'capstan-modes-'));
  after(() => rmSync(parent, { recursive: true, force: true }));
  const dataDir = join(parent, 'data');

  it('a first start makes the folder 0700 and every file in it 0600, -wal and -shm included', async () => {
    const s = await start(dataDir);
    try {
      await writeSecret(s, 'first');
      assert.equal(modeOf(dataDir), '700');
      const modes = fileModes(dataDir);
      for (const name of ['capstan.db', 'capstan.db-wal', 'capstan.db-shm', 'capstan.lock', 'kubeconfig']) assert.equal(modes[name], '600', `${name}: ${JSON.stringify(modes)}`);
      for (const [name, mode] of Object.entries(modes)) assert.equal(mode, '600', name);
      assert.equal(modeOf(join(dataDir, 'pki')), '700');
      assert.doesNotMatch(s.stderr(), /warning: --data-dir/);
    } finally {
      await s.stop();
    }
  });

  it('a start on a loosened folder tightens it and its files, with one warning line', async () => {
    chmodSync(dataDir, 0o755);
    for (const name of Object.keys(fileModes(dataDir))) chmodSync(join(dataDir, name), 0o644);
    chmodSync(join(dataDir, 'pki'), 0o755);
    const s = await start(dataDir);
    try {
      await writeSecret(s, 'second');
      assert.equal(modeOf(dataDir), '700');
      const modes = fileModes(dataDir);
      assert.ok(modes['capstan.db'] && modes['capstan.db-wal'] && modes['capstan.db-shm'], JSON.stringify(modes));
      for (const [name, mode] of Object.entries(modes)) assert.equal(mode, '600', name);
      assert.equal(modeOf(join(dataDir, 'pki')), '700');
      const warnings = s.stderr().split('\n').filter((l) => l.includes('--data-dir'));
      assert.equal(warnings.length, 1, s.stderr());
      assert.match(warnings[0]!, /^capstan: warning: --data-dir .*data was 0755, with \d+ entries others could read \(.*capstan\.db.*\): made private/);
    } finally {
      await s.stop();
    }
  });

  it('a start on a private folder says nothing about it', async () => {
    const s = await start(dataDir);
    try {
      assert.doesNotMatch(s.stderr(), /--data-dir/);
      assert.equal(modeOf(dataDir), '700');
    } finally {
      await s.stop();
    }
  });
});
