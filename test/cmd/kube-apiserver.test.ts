// The kube-apiserver and etcd commands for test environments, apart from envtest's own use of
// them (test/e2e/envtest.test.ts): the reference's flags accepted, those without effect named
// once, what cannot be honoured refused in one line, and the etcd stand-in's probes.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { call, probeStatus, repoRoot, until } from '../helpers.js';
import { freePort } from '../storage/etcd-process.js';


const KUBE_APISERVER = join(repoRoot, 'dist/src/cmd/kube-apiserver.js');
const ETCD = join(repoRoot, 'dist/src/cmd/etcd.js');

function run(command: string, args: string[], timeoutMs = 20_000, cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [command, ...args], { timeout: timeoutMs, cwd }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** Starts a command until `ready` matches its output; returns the output so far and a stop function. */
async function startUntil(command: string, args: string[], ready: RegExp, cwd?: string): Promise<{ output: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [command, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 15 s: ${output}`)), 15_000);
    const seen = (c: Buffer) => {
      output += c.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  const stop = () => new Promise<number | null>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
  return { output, stop };
}

describe('kube-apiserver and etcd for test environments', { timeout: 90_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-kube-apiserver-test-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names each reference flag it does not implement once, and refuses flags the reference lacks', async () => {
    const unknown = await run(KUBE_APISERVER, ['--no-such-flag=1']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr.trim(), 'Error: unknown flag: --no-such-flag');
    const server = await startUntil(KUBE_APISERVER, ['--secure-port=0', '--goaway-chance=0.01', '--profiling', '--goaway-chance', '0.02', '--authorization-mode=Node,RBAC'], /serving on https:/);
    const notes = server.output.split('\n').filter((l) => l.includes('(capstan):') && !l.includes('serving on'));
    assert.deepEqual(notes, [
      'kube-apiserver (capstan): flag --goaway-chance is accepted but not implemented by capstan: it has no effect',
      'kube-apiserver (capstan): flag --profiling is accepted but not implemented by capstan: it has no effect',
      'kube-apiserver (capstan): --allow-privileged=false is not enforced: capstan admits privileged containers (as --allow-privileged=true)',
    ]);
    assert.match(server.output, /\(storage: memory\)/);
    assert.equal(await server.stop(), 0);
  });

  it('refuses in one line what it cannot honour: an etcd that does not answer, the insecure port, a foreign signing key', async () => {
    // Not the stand-in: a real etcd is used, and one that never answers fails the start.
    const etcd = await run(KUBE_APISERVER, ['--secure-port=0', '--etcd-servers=http://127.0.0.1:9']);
    assert.equal(etcd.code, 1);
    assert.match(etcd.stderr.trim().split('\n').at(-1) ?? '', /^kube-apiserver \(capstan\): --etcd-servers http:\/\/127\.0\.0\.1:9: no etcd answered \(.*ECONNREFUSED/);
    const insecure = await run(KUBE_APISERVER, ['--secure-port=0', '--insecure-port=8080']);
    assert.equal(insecure.code, 1);
    assert.match(insecure.stderr, /--insecure-port 8080: the insecure port was removed in 1\.24/);
    const pem = (k: { export(o: object): string | Buffer }, type: string) => k.export({ type, format: 'pem' }) as string;
    const one = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(join(dir, 'sa.key'), pem(one.privateKey, 'pkcs8'));
    writeFileSync(join(dir, 'other.pub'), pem(other.publicKey, 'spki'));
    writeFileSync(join(dir, 'garbage.key'), 'not a key\n');
    const mismatch = await run(KUBE_APISERVER, ['--secure-port=0', `--service-account-signing-key-file=${join(dir, 'sa.key')}`, `--service-account-key-file=${join(dir, 'other.pub')}`]);
    assert.equal(mismatch.code, 1);
    assert.match(mismatch.stderr, /--service-account-key-file: none of its keys is the public key of --service-account-signing-key-file/);
    const garbage = await run(KUBE_APISERVER, ['--secure-port=0', `--service-account-signing-key-file=${join(dir, 'garbage.key')}`]);
    assert.match(garbage.stderr, /--service-account-signing-key-file .*garbage\.key: not a PEM private key/);
  });

  it('runs in the shared host: a launcher killed without asking stops its server; CAPSTAN_SHARED_HOST=0 runs in its own process', async () => {
    const port = await freePort();
    const launcher = spawn(process.execPath, [KUBE_APISERVER, `--secure-port=${port}`, '--allow-privileged=true'], { stdio: 'ignore' });
    await until(`https://127.0.0.1:${port}/healthz`, async () => (await probeStatus(`https://127.0.0.1:${port}/healthz`)) === 200);
    // The server is not in the launcher: it answers from the host, whose pid differs.
    launcher.kill('SIGKILL');
    await until('the server stops with its launcher', async () => (await probeStatus(`https://127.0.0.1:${port}/healthz`)) === 0);
    const own = spawn(process.execPath, [KUBE_APISERVER, `--secure-port=${port}`, '--allow-privileged=true'], { stdio: 'ignore', env: { ...process.env, CAPSTAN_SHARED_HOST: '0' } });
    await until(`https://127.0.0.1:${port}/healthz in its own process`, async () => (await probeStatus(`https://127.0.0.1:${port}/healthz`)) === 200);
    const exited = new Promise((resolve) => own.once('exit', resolve));
    own.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  it('reads relative paths against the launcher\'s working folder, not the host\'s', async () => {
    const pem = (k: { export(o: object): string | Buffer }, type: string) => k.export({ type, format: 'pem' }) as string;
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(join(dir, 'relative-sa.key'), pem(key.privateKey, 'pkcs8'));
    const missing = await run(KUBE_APISERVER, ['--secure-port=0', '--allow-privileged=true', '--service-account-signing-key-file=relative-missing.key'], 20_000, dir);
    assert.equal(missing.stderr.trim(), `kube-apiserver (capstan): --service-account-signing-key-file ${join(dir, 'relative-missing.key')}: no such file`);
    const server = await startUntil(KUBE_APISERVER, ['--secure-port=0', '--service-account-signing-key-file=relative-sa.key'], /serving on https:/, dir);
    assert.equal(await server.stop(), 0);
  });

  it('etcd: answers /health and /version on each client URL, and says it is the stand-in', async () => {
    const ports = [await freePort(), await freePort()];
    const urls = ports.map((p) => `http://127.0.0.1:${p}`);
    const etcd = await startUntil(ETCD, [`--listen-client-urls=${urls.join(',')}`, `--advertise-client-urls=${urls[0]}`, '--data-dir', join(dir, 'etcd'), '--listen-peer-urls=http://127.0.0.1:0', '--unsafe-no-fsync=true'], /serving/);
    for (const url of urls) {
      assert.deepEqual((await call(url, 'GET', '/health')).json, { health: 'true', reason: '' });
      assert.equal((await call(url, 'GET', '/version')).json.etcdserver, '3.5.4');
      assert.equal((await call(url, 'GET', '/capstan/etcd-stand-in')).json.standIn, 'capstan');
      assert.equal((await call(url, 'GET', '/v3/kv/range')).status, 404);
    }
    assert.equal(await etcd.stop(), 0);
    const bad = await run(ETCD, ['--listen-client-urls=https://127.0.0.1:1']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /the stand-in serves http only/);
  });
});
