// The remote groups' places in /apis and their versions' order, and the proxy's path check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { APIServiceView } from '../../src/aggregator/apiservice-objects.js';
import { mergedGroupList, remoteGroups } from '../../src/aggregator/discovery.js';
import { checkedPath } from '../../src/aggregator/proxy.js';
import { fixture } from '../helpers.js';

const view = (group: string, version: string, groupPriorityMinimum: number, versionPriority: number): APIServiceView => ({
  name: `${version}.${group}`, group, version, groupPriorityMinimum, versionPriority, insecureSkipTLSVerify: false, service: { namespace: 'ns', name: 'svc', port: 443 },
});

describe('remote groups in discovery', { timeout: 10_000 }, () => {
  it('orders versions by versionPriority, then as Kubernetes orders versions', () => {
    const [group] = remoteGroups([view('m.io', 'v1alpha1', 100, 10), view('m.io', 'v1beta1', 100, 10), view('m.io', 'v2', 100, 5), view('m.io', 'v1', 100, 10)]);
    assert.deepEqual(group!.versions.map((v) => v.version), ['v1', 'v1beta1', 'v1alpha1', 'v2']);
    assert.equal(group!.priority, 100);
  });

  it('takes the highest groupPriorityMinimum of a group\'s APIServices', () => {
    const [group] = remoteGroups([view('m.io', 'v1', 100, 10), view('m.io', 'v2', 17650, 10)]);
    assert.equal(group!.priority, 17650);
  });

  it('places groups by priority among the reference\'s, keeping the built-ins\' order', () => {
    const served = Buffer.from(JSON.stringify(fixture('discovery/apis').response.body));
    const builtins = (JSON.parse(served.toString()).groups as Array<{ name: string }>).map((g) => g.name);
    const merged = JSON.parse(mergedGroupList(served, remoteGroups([view('metrics.k8s.io', 'v1beta1', 100, 100), view('high.example.com', 'v1', 17650, 1)])).toString());
    const names = (merged.groups as Array<{ name: string }>).map((g) => g.name);
    assert.deepEqual(names.filter((n) => builtins.includes(n)), builtins);
    assert.equal(names.at(-1), 'metrics.k8s.io');
    // 17650: after authentication.k8s.io (17700), before authorization.k8s.io (17600).
    assert.equal(names[names.indexOf('high.example.com') - 1], 'authentication.k8s.io');
    assert.equal(names[names.indexOf('high.example.com') + 1], 'authorization.k8s.io');
  });

  it('leaves /apis as it is without remote groups', () => {
    const served = Buffer.from('{"kind":"APIGroupList","groups":[]}');
    assert.equal(mergedGroupList(served, []), served);
  });
});

describe('the proxied path', { timeout: 10_000 }, () => {
  it('keeps a path under the group-version, with its query', () => {
    assert.equal(checkedPath('/apis/m.io/v1/namespaces/a/pods?watch=true', 'm.io', 'v1'), '/apis/m.io/v1/namespaces/a/pods?watch=true');
    assert.equal(checkedPath('/apis/m.io/v1', 'm.io', 'v1'), '/apis/m.io/v1');
  });

  for (const path of ['/apis/m.io/v1/..', '/apis/m.io/v1/./x', '/apis/m.io/v1/%2E%2E/x', '/apis/m.io/v1/a%2Fb', '/apis/m.io/v1/a%5Cb', '/apis/m.io/v1/%zz', '/apis/m.io/v10/x', '/apis/m.io/v1x']) {
    it(`refuses ${path} with a 400`, () => {
      assert.throws(() => checkedPath(path, 'm.io', 'v1'), (err: { code?: number }) => err.code === 400);
    });
  }
});
