// ControllerRevision names as the reference's: the recorded StatefulSet and DaemonSet get
// revisions named as kube-controller-manager named them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { goMapJson, revisionHash, revisionName, templatePatch } from '../../src/controllers/kit/history.js';
import { daemonRevisionHash } from '../../src/controllers/daemonset/revisions.js';
import type { JsonObject } from '../../src/json.js';

function created(file: string): JsonObject {
  const url = new URL(`../../../test/fixtures/reference/create/${file}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).response.body as JsonObject;
}

function revisionNames(file: string): string[] {
  const url = new URL('../../../test/fixtures/reference/table/apps-v1-controllerrevisions.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')).response.body.rows as Array<{ cells: string[] }>).map((r) => r.cells[0]!).filter((n) => n.startsWith(file));
}

describe('controller revision history', { timeout: 10_000 }, () => {
  it('names the StatefulSet revision as the reference (FNV-32 of the patch, collision count 0)', () => {
    const set = created('apps-v1-statefulsets.json');
    assert.deepEqual(revisionNames('web-'), ['web-85bcd66f99']);
    assert.equal(revisionName('web', revisionHash(templatePatch(set), 0)), 'web-85bcd66f99');
  });

  it('writes the patch as Go writes a map: sorted keys, HTML characters escaped', () => {
    assert.equal(goMapJson({ b: 1, a: { '<': '&>', $patch: 'replace' } }), '{"a":{"$patch":"replace","\\u003c":"\\u0026\\u003e"},"b":1}');
    const patch = templatePatch(created('apps-v1-statefulsets.json'));
    assert.match(goMapJson(patch), /^\{"spec":\{"template":\{"\$patch":"replace","metadata":\{"creationTimestamp":null,"labels":\{"app":"web"\}\}/);
  });

  // The DaemonSet's revision is named by the pod-template hash (the reference's ComputeHash).
  it('names the DaemonSet revision as the reference', () => {
    const ds = created('apps-v1-daemonsets.json');
    assert.deepEqual(revisionNames('log-agent-'), ['log-agent-fb5d6f459']);
    assert.equal(revisionName('log-agent', daemonRevisionHash(ds, undefined)), 'log-agent-fb5d6f459');
  });
});
