// The field manager's view of real CRDs: list maps and sets keep their topology, int-or-string
// stays untyped, value validations are left out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldManagerSchema } from '../../../src/apiextensions/schema/index.js';
import { fixtureSchema } from './crd-fixtures.js';
import { opts } from './schema-helpers.js';

type Node = { type?: string; pattern?: string; enum?: unknown; properties?: Record<string, Node>; items?: Node; 'x-kubernetes-list-type'?: string; 'x-kubernetes-list-map-keys'?: string[]; 'x-kubernetes-map-type'?: string };

describe('field manager topology of fixture CRDs', () => {
  it('Prometheus: containers are a list map keyed by name, ports keyed by containerPort and protocol', opts, () => {
    const t = fieldManagerSchema(fixtureSchema('prometheuses.monitoring.coreos.com').structural) as Node;
    const containers = t.properties!['spec']!.properties!['containers']!;
    assert.equal(containers.type, 'array');
    const ports = containers.items!.properties!['ports']!;
    assert.equal(ports['x-kubernetes-list-type'], 'map');
    assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
    assert.equal(containers.items!.properties!['resources']!.properties!['limits']!.type, 'object');
  });
  it('ServiceMonitor: targetPort untyped (int-or-string), patterns and enums left out, atomic maps kept', opts, () => {
    const t = fieldManagerSchema(fixtureSchema('servicemonitors.monitoring.coreos.com').structural) as Node;
    const endpoint = t.properties!['spec']!.properties!['endpoints']!.items!;
    assert.equal(endpoint.properties!['targetPort']!.type, undefined);
    assert.equal(endpoint.properties!['scrapeTimeout']!.pattern, undefined);
    assert.equal(endpoint.properties!['relabelings']!.items!.properties!['action']!.enum, undefined);
    assert.equal(t.properties!['spec']!.properties!['selector']!['x-kubernetes-map-type'], 'atomic');
  });
});
