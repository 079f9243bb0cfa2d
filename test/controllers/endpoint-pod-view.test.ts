// What the endpoint controllers keep of each pod (podView): what they read of it, frozen, sharing
// the frozen pod's own parts, and one view for the two controllers that follow the same change.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podView, findPort, labelsOf, podIps } from '../../src/controllers/endpoints/pods.js';
import { deepFreeze, type JsonObject } from '../../src/json.js';

const pod = (name: string): JsonObject => deepFreeze({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels: { app: 'web' }, annotations: { big: 'x'.repeat(1000) } },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }] },
  status: { phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }], conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }, { type: 'Initialized', status: 'True' }] },
});

describe('podView', { timeout: 10_000 }, () => {
  it('keeps what the controllers read, frozen, with the pod\'s own labels, ports and IPs', () => {
    const p = pod('a');
    const view = podView(p);
    assert.deepEqual(view, {
      metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', labels: { app: 'web' } },
      spec: { nodeName: 'n1', hostname: undefined, subdomain: undefined, containers: [{ ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }] },
      status: { phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }], conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    assert.ok(Object.isFrozen(view) && Object.isFrozen(view['spec']) && Object.isFrozen(view['status']));
    assert.equal(labelsOf(view), labelsOf(p));
    assert.deepEqual(podIps(view), ['10.0.0.1']);
    assert.equal(findPort(view, { targetPort: 'http', port: 80 }), 8080);
  });

  it('gives the same view for the same pod (the two controllers told one change), a new one for another', () => {
    const p = pod('b');
    const first = podView(p);
    assert.equal(podView(p), first);
    const q = pod('b');
    assert.notEqual(podView(q), first);
    assert.deepEqual(podView(q), first);
  });
});
