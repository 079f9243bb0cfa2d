// The capstan npm package as a user gets it: `npm pack`, then `npm install <tarball>` in an empty
// project (the native SQLite module built there, nothing else done), then `npx capstan` serves
// from a database file, `import { startCapstan } from 'capstan'` starts a server, and its type
// definitions check under TypeScript. Slow (the native build takes a minute or more): one test.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../helpers.js';

const run = promisify(execFile);

describe('the npm package', () => {
  it('installs with npm install alone; npx capstan serves; startCapstan imports and runs; its types check', { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-package-'));
    try {
      // dist/ is built by `npm test` before the tests run: packed as it is.
      await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: repoRoot, timeout: 120_000 });
      const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
      const project = join(dir, 'project');
      await run('mkdir', [project]);
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-capstan', version: '1.0.0', type: 'module', private: true }));
      await run('npm', ['install', join(dir, tarball), '--no-audit', '--no-fund', '--prefer-offline'], { cwd: project, timeout: 540_000 });

      const { stdout: version } = await run('npx', ['capstan', '--version'], { cwd: project, timeout: 60_000 });
      assert.match(version, /^Kubernetes v1\.25\.\d+/);

      // The database store: the native module works.
      // Its own process group: npx runs capstan as its child, and both are stopped together.
      const server = spawn('npx', ['capstan', '--secure-port', '0', '--data-dir', join(dir, 'data')], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      const served = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (/kubeconfig: /.test(out)) resolve(out);
        });
        server.once('exit', (code) => reject(new Error(`npx capstan exited ${code}: ${out}`)));
      });
      assert.match(served, /capstan serving on https:\/\/127\.0\.0\.1:\d+ \(storage: sqlite in .*data\)/);
      const exited = new Promise((resolve) => server.once('exit', resolve));
      process.kill(-server.pid!, 'SIGTERM');
      await exited;

      writeFileSync(join(project, 'use.ts'), `import { startCapstan, type Capstan } from 'capstan';
const capstan: Capstan = await startCapstan({ objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'from-package' } }] });
const port: number = capstan.port;
console.log(JSON.stringify({ url: capstan.url, port, context: capstan.clientNode.currentContext }));
await capstan.stop();
`);
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, types: [] }, files: ['use.ts'] }));
      await run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, timeout: 120_000 });
      const { stdout } = await run(process.execPath, [join(project, 'use.js')], { cwd: project, timeout: 60_000 });
      const used = JSON.parse(stdout.trim().split('\n').pop()!) as { url: string; port: number; context: string };
      assert.equal(used.url, `https://127.0.0.1:${used.port}`);
      assert.equal(used.context, 'capstan');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
