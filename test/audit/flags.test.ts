// The audit flags: read and refused as the reference's, and a policy the reference would refuse
// stops the start with one line naming the flag.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseOptions } from '../../src/cmd/options.js';
import { prepareKubeApiserver } from '../../src/cmd/kube-apiserver-start.js';
import { memoryServer, repoRoot } from '../helpers.js';

const CAPSTAN = join(repoRoot, 'dist/src/cmd/capstan.js');

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CAPSTAN, ...args], { timeout: 20_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr });
    });
  });
}

describe('audit flags', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-flags-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults as the reference\'s; negative sizes, unknown modes and formats refused', () => {
    const o = parseOptions([]).options;
    assert.deepEqual(
      [o.auditPolicyFile, o.auditLogPath, o.auditLogFormat, o.auditLogMode, o.auditLogMaxAge, o.auditLogMaxBackup, o.auditLogMaxSize, o.auditLogBatchBufferSize, o.auditLogBatchMaxSize],
      [undefined, undefined, 'json', 'blocking', 0, 0, 0, 10000, 1],
    );
    const set = parseOptions(['--audit-log-path=-', '--audit-log-format=legacy', '--audit-log-mode', 'batch', '--audit-log-maxsize=5', '--audit-log-compress']).options;
    assert.deepEqual([set.auditLogPath, set.auditLogFormat, set.auditLogMode, set.auditLogMaxSize, set.auditLogCompress], ['-', 'legacy', 'batch', 5, true]);
    assert.throws(() => parseOptions(['--audit-log-maxage=-1']), /^Error: --audit-log-maxage -1 can't be a negative number$/);
    assert.throws(() => parseOptions(['--audit-log-maxbackup=x']), /invalid argument "x" for "--audit-log-maxbackup" flag/);
    assert.throws(() => parseOptions(['--audit-log-mode=async']), /--audit-log-mode: must be "batch" or "blocking" or "blocking-strict", not "async"/);
    assert.throws(() => parseOptions(['--audit-log-format=yaml']), /--audit-log-format/);
    assert.throws(() => parseOptions(['--audit-log-batch-buffer-size=0']), /invalid audit batch log buffer size 0, must be a positive number/);
  });

  it('the kube-apiserver launcher implements them: no "not implemented" note, paths made absolute', async () => {
    const p = await prepareKubeApiserver(['--audit-policy-file=policy.yaml', '--audit-log-path=logs/audit.log', '--audit-log-maxage=3', '--audit-log-maxbackup=2', '--audit-log-maxsize=10'], dir);
    assert.deepEqual(p.notes.filter((n) => n.includes('audit')), []);
    assert.equal(p.options.auditPolicyFile, join(dir, 'policy.yaml'));
    assert.equal(p.options.auditLogPath, join(dir, 'logs/audit.log'));
    assert.deepEqual([p.options.auditLogMaxAge, p.options.auditLogMaxBackup, p.options.auditLogMaxSize], [3, 2, 10]);
    if (p.temporaryDataDir) rmSync(p.options.dataDir, { recursive: true, force: true });
  });

  it('a bad policy stops the start with one line naming the flag, the file and the problem', async () => {
    const policy = join(dir, 'bad.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n');
    await assert.rejects(memoryServer({ auditPolicyFile: policy, auditLogPath: join(dir, 'a.log') }),
      { message: `--audit-policy-file ${policy}: rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"` });
    await assert.rejects(memoryServer({ auditPolicyFile: join(dir, 'absent.yaml') }), { message: `--audit-policy-file ${join(dir, 'absent.yaml')}: no such file` });
    const mixed = join(dir, 'mixed.yaml');
    writeFileSync(mixed, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  nonResourceURLs: [/healthz]\n  resources: [{group: ""}]\n');
    const r = await run(['--data-dir', join(dir, 'data'), '--secure-port=0', '--storage=memory', `--audit-policy-file=${mixed}`]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `capstan: --audit-policy-file ${mixed}: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: rules cannot apply to both regular resources and non-resource URLs\n`);
  });

  it('a policy without a log (or a log without a policy) audits nothing; Audit-Id is on every answer', async () => {
    const server = await memoryServer({ auditLogPath: join(dir, 'nothing.log') });
    try {
      const r = await fetch(`${server.url}/api/v1/namespaces`);
      assert.match(r.headers.get('audit-id') ?? '', /^[0-9a-f-]{36}$/);
      const given = await fetch(`${server.url}/version`, { headers: { 'Audit-ID': 'abc' } });
      assert.equal(given.headers.get('audit-id'), 'abc');
    } finally {
      await server.close();
    }
  });
});
