// The reference's labelling of requests: scope, reported verb, dry run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dryRunLabel, metricScope, reportedVerb, watchParameter } from '../../src/metrics/request-labels.js';

describe('request labels', { timeout: 5000 }, () => {
  it('scopes: a named object or a create is resource, then namespace, cluster, or none', () => {
    assert.equal(metricScope(true, 'create', undefined, 'ns'), 'resource');
    assert.equal(metricScope(true, 'get', 'x', 'ns'), 'resource');
    assert.equal(metricScope(true, 'list', undefined, 'ns'), 'namespace');
    assert.equal(metricScope(true, 'list', undefined, undefined), 'cluster');
    assert.equal(metricScope(false, 'get', undefined, undefined), '');
  });

  it('verbs: LIST for collection reads, WATCH, APPLY for an apply patch only, other for unknown methods', () => {
    assert.equal(reportedVerb('GET', 'namespace', false, undefined), 'LIST');
    assert.equal(reportedVerb('GET', 'resource', false, undefined), 'GET');
    assert.equal(reportedVerb('HEAD', '', false, undefined), 'GET');
    assert.equal(reportedVerb('GET', 'cluster', true, undefined), 'WATCH');
    assert.equal(reportedVerb('PATCH', 'resource', false, 'application/apply-patch+yaml'), 'APPLY');
    assert.equal(reportedVerb('PATCH', 'resource', false, 'application/merge-patch+json'), 'PATCH');
    assert.equal(reportedVerb('DELETE', 'namespace', false, undefined), 'DELETE');
    assert.equal(reportedVerb('OPTIONS', 'resource', false, undefined), 'other');
  });

  it('?watch= reads as the reference reads a bool; dry run values deduplicated, sorted, or invalid', () => {
    assert.equal(watchParameter('GET', new URLSearchParams('watch=1')), true);
    assert.equal(watchParameter('GET', new URLSearchParams('watch=false')), false);
    assert.equal(watchParameter('POST', new URLSearchParams('watch=true')), false);
    assert.equal(dryRunLabel('/x', new URLSearchParams('')), '');
    assert.equal(dryRunLabel('/x?dryRun=All&dryRun=All', new URLSearchParams('dryRun=All&dryRun=All')), 'All');
    assert.equal(dryRunLabel('/x?dryRun=Some', new URLSearchParams('dryRun=Some')), 'invalid');
  });
});
