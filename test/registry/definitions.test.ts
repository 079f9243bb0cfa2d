// The set of served resources: found by group, version and resource, listed in the order they were
// added (a replaced one keeping its place), and forgotten when removed (the group with its last one).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { genericDefinition, ResourceDefinitions, type DefinitionChange } from '../../src/registry/definitions.js';
import { objectKey, resourcePrefix } from '../../src/registry/keys.js';

const widgets = (versions = ['v1', 'v1beta1'], kind = 'Widget') => genericDefinition({ group: 'example.com', resource: 'widgets', kind, namespaced: true, versions });
const gadgets = () => genericDefinition({ group: 'example.com', resource: 'gadgets', kind: 'Gadget', namespaced: false, versions: ['v1'] });
const things = () => genericDefinition({ group: 'other.io', resource: 'things', kind: 'Thing', namespaced: true, versions: ['v2'] });
const names = (d: ResourceDefinitions) => [...d.definitions()].map((x) => `${x.group}/${x.resource}`);

describe('resource definitions', { timeout: 10_000 }, () => {
  it('finds each version of a resource, and each group-version\'s resources by name', () => {
    const d = new ResourceDefinitions();
    d.add(widgets());
    d.add(things());
    d.add(gadgets());
    assert.equal(d.lookup('example.com', 'v1beta1', 'widgets')?.apiVersion, 'example.com/v1beta1');
    assert.equal(d.lookup('example.com', 'v2', 'widgets'), undefined);
    assert.equal(d.lookup('example.com', 'v1', 'things'), undefined);
    assert.deepEqual(d.resources('example.com', 'v1')?.map((i) => i.resource), ['gadgets', 'widgets']);
    assert.deepEqual(d.resources('example.com', 'v1beta1')?.map((i) => i.resource), ['widgets']);
    assert.equal(d.resources('example.com', 'v2'), undefined);
    assert.equal(d.resources('other.io', 'v1'), undefined);
    assert.equal(d.byKind('other.io', 'v2', 'Thing')?.resource, 'things');
    assert.deepEqual(d.groups().map((g) => [g.name, g.versions]), [['example.com', ['v1', 'v1beta1']], ['other.io', ['v2']]]);
    assert.deepEqual(names(d), ['example.com/widgets', 'other.io/things', 'example.com/gadgets']);
    assert.deepEqual([...d.all()].map((i) => `${i.resource}/${i.version}`), ['widgets/v1', 'widgets/v1beta1', 'things/v2', 'gadgets/v1']);
  });

  it('replaces a definition in its place, and says so', () => {
    const d = new ResourceDefinitions();
    const heard: string[] = [];
    d.subscribe((c: DefinitionChange) => heard.push(`${c.type} ${c.definition.kind}`));
    d.add(widgets());
    d.add(things());
    d.add(widgets(['v2'], 'Widget2'));
    assert.deepEqual(names(d), ['example.com/widgets', 'other.io/things']);
    assert.equal(d.lookup('example.com', 'v1', 'widgets'), undefined);
    assert.equal(d.lookup('example.com', 'v2', 'widgets')?.kind, 'Widget2');
    assert.equal(d.resources('example.com', 'v1'), undefined);
    assert.deepEqual(d.groups().find((g) => g.name === 'example.com')?.versions, ['v2']);
    assert.deepEqual(heard, ['added Widget', 'added Thing', 'removed Widget', 'added Widget2']);
  });

  it('forgets a removed resource, and its group with the last of it', () => {
    const d = new ResourceDefinitions();
    d.add(widgets());
    d.add(gadgets());
    d.add(things());
    assert.equal(d.remove('example.com', 'widgets'), true);
    assert.equal(d.remove('example.com', 'widgets'), false);
    assert.equal(d.lookup('example.com', 'v1', 'widgets'), undefined);
    assert.equal(d.definition('example.com', 'widgets'), undefined);
    assert.deepEqual(d.resources('example.com', 'v1')?.map((i) => i.resource), ['gadgets']);
    assert.equal(d.resources('example.com', 'v1beta1'), undefined);
    assert.equal(d.remove('example.com', 'gadgets'), true);
    assert.equal(d.group('example.com'), undefined);
    assert.equal(d.resources('example.com', 'v1'), undefined);
    assert.deepEqual(names(d), ['other.io/things']);
    // Added again, it comes last.
    d.add(widgets());
    assert.deepEqual(names(d), ['other.io/things', 'example.com/widgets']);
    assert.equal(d.lookup('example.com', 'v1', 'widgets')?.kind, 'Widget');
  });

  it('names the storage version, and another resource\'s when the two cohabit (events.k8s.io events are core events)', () => {
    const d = new ResourceDefinitions();
    d.add(genericDefinition({ group: '', resource: 'events', kind: 'Event', namespaced: true, versions: ['v1'] }));
    d.add(genericDefinition({ group: 'events.k8s.io', resource: 'events', kind: 'Event', namespaced: true, versions: ['v1'] }));
    d.add(widgets(['v1', 'v1beta1']));
    assert.equal(d.storageInfo({ group: 'events.k8s.io', resource: 'events' })?.apiVersion, 'v1');
    assert.equal(d.storageInfo({ group: 'example.com', resource: 'widgets' })?.apiVersion, 'example.com/v1');
    assert.equal(resourcePrefix({ group: 'events.k8s.io', resource: 'events' }), '/registry/events/');
    assert.equal(resourcePrefix({ group: '', resource: 'configmaps' }), '/registry/configmaps/');
    assert.equal(resourcePrefix({ group: 'apps', resource: 'deployments' }), '/registry/apps/deployments/');
    // Asked again (now from its kept form), the same.
    assert.equal(resourcePrefix({ group: 'apps', resource: 'deployments' }), '/registry/apps/deployments/');
    assert.equal(objectKey({ group: 'apps', resource: 'deployments', namespaced: true }, 'ns', 'web'), '/registry/apps/deployments/ns/web');
    assert.equal(objectKey({ group: '', resource: 'nodes', namespaced: false }, undefined, 'n1'), '/registry/nodes/n1');
  });
});
