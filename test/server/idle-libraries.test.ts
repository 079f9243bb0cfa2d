// A server that has just started (memory storage, plain HTTP) and answers JSON requests has not
// loaded the large libraries it does not need yet (issue 17: memory of an idle server, start
// time); each comes in with the first request that needs it. Run in a fresh process, since the
// test runner's own process has loaded them all long before.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../helpers.js';

const LAZY_LIBRARIES = ['@marcbachmann/cel-js', '@peculiar/x509', 'better-sqlite3', 'jose', 'protobufjs', 're2js', 'yaml'];

/** Appends the URL of every ES module loaded to the file it is given. */
const HOOKS = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) {
  appendFileSync(log, url + '\\n');
  return next(url, context);
}
`;

/** Starts a server, asks it something in JSON, then in YAML; prints the packages loaded after each. */
const CHILD = `
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const [serverUrl, hooksUrl, log, dataDir] = process.argv.slice(2);
register(hooksUrl, { data: { log } });
const { startServer } = await import(serverUrl);
const server = await startServer({ storage: 'memory', port: 0, dataDir, insecure: true });
const packages = () => {
  const files = [...Object.keys(createRequire(import.meta.url).cache), ...readFileSync(log, 'utf8').split('\\n')];
  const names = files.map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]).filter(Boolean);
  return [...new Set(names)].sort();
};
const ask = async (path, init = {}) => {
  const res = await fetch(server.url + path, init);
  if (!res.ok) throw new Error(path + ': ' + res.status + ' ' + (await res.text()));
  await res.arrayBuffer();
};
await ask('/api/v1/namespaces/default');
await ask('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'c' }, data: { a: 'b' } }) });
const afterJson = packages();
await ask('/api/v1/namespaces/default/configmaps/c', { headers: { accept: 'application/yaml' } });
const afterYaml = packages();
await server.close();
console.log(JSON.stringify({ afterJson, afterYaml }));
process.exit(0);
`;

describe('libraries of an idle server', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-idle-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('none of the large libraries is loaded by starting and answering JSON; YAML loads the YAML library', { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
    writeFileSync(join(dir, 'child.mjs'), CHILD);
    const serverUrl = pathToFileURL(join(repoRoot, 'dist', 'src', 'server', 'server.js')).href;
    const { stdout } = await promisify(execFile)(process.execPath, [
      join(dir, 'child.mjs'), serverUrl, pathToFileURL(join(dir, 'hooks.mjs')).href, join(dir, 'modules.log'), join(dir, 'data'),
    ], { cwd: repoRoot, timeout: 50_000 });
    const { afterJson, afterYaml } = JSON.parse(stdout.trim().split('\n').pop()!) as { afterJson: string[]; afterYaml: string[] };
    assert.deepEqual(afterJson.filter((p) => LAZY_LIBRARIES.includes(p)), []);
    assert.deepEqual(afterYaml.filter((p) => LAZY_LIBRARIES.includes(p)), ['yaml']);
  });
});
