// A capstan server for the audit benchmark: `node dist/bench/audit-server.js <data-dir> on|off`
// starts the server as the command would (SQLite store, plain HTTP on 127.0.0.1, metrics and APF
// on), with every request audited at Metadata level to a log file in the data folder, or with no
// audit policy — the one thing the two servers differ in. BENCH_AUDIT_OMIT_RECEIVED=1: the policy
// omits the RequestReceived stage, as many policies do (one event per request, not two).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { metadataAuditPolicy } from './common.js';
import { startServer } from '../src/server/server.js';

const [dataDir, mode] = process.argv.slice(2);
if (!dataDir || (mode !== 'on' && mode !== 'off')) throw new Error('usage: audit-server.js <data-dir> on|off');
const omitReceived = process.env['BENCH_AUDIT_OMIT_RECEIVED'] === '1';
const policyFile = join(dataDir, 'policy.yaml');
writeFileSync(policyFile, metadataAuditPolicy(omitReceived));
const audit = mode === 'on' ? { auditPolicyFile: policyFile, auditLogPath: join(dataDir, 'audit.log') } : {};
const server = await startServer({ dataDir, insecure: true, port: 0, bindAddress: '127.0.0.1', ...audit });
process.stdout.write(`serving on ${server.url} (audit ${mode}${omitReceived ? ', no RequestReceived' : ''})\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
