// ResourceList arithmetic as the reference's quota helpers do it: which keys survive each operation,
// exact sums of quantities, and the sorted forms written to status and to messages.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Quantity } from '../../src/api/quantity.js';
import {
  addLists, exceededNames, listsEqual, mask, maxLists, negativeNames, prettyPrint, removeZeros, resourceListJson, resourceListOf,
  subtractNonNegative, type ResourceList,
} from '../../src/quota/resource-list.js';

const LIMIT = { timeout: 5_000 };

/** A ResourceList from its JSON form (every value must parse). */
function list(json: Record<string, string>): ResourceList {
  const out = resourceListOf(json);
  assert.equal(out.size, Object.keys(json).length, `every value parses: ${JSON.stringify(json)}`);
  return out;
}

describe('ResourceList', () => {
  it('reads the JSON form, leaving out what is not a quantity', LIMIT, () => {
    const read = resourceListOf({ cpu: '100m', memory: '1Gi', pods: 2, bad: 'lots', nothing: null, nested: { a: 1 } });
    assert.deepEqual([...read.keys()], ['cpu', 'memory', 'pods']);
    assert.equal(read.get('pods')?.toString(), '2');
    assert.equal(resourceListOf('cpu=1').size, 0);
    assert.equal(resourceListOf(undefined).size, 0);
  });

  it('writes the JSON form with keys sorted and quantities as the reference writes them', LIMIT, () => {
    const json = resourceListJson(new Map([['pods', Quantity.of(3)], ['cpu', Quantity.parse('1500m')], ['memory', Quantity.parse('1Gi')]]));
    assert.deepEqual(Object.keys(json), ['cpu', 'memory', 'pods']);
    assert.deepEqual(json, { cpu: '1500m', memory: '1Gi', pods: '3' });
  });

  it('adds: every key of either, shared keys summed', LIMIT, () => {
    const sum = addLists(list({ cpu: '100m', memory: '1Gi' }), list({ cpu: '200m', pods: '1' }));
    assert.deepEqual(resourceListJson(sum), { cpu: '300m', memory: '1Gi', pods: '1' });
    assert.deepEqual(resourceListJson(addLists(list({ memory: '512Mi' }), list({ memory: '512Mi' }))), { memory: '1Gi' });
  });

  it('subtracts for the keys of the first, never below zero; keys only in the second become zero', LIMIT, () => {
    const diff = subtractNonNegative(list({ cpu: '300m', memory: '1Gi', storage: '5Gi' }), list({ cpu: '500m', pods: '1', storage: '2Gi' }));
    assert.deepEqual(resourceListJson(diff), { cpu: '0', memory: '1Gi', pods: '0', storage: '3Gi' });
  });

  it('takes the larger value of every key of either', LIMIT, () => {
    const max = maxLists(list({ cpu: '300m', memory: '1Gi' }), list({ cpu: '500m', memory: '512Mi', 'example.com/gpu': '1' }));
    assert.deepEqual(resourceListJson(max), { cpu: '500m', 'example.com/gpu': '1', memory: '1Gi' });
  });

  it('masks to the names given that it has', LIMIT, () => {
    const masked = mask(list({ cpu: '1', memory: '1Gi', pods: '2' }), ['pods', 'cpu', 'services']);
    assert.deepEqual(resourceListJson(masked), { cpu: '1', pods: '2' });
  });

  it('removes zeros and names the negative values', LIMIT, () => {
    assert.deepEqual(resourceListJson(removeZeros(list({ cpu: '0', memory: '1Gi', pods: '0m' }))), { memory: '1Gi' });
    assert.deepEqual(negativeNames(list({ cpu: '-100m', memory: '1Gi', pods: '0' })), ['cpu']);
  });

  it('names the limits a usage goes past; a name only one side has is not past anything', LIMIT, () => {
    const hard = list({ cpu: '2', memory: '2Gi', pods: '1' });
    assert.deepEqual(exceededNames(list({ cpu: '2001m', memory: '2Gi' }), hard), ['cpu']);
    assert.deepEqual(exceededNames(list({ cpu: '2', memory: '2049Mi', pods: '2' }), hard).sort(), ['memory', 'pods']);
    assert.deepEqual(exceededNames(list({ services: '9' }), hard), []);
  });

  it('compares by keys and values, whatever the text', LIMIT, () => {
    assert.ok(listsEqual(list({ cpu: '1', memory: '1Gi' }), list({ memory: '1024Mi', cpu: '1000m' })));
    assert.ok(!listsEqual(list({ cpu: '1' }), list({ cpu: '1', pods: '0' })));
    assert.ok(!listsEqual(list({ cpu: '1', memory: '1Gi' }), list({ cpu: '1', pods: '1Gi' })));
    assert.ok(!listsEqual(list({ cpu: '1' }), list({ cpu: '2' })));
  });

  it('prints "name=value" sorted by name, comma-separated, as the reference\'s messages do', LIMIT, () => {
    assert.equal(prettyPrint(list({ pods: '2', cpu: '500m', 'requests.memory': '1Gi' })), 'cpu=500m,pods=2,requests.memory=1Gi');
    assert.equal(prettyPrint(new Map()), '');
  });
});
