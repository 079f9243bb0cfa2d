// A capstan server for the metrics benchmark: `node dist/bench/metrics-server.js <data-dir> on|off`
// starts the server as the command would (SQLite store, plain HTTP on 127.0.0.1), with its metrics
// recorded or not — the one thing the two servers of the benchmark differ in.
import { startServer } from '../src/server/server.js';

const [dataDir, mode] = process.argv.slice(2);
if (!dataDir || (mode !== 'on' && mode !== 'off')) throw new Error('usage: metrics-server.js <data-dir> on|off');
const server = await startServer({ dataDir, insecure: true, port: 0, bindAddress: '127.0.0.1', metrics: mode === 'on' });
process.stdout.write(`serving on ${server.url} (metrics ${mode})\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
