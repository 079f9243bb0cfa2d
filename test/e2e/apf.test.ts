// API Priority and Fairness seen from kubectl: the bootstrap configuration listed as the
// reference's kubectl prints it, and the classification headers on its answers (-v=8).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capstanForSuite, kubectl, ok } from './harness.js';

/** kubectl's table without its AGE column (the cells are space-separated; none here has a space). */
function rowsWithoutAge(out: string): string[][] {
  const lines = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
  const age = lines[0]!.indexOf('AGE');
  return lines.map((cells) => cells.filter((_, i) => i !== age));
}

describe('API Priority and Fairness through kubectl', { timeout: 60_000 }, () => {
  const capstan = capstanForSuite();

  it('lists the bootstrap FlowSchemas as the reference prints them', async () => {
    const out = await ok(capstan.current.kubeconfig, ['get', 'flowschemas']);
    assert.deepEqual(rowsWithoutAge(out), [
      ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'MISSINGPL'],
      ['catch-all', 'catch-all', '10000', 'ByUser', 'False'],
      ['endpoint-controller', 'workload-high', '150', 'ByUser', 'False'],
      ['exempt', 'exempt', '1', '<none>', 'False'],
      ['global-default', 'global-default', '9900', 'ByUser', 'False'],
      ['kube-controller-manager', 'workload-high', '800', 'ByNamespace', 'False'],
      ['kube-scheduler', 'workload-high', '800', 'ByNamespace', 'False'],
      ['kube-system-service-accounts', 'workload-high', '900', 'ByNamespace', 'False'],
      ['probes', 'exempt', '2', '<none>', 'False'],
      ['service-accounts', 'workload-low', '9000', 'ByUser', 'False'],
      ['system-leader-election', 'leader-election', '100', 'ByUser', 'False'],
      ['system-node-high', 'node-high', '400', 'ByUser', 'False'],
      ['system-nodes', 'system', '500', 'ByUser', 'False'],
      ['workload-leader-election', 'leader-election', '200', 'ByUser', 'False'],
    ]);
  });

  it('lists the bootstrap PriorityLevelConfigurations as the reference prints them', async () => {
    const out = await ok(capstan.current.kubeconfig, ['get', 'prioritylevelconfigurations']);
    assert.deepEqual(rowsWithoutAge(out), [
      ['NAME', 'TYPE', 'ASSUREDCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT'],
      ['catch-all', 'Limited', '5', '<none>', '<none>', '<none>'],
      ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>'],
      ['global-default', 'Limited', '20', '128', '6', '50'],
      ['leader-election', 'Limited', '10', '16', '4', '50'],
      ['node-high', 'Limited', '40', '64', '6', '50'],
      ['system', 'Limited', '30', '64', '6', '50'],
      ['workload-high', 'Limited', '40', '128', '6', '50'],
      ['workload-low', 'Limited', '100', '128', '6', '50'],
    ]);
  });

  it('answers kubectl (system:masters) on the exempt level, with the UIDs in the headers', async () => {
    const uid = async (kind: string, name: string) => (await ok(capstan.current.kubeconfig, ['get', kind, name, '-o', 'jsonpath={.metadata.uid}'])).trim();
    const r = await kubectl(capstan.current.kubeconfig, ['get', 'namespaces', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`X-Kubernetes-Pf-Flowschema-Uid: ${await uid('flowschema', 'exempt')}`));
    assert.match(r.stderr, new RegExp(`X-Kubernetes-Pf-Prioritylevel-Uid: ${await uid('prioritylevelconfiguration', 'exempt')}`));
  });
});
