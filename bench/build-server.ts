// A capstan server for the builds benchmark: `node dist/bench/build-server.js <data-dir> on|off`
// starts this build's server (on) or the one of the build at BENCH_BUILD_OTHER (off: a checkout or
// its dist folder, built), as the command would (SQLite store, plain HTTP on 127.0.0.1).
// BENCH_BUILD_OPTIONS=<JSON> adds server options to both, `$DATA` in a text standing for the
// server's own data folder: '{"auditPolicyFile":"/tmp/policy.yaml","auditLogPath":"$DATA/audit.log"}'
// compares the builds auditing every request, each into its own log.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { startServer as StartServer } from '../src/server/server.js';

const [dataDir, mode] = process.argv.slice(2);
const other = process.env['BENCH_BUILD_OTHER'];
if (!dataDir || (mode !== 'on' && mode !== 'off') || (mode === 'off' && !other)) throw new Error('usage: BENCH_BUILD_OTHER=<checkout> build-server.js <data-dir> on|off');

/** The server module of the build in `folder` (a checkout, or its dist folder). */
function serverModule(folder: string): string {
  const inDist = join(folder, 'dist/src/server/server.js');
  return existsSync(inDist) ? inDist : join(folder, 'src/server/server.js');
}

const module = mode === 'on' ? fileURLToPath(new URL('../src/server/server.js', import.meta.url)) : serverModule(other!);
const { startServer } = (await import(pathToFileURL(module).href)) as { startServer: typeof StartServer };
const extra = JSON.parse(process.env['BENCH_BUILD_OPTIONS'] ?? '{}', (_key, value: unknown) => (typeof value === 'string' ? value.replaceAll('$DATA', dataDir) : value)) as Record<string, unknown>;
const server = await startServer({ ...extra, dataDir, insecure: true, port: 0, bindAddress: '127.0.0.1' });
process.stdout.write(`serving on ${server.url} (${mode === 'on' ? 'this build' : `the build in ${other}`})\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
