// The capstan command as a newcomer meets it: --help and --version at once, a wrong flag named,
// every failed start one line and a non-zero exit, and one server per data folder.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startCapstan, stopCapstan, type Capstan } from '../e2e/harness.js';
import { call, kubeconfigTls, repoRoot } from '../helpers.js';

const COMMAND = join(repoRoot, 'dist/src/cmd/capstan.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the command to its end (killed after `timeoutMs`). */
function run(args: string[], timeoutMs = 20_000): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [COMMAND, ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The lines of what the command printed on stderr (notes about the kubernetes Service left out). */
const lines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith('note:'));

describe('the capstan command', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-cmd-'));
  const running: Capstan[] = [];
  after(async () => {
    // (One was killed on purpose: only those still running are stopped.)
    for (const c of running) if (c.process.signalCode === null) await stopCapstan(c);
    rmSync(dir, { recursive: true, force: true });
  });

  it('--help and --version answer at once, without loading the server', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: capstan \[flags\]$/m);
    assert.match(help.stdout, /-v, --v int +log level/);
    assert.match(help.stdout, /--version +print the version and quit/);
    const version = await run(['--version']);
    assert.equal(version.code, 0);
    assert.equal(version.stdout, 'Kubernetes v1.25.0+capstan.0.1.0\n');
    // A Node start and the options table, nothing more (the server alone takes over a second to load).
    assert.ok(version.ms < 3000, `--version took ${version.ms} ms`);
  });

  it('names an unknown flag in one line instead of printing the whole help', async () => {
    const r = await run(['--no-such-flag']);
    assert.equal(r.code, 2);
    assert.deepEqual(lines(r.stderr), ['capstan: unknown flag: --no-such-flag (see capstan --help)']);
    assert.equal(r.stdout, '');
    const missing = await run(['--data-dir']);
    assert.deepEqual(lines(missing.stderr), ['capstan: flag needs an argument: --data-dir (see capstan --help)']);
    const bad = await run(['--secure-port', 'x']);
    assert.deepEqual(lines(bad.stderr), ['capstan: --secure-port: invalid port "x" (see capstan --help)']);
  });

  it('a busy port is one line and a non-zero exit, not a stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const r = await run(['--data-dir', join(dir, 'busy'), '--secure-port', String(port), '--storage', 'memory']);
      assert.equal(r.code, 1);
      assert.deepEqual(lines(r.stderr), [`capstan: cannot listen on 127.0.0.1:${port}: address already in use`]);
    } finally {
      blocker.close();
    }
  });

  it('bad certificate files and an unusable data folder are one line each', async () => {
    const missing = await run(['--data-dir', join(dir, 'certs'), '--secure-port', '0', '--tls-cert-file', join(dir, 'no.crt'), '--tls-private-key-file', join(dir, 'no.key')]);
    assert.equal(missing.code, 1);
    assert.deepEqual(lines(missing.stderr), [`capstan: --tls-cert-file ${join(dir, 'no.crt')}: no such file`]);
    writeFileSync(join(dir, 'garbage.crt'), 'not a certificate\n');
    writeFileSync(join(dir, 'garbage.key'), 'not a key\n');
    const garbage = await run(['--data-dir', join(dir, 'certs'), '--secure-port', '0', '--tls-cert-file', join(dir, 'garbage.crt'), '--tls-private-key-file', join(dir, 'garbage.key')]);
    assert.deepEqual(lines(garbage.stderr), [`capstan: --tls-cert-file ${join(dir, 'garbage.crt')}: not a PEM certificate`]);
    // A data folder below a file cannot be made.
    writeFileSync(join(dir, 'a-file'), '');
    const folder = await run(['--data-dir', join(dir, 'a-file', 'data'), '--secure-port', '0']);
    assert.equal(folder.code, 1);
    assert.deepEqual(lines(folder.stderr), [`capstan: cannot use --data-dir ${join(dir, 'a-file', 'data')}: not a folder`]);
  });

  it('a second server on the same data folder exits at once, naming the first, and writes nothing', async () => {
    const data = join(dir, 'shared');
    const first = await startCapstan(data);
    running.push(first);
    const kubeconfig = readFileSync(first.kubeconfig);
    const writtenAt = statSync(first.kubeconfig).mtimeMs;
    const second = await run(['--data-dir', data, '--secure-port', '0'], 10_000);
    assert.equal(second.code, 1);
    assert.deepEqual(lines(second.stderr), [`capstan: ${data} is in use by another capstan (pid ${first.process.pid}): stop it, or give this one another --data-dir`]);
    assert.ok(second.ms < 5000, `the second server took ${second.ms} ms to give up`);
    assert.deepEqual(readFileSync(first.kubeconfig), kubeconfig);
    assert.equal(statSync(first.kubeconfig).mtimeMs, writtenAt);
    // The first one still writes.
    const url = /server: (\S+)/.exec(kubeconfig.toString())![1]!;
    const created = await call(url, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'still-mine' } }, tls: kubeconfigTls(first.kubeconfig) });
    assert.equal(created.status, 201, created.text);
    // kill -9 leaves no stale lock: the next server starts on the folder.
    const killed = new Promise((resolve) => first.process.once('exit', resolve));
    first.process.kill('SIGKILL');
    await killed;
    const third = await startCapstan(data);
    running.push(third);
    const kept = await call(/server: (\S+)/.exec(readFileSync(third.kubeconfig, 'utf8'))![1]!, 'GET', '/api/v1/namespaces/default/configmaps/still-mine', { tls: kubeconfigTls(third.kubeconfig) });
    assert.equal(kept.status, 200, kept.text);
  });
});
