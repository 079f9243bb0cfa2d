import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePolicy, PolicyEvaluator, type PolicyAttributes } from '../../src/audit/policy.js';

const HEAD = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';

function evaluator(yaml: string): PolicyEvaluator {
  return new PolicyEvaluator(parsePolicy(HEAD + yaml));
}

const jane = { name: 'jane', groups: ['devs', 'system:authenticated'] };
const get = (over: Partial<PolicyAttributes> = {}): PolicyAttributes =>
  ({ user: jane, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', namespace: 'default', name: 'web', ...over });
const nonResource = (path: string): PolicyAttributes => ({ user: jane, verb: 'get', resourceRequest: false, path });

describe('audit policy: matching', { timeout: 10_000 }, () => {
  it('the first matching rule wins; no match is None', () => {
    const p = evaluator('rules:\n- level: Request\n  verbs: [get]\n- level: Metadata\n');
    assert.equal(p.evaluate(get()).level, 'Request');
    assert.equal(p.evaluate(get({ verb: 'list' })).level, 'Metadata');
    const only = evaluator('rules:\n- level: Metadata\n  verbs: [create]\n');
    assert.equal(only.evaluate(get()).level, 'None');
  });

  it('users and userGroups; a request without a user matches neither', () => {
    const p = evaluator('rules:\n- level: RequestResponse\n  users: [jane]\n- level: Request\n  userGroups: [ops, devs]\n- level: Metadata\n');
    assert.equal(p.evaluate(get()).level, 'RequestResponse');
    assert.equal(p.evaluate(get({ user: { name: 'bob', groups: ['devs'] } })).level, 'Request');
    assert.equal(p.evaluate(get({ user: { name: 'bob', groups: ['qa'] } })).level, 'Metadata');
    assert.equal(p.evaluate(get({ user: undefined })).level, 'Metadata');
  });

  it('resources by group, "*", "pods/*", "*/status", resourceNames', () => {
    const p = evaluator(`rules:
- level: RequestResponse
  resources: [{group: "", resources: ["pods/*"]}]
- level: Request
  resources: [{group: apps, resources: ["*/status"]}]
- level: Metadata
  resources: [{group: "", resources: [configmaps], resourceNames: [special]}]
- level: Request
  resources: [{group: batch}]
- level: None
  resources: [{group: "", resources: ["*"]}]
`);
    assert.equal(p.evaluate(get({ subresource: 'log' })).level, 'RequestResponse');
    // As the reference's checker: "pods/*" is the resource and every subresource of it.
    assert.equal(p.evaluate(get()).level, 'RequestResponse');
    assert.equal(p.evaluate(get({ resource: 'services' })).level, 'None');
    assert.equal(p.evaluate(get({ apiGroup: 'apps', resource: 'deployments', subresource: 'status' })).level, 'Request');
    assert.equal(p.evaluate(get({ apiGroup: 'apps', resource: 'deployments' })).level, 'None', 'no rule for apps deployments: unmatched');
    assert.equal(p.evaluate(get({ resource: 'configmaps', name: 'special' })).level, 'Metadata');
    assert.equal(p.evaluate(get({ resource: 'configmaps', name: 'other' })).level, 'None');
    assert.equal(p.evaluate(get({ apiGroup: 'batch', resource: 'jobs' })).level, 'Request', 'a group without resources is every resource of it');
    // 1.25 has no group wildcard: "*" is refused as a group name.
    assert.throws(() => evaluator('rules:\n- level: Metadata\n  resources: [{group: "*"}]\n'), /rules\[0\]\.resources\.group: Invalid value: "\*"/);
  });

  it('namespaces ("" is cluster-scoped) match resource requests only', () => {
    const p = evaluator('rules:\n- level: Request\n  namespaces: [""]\n- level: Metadata\n  namespaces: [kube-system]\n');
    assert.equal(p.evaluate(get({ resource: 'nodes', namespace: undefined })).level, 'Request');
    assert.equal(p.evaluate(get({ namespace: 'kube-system' })).level, 'Metadata');
    assert.equal(p.evaluate(get()).level, 'None');
    assert.equal(p.evaluate(nonResource('/healthz')).level, 'None');
  });

  it('nonResourceURLs: exact, trailing *, "*"; never a resource request', () => {
    const p = evaluator('rules:\n- level: Request\n  nonResourceURLs: [/healthz*]\n- level: Metadata\n  nonResourceURLs: [/version]\n- level: RequestResponse\n  nonResourceURLs: ["*"]\n  verbs: [post]\n');
    assert.equal(p.evaluate(nonResource('/healthz')).level, 'Request');
    assert.equal(p.evaluate(nonResource('/healthz/etcd')).level, 'Request');
    assert.equal(p.evaluate(nonResource('/version')).level, 'Metadata');
    assert.equal(p.evaluate(nonResource('/version/x')).level, 'None');
    assert.equal(p.evaluate({ ...nonResource('/anything'), verb: 'post' }).level, 'RequestResponse');
    assert.equal(p.evaluate({ ...get(), verb: 'post' }).level, 'None');
  });

  it('omitStages: the policy\'s and the rule\'s together; omitManagedFields: the rule\'s over the policy\'s', () => {
    const p = evaluator('omitStages: [RequestReceived]\nomitManagedFields: true\nrules:\n- level: Metadata\n  verbs: [get]\n  omitStages: [ResponseStarted]\n  omitManagedFields: false\n- level: Metadata\n');
    const a = p.evaluate(get());
    assert.deepEqual([...a.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.equal(a.omitManagedFields, false);
    const b = p.evaluate(get({ verb: 'list' }));
    assert.deepEqual([...b.omitStages], ['RequestReceived']);
    assert.equal(b.omitManagedFields, true);
    const none = evaluator('omitStages: [Panic]\nrules:\n- level: Metadata\n  verbs: [create]\n').evaluate(get());
    assert.deepEqual({ level: none.level, omit: [...none.omitStages] }, { level: 'None', omit: ['Panic'] });
  });

  it('reads JSON as well as YAML', () => {
    const p = new PolicyEvaluator(parsePolicy(JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Request', verbs: ['get'] }] })));
    assert.equal(p.evaluate(get()).level, 'Request');
  });
});

describe('audit policy: refused as the reference refuses it', { timeout: 10_000 }, () => {
  const refused = (text: string): string => {
    try {
      parsePolicy(text);
    } catch (err) {
      return (err as Error).message;
    }
    assert.fail(`accepted: ${text}`);
  };

  it('levels, stages, URLs, resource names, groups, mixed rules, no rules', () => {
    assert.equal(refused(`${HEAD}rules:\n- level: Loud\n`), 'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"');
    assert.equal(refused(`${HEAD}rules:\n- verbs: [get]\n`), 'rules[0].level: Required value');
    assert.equal(refused(`${HEAD}omitStages: [Done]\nrules:\n- level: None\n`), 'omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic');
    assert.equal(refused(`${HEAD}rules:\n- level: None\n  nonResourceURLs: [healthz]\n`), "rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must begin with a '/' character");
    assert.equal(refused(`${HEAD}rules:\n- level: None\n  nonResourceURLs: ["/a*b"]\n`), "rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must be the final character of the rule");
    assert.equal(refused(`${HEAD}rules:\n- level: None\n  resources: [{group: "", resourceNames: [x]}]\n`), 'rules[0].resources.resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource');
    assert.match(refused(`${HEAD}rules:\n- level: None\n  resources: [{group: "apps/v1"}]\n`), /^rules\[0\]\.resources\.group: Invalid value: "apps\/v1": a lowercase RFC 1123 subdomain/);
    assert.equal(refused(`${HEAD}rules:\n- level: None\n  nonResourceURLs: [/x]\n  namespaces: [a]\n`), 'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs');
    assert.equal(refused(`${HEAD}rules: []\n`), 'loaded illegal policy with 0 rules');
    // Several errors: as an aggregate.
    assert.equal(refused(`${HEAD}rules:\n- level: Loud\n- level: ""\n`), '[rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse", rules[1].level: Required value]');
  });

  it('what is not an audit.k8s.io/v1 Policy', () => {
    assert.equal(refused('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n'), 'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1"');
    assert.equal(refused('apiVersion: audit.k8s.io/v1\nrules: []\n'), "failed decoding: Object 'Kind' is missing");
    assert.match(refused(`${HEAD}rules:\n- level: None\n  users: jane\n`), /cannot unmarshal string into Go struct field PolicyRule\.rules\.users of type \[\]string/);
    assert.match(refused('rules: [\n'), /^failed decoding: /);
  });
});

describe('audit policy: remembered decisions', { timeout: 10_000 }, () => {
  it('decides a repeated request as the first time, and tells apart what the rules tell apart', () => {
    const p = evaluator(`rules:
- level: None
  users: [system:kube-proxy]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps], resourceNames: [special]}]
- level: Request
  userGroups: [ops]
  namespaces: [kube-system]
- level: Metadata
  nonResourceURLs: ["/healthz*"]
- level: Request
`);
    const cases: Array<[PolicyAttributes, string]> = [
      [get({ user: { name: 'system:kube-proxy', groups: [] } }), 'None'],
      [get({ resource: 'configmaps', name: 'special' }), 'RequestResponse'],
      [get({ resource: 'configmaps', name: 'other' }), 'Request'],
      [get({ user: { name: 'jane', groups: ['ops'] }, namespace: 'kube-system' }), 'Request'],
      [get({ user: { name: 'jane', groups: ['ops'] }, namespace: 'default', resource: 'configmaps', name: 'special' }), 'RequestResponse'],
      [nonResource('/healthz/etcd'), 'Metadata'],
      [nonResource('/version'), 'Request'],
      [get({ user: undefined, resource: 'configmaps', name: 'special' }), 'RequestResponse'],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [attrs, level] of cases) assert.equal(p.evaluate(attrs).level, level, `${JSON.stringify(attrs)} (round ${round})`);
    }
  });
});
