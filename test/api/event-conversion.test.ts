// core/v1 Event ⇄ events.k8s.io/v1 Event, as the reference converts through its internal Event:
// the upstream testdata objects (every field set) go both ways and back without a loss, in the
// target struct's field order; fields a side holds as zero come out as Go writes them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { convertEvent, eventFromCore, eventToCore } from '../../src/api/conversion/events.js';
import type { JsonObject } from '../../src/json.js';

const testdata = (name: string): JsonObject => JSON.parse(readFileSync(new URL(`../../../test/fixtures/k8s-1.25/testdata/${name}`, import.meta.url), 'utf8')) as JsonObject;
const LIMIT = { timeout: 10_000 };

describe('Event conversion between core/v1 and events.k8s.io/v1', () => {
  it('the upstream testdata round-trip both ways without a loss, keys in the struct order of each version', LIMIT, () => {
    const core = testdata('core.v1.Event.json');
    const events = testdata('events.k8s.io.v1.Event.json');
    const coreThere = eventFromCore(core);
    assert.deepEqual(Object.keys(coreThere), Object.keys(events));
    assert.deepEqual(eventToCore(coreThere), core);
    assert.deepEqual(JSON.stringify(eventToCore(coreThere)), JSON.stringify(core));
    const eventsThere = eventToCore(events);
    assert.deepEqual(Object.keys(eventsThere), Object.keys(core));
    assert.deepEqual(JSON.stringify(eventFromCore(eventsThere)), JSON.stringify(events));
  });

  it('maps the renamed fields one to one', LIMIT, () => {
    const events = testdata('events.k8s.io.v1.Event.json');
    const core = eventToCore(events);
    const pairs: Array<[string, string]> = [
      ['involvedObject', 'regarding'], ['message', 'note'], ['source', 'deprecatedSource'], ['firstTimestamp', 'deprecatedFirstTimestamp'],
      ['lastTimestamp', 'deprecatedLastTimestamp'], ['count', 'deprecatedCount'], ['reportingComponent', 'reportingController'],
    ];
    for (const [coreName, eventsName] of pairs) assert.deepEqual(core[coreName], events[eventsName], coreName);
    for (const same of ['reason', 'type', 'eventTime', 'series', 'action', 'related', 'reportingInstance', 'metadata']) assert.deepEqual(core[same], events[same], same);
    assert.equal(core['apiVersion'], 'v1');
    assert.equal(core['kind'], 'Event');
  });

  it('zero values as Go writes each struct: omitted where omitempty, {} or null where not', LIMIT, () => {
    const bare = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, reason: '', count: 0, reportingComponent: '', reportingInstance: '', eventTime: null };
    assert.deepEqual(eventFromCore(bare), {
      kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { name: 'e' },
      eventTime: null, regarding: {}, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null,
    });
    assert.deepEqual(eventToCore({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' } }), {
      kind: 'Event', apiVersion: 'v1', metadata: { name: 'e' },
      involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '',
    });
  });

  it('convertEvent picks the direction by apiVersion, and leaves an object already there alone but for its apiVersion', LIMIT, () => {
    const events = testdata('events.k8s.io.v1.Event.json');
    assert.deepEqual(convertEvent(events, 'events.k8s.io/v1', 'v1'), eventToCore(events));
    assert.deepEqual(convertEvent(testdata('events.k8s.io.v1beta1.Event.json'), 'events.k8s.io/v1beta1', 'v1')['message'], testdata('events.k8s.io.v1beta1.Event.json')['note']);
    const beta = testdata('events.k8s.io.v1beta1.Event.json');
    assert.deepEqual(convertEvent(beta, 'events.k8s.io/v1beta1', 'events.k8s.io/v1'), { ...beta, apiVersion: 'events.k8s.io/v1' });
  });
});
