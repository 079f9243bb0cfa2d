// A graceful stop, as the reference's on SIGTERM: /readyz fails at once (its shutdown check) while
// --shutdown-delay-duration passes, then the listener closes, open watches end cleanly, requests
// in flight finish and are kept; a second signal stops at once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { call, repoRoot } from '../helpers.js';

const CAPSTAN = join(repoRoot, 'dist/src/cmd/capstan.js');

async function start(extra: string[]): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [CAPSTAN, '--storage', 'memory', '--insecure-serving', '--secure-port', '0', '--bind-address', '127.0.0.1', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`capstan exited before serving: ${out}`)));
  });
  return { child, url, exited };
}

describe('graceful shutdown', () => {
  it('on SIGTERM: /readyz fails during the delay, a request in flight finishes and is kept, a watch ends cleanly', { timeout: 30_000 }, async () => {
    const { child, url, exited } = await start(['--shutdown-delay-duration=1s']);
    // A watch that stays open.
    const watchEnded = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${url}/api/v1/namespaces/default/configmaps?watch=true`, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    // A create whose body is still on its way when the signal comes.
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-flight' }, data: { a: '1' } });
    let sendRest!: () => void;
    const created = new Promise<number>((resolve, reject) => {
      const req = request(`${url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.write(body.slice(0, 10));
      sendRest = () => req.end(body.slice(10));
    });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await call(url, 'GET', '/readyz')).status, 200);
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    const ready = await call(url, 'GET', '/readyz?verbose');
    assert.equal(ready.status, 500);
    assert.match(ready.text, /\[-\]shutdown failed/);
    assert.equal((await call(url, 'GET', '/livez')).status, 200, 'alive while it drains');
    sendRest();
    assert.equal(await created, 201);
    const watch = await watchEnded;
    assert.equal(watch.status, 200);
    assert.match(watch.body, /"name":"in-flight"/, 'the watch saw the write before it ended');
    assert.equal(await exited, 0);
  });

  it('a second signal stops at once', { timeout: 30_000 }, async () => {
    const { child, exited } = await start(['--shutdown-delay-duration=20s']);
    const begun = Date.now();
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    assert.equal(await exited, 1);
    assert.ok(Date.now() - begun < 5_000, 'not after the 20 s delay');
  });
});
