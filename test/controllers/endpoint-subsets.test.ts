// The pure parts of the endpoint controllers: subsets packed as the reference's RepackSubsets,
// truncation at 1000 addresses, the trigger time, and the slice plan (reuse, 100 to a slice).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planSlices, reuseDeleted } from '../../src/controllers/endpoints/slice-planner.js';
import { repackSubsets, subsetsFor, truncated } from '../../src/controllers/endpoints/subsets.js';
import { TriggerTimeTracker, formatTriggerTime } from '../../src/controllers/endpoints/trigger-time.js';

const service = (ports: unknown[], extra: Record<string, unknown> = {}) => ({
  metadata: { name: 's', namespace: 'n', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { selector: { a: 'b' }, clusterIP: '10.0.0.1', ipFamilies: ['IPv4'], ports, ...extra },
});
const pod = (name: string, ip: string, ready: boolean, ports: unknown[]) => ({
  metadata: { name, namespace: 'n', uid: `uid-${name}` },
  spec: { nodeName: 'node', containers: [{ name: 'c', ports }] },
  status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2026-01-01T00:00:05Z' }] },
});
const ref = (name: string) => ({ kind: 'Pod', namespace: 'n', name, uid: `uid-${name}` });

describe('endpoint subsets', () => {
  it('addresses offering the same ports share a subset; one lacking a named port gets its own', () => {
    const svc = service([{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }, { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' }]);
    const subsets = subsetsFor(svc, [
      pod('b', '10.0.0.3', true, [{ name: 'http', containerPort: 8080 }]),
      pod('a', '10.0.0.2', true, [{ name: 'http', containerPort: 8080 }]),
      pod('c', '10.0.0.4', false, []),
    ]);
    // The reference orders subsets by a hash of their contents: compared here by port name.
    const byPort = (x: Record<string, unknown>) => String((x['ports'] as Array<{ name: string }>)[0]!.name);
    assert.deepEqual([...subsets].sort((x, y) => byPort(x).localeCompare(byPort(y))), [
      {
        addresses: [{ ip: '10.0.0.2', nodeName: 'node', targetRef: ref('a') }, { ip: '10.0.0.3', nodeName: 'node', targetRef: ref('b') }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
      {
        addresses: [{ ip: '10.0.0.2', nodeName: 'node', targetRef: ref('a') }, { ip: '10.0.0.3', nodeName: 'node', targetRef: ref('b') }],
        notReadyAddresses: [{ ip: '10.0.0.4', nodeName: 'node', targetRef: ref('c') }],
        ports: [{ name: 'metrics', port: 9090, protocol: 'TCP' }],
      },
    ]);
  });

  it('user subsets repack into one per set of addresses', () => {
    const repacked = repackSubsets([
      { addresses: [{ ip: '192.0.2.2' }], ports: [{ port: 80, protocol: 'TCP' }] },
      { addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 80, protocol: 'TCP' }] },
      { addresses: [{ ip: '192.0.2.9' }] },
    ]);
    assert.deepEqual(repacked, [{ addresses: [{ ip: '192.0.2.1' }, { ip: '192.0.2.2' }], ports: [{ port: 80, protocol: 'TCP' }] }]);
  });

  it('over 1000 addresses: not-ready ones cut first, then ready ones in proportion', () => {
    const addresses = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ ip: `${prefix}.${i}` }));
    assert.equal(truncated([{ addresses: addresses(600, 'a'), ports: [] }]), undefined);
    const cut = truncated([{ addresses: addresses(900, 'a'), notReadyAddresses: addresses(200, 'b'), ports: [] }])!;
    assert.equal((cut[0]!['addresses'] as unknown[]).length, 900);
    assert.equal((cut[0]!['notReadyAddresses'] as unknown[]).length, 100);
    const ready = truncated([{ addresses: addresses(800, 'a'), ports: [] }, { addresses: addresses(400, 'b'), notReadyAddresses: addresses(5, 'c'), ports: [] }])!;
    assert.deepEqual(ready.map((s) => (s['addresses'] as unknown[]).length), [667, 333]);
    assert.equal(ready[1]!['notReadyAddresses'], undefined);
  });

  it('the trigger time: the Service\'s creation first, then the earliest Ready change since the last sync, else none', () => {
    const tracker = new TriggerTimeTracker();
    const svc = service([]);
    const p = pod('a', '10.0.0.2', true, []);
    assert.equal(formatTriggerTime(tracker.compute('n/s', svc, [p])), '2026-01-01T00:00:00Z');
    assert.equal(tracker.compute('n/s', svc, [p]), 0);
    const later = { ...p, status: { ...p.status, conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:01:00Z' }] } };
    assert.equal(formatTriggerTime(tracker.compute('n/s', svc, [later])), '2026-01-01T00:01:00Z');
    assert.equal(formatTriggerTime(Date.parse('2026-01-01T00:00:00.120Z')), '2026-01-01T00:00:00.12Z');
  });
});

describe('the slice plan', () => {
  const ep = (i: number) => ({ addresses: [`10.1.0.${i}`], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'n', name: `p${i}` } });
  const ports = [{ name: '', protocol: 'TCP', port: 80 }];
  const slice = (name: string, endpoints: unknown[], slicePorts: unknown[] | undefined = ports) => ({ metadata: { name }, addressType: 'IPv4', endpoints, ports: slicePorts });
  const unchangedMeta = () => false;

  it('150 endpoints make a slice of 100 and one of 50', () => {
    const plan = planSlices([], [{ addressType: 'IPv4', ports, endpoints: Array.from({ length: 150 }, (_, i) => ep(i)) }], unchangedMeta);
    assert.deepEqual(plan.create.map((c) => c.endpoints.length), [100, 50]);
  });

  it('an endpoint going changes only its slice; a new one fills a slice changed anyway', () => {
    const existing = [slice('s1', [ep(1), ep(2)]), slice('s2', [ep(3)])];
    const plan = planSlices(existing, [{ addressType: 'IPv4', ports, endpoints: [ep(1), ep(3), ep(4)] }], unchangedMeta);
    assert.deepEqual(plan.update.map((u) => [u.name, u.endpoints.map((e) => e['addresses'])]), [['s1', [['10.1.0.1'], ['10.1.0.4']]]]);
    assert.deepEqual(plan.kept.map((s) => (s['metadata'] as { name: string }).name), ['s2']);
    assert.deepEqual(plan.create, []);
    assert.deepEqual(plan.delete, []);
  });

  it('a slice of other ports is reused (updated) for the new ones rather than deleted and made', () => {
    const existing = [slice('placeholder', [], undefined)];
    const plan = planSlices(existing, [{ addressType: 'IPv4', ports, endpoints: [ep(1)] }], unchangedMeta);
    reuseDeleted(plan, existing);
    assert.deepEqual(plan.delete, []);
    assert.deepEqual(plan.create, []);
    assert.deepEqual(plan.update.map((u) => [u.name, u.ports, u.endpoints.length]), [['placeholder', ports, 1]]);
  });
});
