import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkFieldSelector, objectFields, parseFieldSelector, parseLabelSelector } from '../../src/api/selectors.js';
import { StatusError } from '../../src/errors.js';
import { builtinHooks, referenceDir } from '../helpers.js';

interface Fixture {
  request: { path: string };
  response: { status: number; body: { message: string; reason: string; code: number } };
}

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(referenceDir, 'errors', `${name}.json`), 'utf8')) as Fixture;
}

/** The value of one query parameter of a fixture's request path. */
function queryParam(f: Fixture, name: string): string {
  const value = new URL(f.request.path, 'http://x').searchParams.get(name);
  assert.ok(value !== null, `fixture request has no ${name}`);
  return value;
}

/** Asserts that fn throws a 400 BadRequest with exactly `message`. */
function throws400(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StatusError, `expected a StatusError, got ${String(err)}`);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message, message);
    return true;
  });
}

const labels = { app: 'web', tier: 'front', 'example.com/team': 'a', size: '10' };

describe('parseLabelSelector', () => {
  const m = (text: string, ...set: [Record<string, string> | undefined] | []): boolean =>
    parseLabelSelector(text).matches(set.length ? set[0] : labels);

  it('matches key=value and key==value', () => {
    assert.equal(m('app=web'), true);
    assert.equal(m('app==web'), true);
    assert.equal(m('app=db'), false);
    assert.equal(m('missing=web'), false);
    assert.equal(m('example.com/team=a'), true);
  });

  it('matches key!=value (true when the key is absent)', () => {
    assert.equal(m('app!=db'), true);
    assert.equal(m('app!=web'), false);
    assert.equal(m('missing!=x'), true);
  });

  it('matches in and notin', () => {
    assert.equal(m('app in (db,web)'), true);
    assert.equal(m('app in (db)'), false);
    assert.equal(m('missing in (web)'), false);
    assert.equal(m('app notin (db)'), true);
    assert.equal(m('app notin (web,db)'), false);
    assert.equal(m('missing notin (web)'), true);
  });

  it('matches exists and does-not-exist', () => {
    assert.equal(m('app'), true);
    assert.equal(m('missing'), false);
    assert.equal(m('!missing'), true);
    assert.equal(m('!app'), false);
  });

  it('matches numeric gt and lt', () => {
    assert.equal(m('size>5'), true);
    assert.equal(m('size>10'), false);
    assert.equal(m('size<11'), true);
    assert.equal(m('size<10'), false);
    assert.equal(m('app>1'), false, 'a non-numeric label value never compares');
    assert.equal(m('missing<100'), false);
  });

  it('ANDs comma-separated requirements', () => {
    assert.equal(m('app=web,tier=front'), true);
    assert.equal(m('app=web,tier=back'), false);
    assert.equal(m('app in (web),!missing,size>1,tier'), true);
  });

  it('tolerates whitespace between tokens', () => {
    assert.equal(m('  app  =  web ,  tier in ( front , back )  '), true);
    assert.equal(m('app\tnotin\t(db)'), true);
    assert.equal(m('! missing'), true);
  });

  it('treats empty values and the words in/notin as values', () => {
    assert.equal(m('app=', { app: '' }), true);
    assert.equal(m('app in ()', { app: '' }), true);
    assert.equal(m('app in (,x)', { app: '' }), true);
    assert.equal(m('in in (notin)', { in: 'notin' }), true);
  });

  it('an empty selector is empty and matches everything', () => {
    for (const text of ['', '   ']) {
      const s = parseLabelSelector(text);
      assert.equal(s.empty, true);
      assert.equal(s.matches(labels), true);
      assert.equal(s.matches(undefined), true);
    }
    assert.equal(parseLabelSelector('app').empty, false);
  });

  it('treats undefined labels as none', () => {
    assert.equal(m('!app', undefined), true);
    assert.equal(m('app', undefined), false);
    assert.equal(m('app!=x', undefined), true);
  });

  it('answers the fixture message for an unbalanced set (list-invalid-label-selector)', () => {
    const f = fixture('list-invalid-label-selector');
    assert.equal(f.response.status, 400);
    throws400(() => parseLabelSelector(queryParam(f, 'labelSelector')), f.response.body.message);
  });

  it('answers the fixture message for an invalid value (list-invalid-label-selector-value)', () => {
    const f = fixture('list-invalid-label-selector-value');
    assert.equal(f.response.status, 400);
    throws400(() => parseLabelSelector(queryParam(f, 'labelSelector')), f.response.body.message);
  });

  it('answers the reference messages for other malformed selectors', () => {
    throws400(() => parseLabelSelector('a b'), 'unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt');
    throws400(() => parseLabelSelector(',a'), "found ',', expected: !, identifier, or 'end of string'");
    throws400(() => parseLabelSelector('a,'), "found '', expected: identifier after ','");
    throws400(() => parseLabelSelector('a=b c'), "found 'c', expected: ',' or 'end of string'");
    throws400(() => parseLabelSelector('a in b'), "unable to parse requirement: found 'b' expected: '('");
    throws400(() => parseLabelSelector('a=!b'), "unable to parse requirement: found '!', expected: identifier");
    throws400(() => parseLabelSelector('a>x'), 'unable to parse requirement: values[0]: Invalid value: "x": for \'Gt\', \'Lt\' operators, the value must be an integer');
    throws400(
      () => parseLabelSelector('app:x'),
      'unable to parse requirement: <nil>: Invalid value: "app:x": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', '
        + "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
        + "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
    throws400(() => parseLabelSelector('/a'), 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty');
  });
});

describe('parseFieldSelector', () => {
  const fields = { 'metadata.name': 'a', 'metadata.namespace': 'ns', 'spec.nodeName': 'n1' };

  it('parses and matches =, == and !=', () => {
    assert.equal(parseFieldSelector('metadata.name=a').matches(fields), true);
    assert.equal(parseFieldSelector('metadata.name==a').matches(fields), true);
    assert.equal(parseFieldSelector('metadata.name=b').matches(fields), false);
    assert.equal(parseFieldSelector('metadata.name!=b').matches(fields), true);
    assert.equal(parseFieldSelector('metadata.name!=a').matches(fields), false);
    assert.deepEqual(parseFieldSelector('a==1').requirements, [{ field: 'a', op: '=', value: '1' }]);
    assert.deepEqual(parseFieldSelector('a!=1').requirements, [{ field: 'a', op: '!=', value: '1' }]);
  });

  it('ANDs terms, listing them sorted by their text', () => {
    const s = parseFieldSelector('spec.nodeName=n1,metadata.name=a');
    assert.deepEqual(s.requirements.map((r) => r.field), ['metadata.name', 'spec.nodeName']);
    assert.equal(s.matches(fields), true);
    assert.equal(parseFieldSelector('metadata.name=a,spec.nodeName=n2').matches(fields), false);
  });

  it('compares a missing field as the empty string', () => {
    assert.equal(parseFieldSelector('status.phase=').matches(fields), true);
    assert.equal(parseFieldSelector('status.phase!=Running').matches(fields), true);
    assert.equal(parseFieldSelector('status.phase=Running').matches(fields), false);
  });

  it('unescapes \\, \\= and \\\\ in values', () => {
    const s = parseFieldSelector('a=x\\,y,b=p\\=q,c=back\\\\slash');
    assert.deepEqual(s.requirements, [
      { field: 'a', op: '=', value: 'x,y' },
      { field: 'b', op: '=', value: 'p=q' },
      { field: 'c', op: '=', value: 'back\\slash' },
    ]);
    assert.equal(s.matches({ a: 'x,y', b: 'p=q', c: 'back\\slash' }), true);
  });

  it('refuses bad escapes and bare = in values with the reference messages', () => {
    throws400(() => parseFieldSelector('a=b\\x'), 'invalid field selector: invalid escape sequence: \\x');
    throws400(() => parseFieldSelector('a=b\\'), 'invalid field selector: invalid escape sequence: \\');
    throws400(() => parseFieldSelector('a=b=c'), 'invalid field selector: unescaped character in value: 61');
  });

  it('an empty selector is empty and matches everything', () => {
    for (const text of ['', ',', ',,']) {
      const s = parseFieldSelector(text);
      assert.equal(s.empty, true);
      assert.deepEqual(s.requirements, []);
      assert.equal(s.matches(fields), true);
    }
  });

  it('answers the fixture message for a term without an operator (list-invalid-field-selector-syntax)', () => {
    const f = fixture('list-invalid-field-selector-syntax');
    assert.equal(f.response.status, 400);
    throws400(() => parseFieldSelector(queryParam(f, 'fieldSelector')), f.response.body.message);
    throws400(() => parseFieldSelector('a=1,b'), "invalid selector: 'a=1,b'; can't understand 'b'");
  });
});

describe('checkFieldSelector', () => {
  const check = (text: string, group: string, resource: string) => {
    const s = parseFieldSelector(text);
    checkFieldSelector(s, builtinHooks(group, resource).selectableFields);
    return s;
  };

  it('answers the fixture message for an unsupported configmap field (list-unsupported-field-selector)', () => {
    const f = fixture('list-unsupported-field-selector');
    assert.equal(f.response.status, 400);
    throws400(() => check(queryParam(f, 'fieldSelector'), '', 'configmaps'), f.response.body.message);
  });

  it('allows metadata.name and metadata.namespace on configmaps', () => {
    assert.doesNotThrow(() => check('metadata.name=a,metadata.namespace!=b', '', 'configmaps'));
  });

  it('supports the pod fields', () => {
    const podFields = [
      'metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName',
      'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName',
    ];
    for (const field of podFields) assert.doesNotThrow(() => check(`${field}=x`, '', 'pods'), field);
    assert.deepEqual(check('spec.host=n1', '', 'pods').requirements, [{ field: 'spec.nodeName', op: '=', value: 'n1' }]);
    throws400(() => check('spec.hostNetwork=true', '', 'pods'), 'field label not supported: spec.hostNetwork');
  });

  it('answers each resource family in its own words', () => {
    throws400(() => check('status.succeeded=1', 'batch', 'jobs'), 'field label "status.succeeded" not supported for batchv1.Job');
    assert.doesNotThrow(() => check('status.successful=1', 'batch', 'jobs'));
    throws400(() => check('metadata.namespace=x', '', 'nodes'), 'field label not supported: metadata.namespace');
    assert.doesNotThrow(() => check('spec.unschedulable=true', '', 'nodes'));
    throws400(
      () => check('status.replicas=1', 'apps', 'replicasets'),
      '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    throws400(
      () => check('spec.type=ClusterIP', '', 'services'),
      '"spec.type" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    assert.doesNotThrow(() => check('type=Opaque', '', 'secrets'));
    assert.doesNotThrow(() => check('spec.signerName=x', 'certificates.k8s.io', 'certificatesigningrequests'));
    assert.doesNotThrow(() => check('status.phase=Active', '', 'namespaces'));
    assert.doesNotThrow(() => check('status.replicas=2', '', 'replicationcontrollers'));
  });

  it('reports the first refused field in the selector order', () => {
    throws400(() => check('zeta=1,alpha=2', '', 'configmaps'), '"alpha" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('maps events.k8s.io field names to the event field set', () => {
    const s = check('regarding.kind=Pod,reportingController=kubelet', 'events.k8s.io', 'events');
    assert.deepEqual(s.requirements.map((r) => r.field), ['involvedObject.kind', 'reportingComponent']);
    throws400(() => check('involvedObject.kind=Pod', 'events.k8s.io', 'events'), 'field label not supported: involvedObject.kind');
    throws400(() => check('source=kubelet', 'events.k8s.io', 'events'), 'field label not supported: source');
  });

  it('checks custom resources by their scope', () => {
    const s = parseFieldSelector('metadata.namespace=x');
    throws400(() => checkFieldSelector(s, builtinHooks('ref.example.com', 'widgets').selectableFields, { customResource: { namespaced: false } }), 'field label not supported: metadata.namespace');
    assert.doesNotThrow(() => checkFieldSelector(s, builtinHooks('ref.example.com', 'widgets').selectableFields, { customResource: { namespaced: true } }));
  });
});

describe('objectFields', () => {
  it('gives a pod its selectable fields', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: 'default' },
      spec: { nodeName: 'node-a', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa' },
      status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }], nominatedNodeName: 'node-b' },
    };
    assert.deepEqual(objectFields(builtinHooks('', 'pods').selectableFields, pod), {
      'metadata.name': 'web-1',
      'metadata.namespace': 'default',
      'spec.nodeName': 'node-a',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'sa',
      'status.phase': 'Running',
      'status.podIP': '10.0.0.5',
      'status.nominatedNodeName': 'node-b',
    });
  });

  it('renders missing pod fields as empty strings, and matches through check', () => {
    const pending = { metadata: { name: 'p', namespace: 'ns' }, spec: {}, status: { phase: 'Pending' } };
    const fields = objectFields(builtinHooks('', 'pods').selectableFields, pending);
    assert.equal(fields['spec.nodeName'], '');
    assert.equal(fields['status.podIP'], '');
    const s = parseFieldSelector('spec.host=,status.phase=Pending,status.podIPs=');
    checkFieldSelector(s, builtinHooks('', 'pods').selectableFields);
    assert.equal(s.matches(fields), true);
    assert.equal(objectFields(builtinHooks('', 'pods').selectableFields, { metadata: {}, status: { podIP: '10.1.1.1' } })['status.podIP'], '10.1.1.1');
  });

  it('gives a core event its selectable fields (source is source.component)', () => {
    const event = {
      metadata: { name: 'web-1.17a', namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u-1', apiVersion: 'v1', resourceVersion: '42', fieldPath: 'spec.containers{web}' },
      reason: 'Scheduled',
      source: { component: 'default-scheduler' },
      reportingComponent: 'sched',
      type: 'Normal',
    };
    assert.deepEqual(objectFields(builtinHooks('', 'events').selectableFields, event), {
      'metadata.name': 'web-1.17a',
      'metadata.namespace': 'default',
      'involvedObject.kind': 'Pod',
      'involvedObject.namespace': 'default',
      'involvedObject.name': 'web-1',
      'involvedObject.uid': 'u-1',
      'involvedObject.apiVersion': 'v1',
      'involvedObject.resourceVersion': '42',
      'involvedObject.fieldPath': 'spec.containers{web}',
      reason: 'Scheduled',
      reportingComponent: 'sched',
      source: 'default-scheduler',
      type: 'Normal',
    });
    const noSource = { ...event, source: {} };
    assert.equal(objectFields(builtinHooks('', 'events').selectableFields, noSource)['source'], 'sched', 'source falls back to the reporting controller');
  });

  it('reads an events.k8s.io event and matches its selector names', () => {
    const event = {
      apiVersion: 'events.k8s.io/v1',
      metadata: { name: 'e', namespace: 'ns' },
      regarding: { kind: 'Pod', name: 'web-1' },
      reason: 'Pulled',
      reportingController: 'kubelet',
      type: 'Normal',
    };
    const fields = objectFields(builtinHooks('events.k8s.io', 'events').selectableFields, event);
    assert.equal(fields['involvedObject.kind'], 'Pod');
    assert.equal(fields['reportingComponent'], 'kubelet');
    assert.equal(fields['source'], 'kubelet');
    const s = parseFieldSelector('regarding.kind=Pod,regarding.name=web-1,reportingController=kubelet');
    checkFieldSelector(s, builtinHooks('events.k8s.io', 'events').selectableFields);
    assert.equal(s.matches(fields), true);
  });

  it('renders booleans and integers as the reference does', () => {
    assert.equal(objectFields(builtinHooks('', 'nodes').selectableFields, { metadata: { name: 'n' }, spec: { unschedulable: true } })['spec.unschedulable'], 'true');
    assert.equal(objectFields(builtinHooks('', 'nodes').selectableFields, { metadata: { name: 'n' }, spec: {} })['spec.unschedulable'], 'false');
    assert.equal(objectFields(builtinHooks('batch', 'jobs').selectableFields, { metadata: { name: 'j' }, status: { succeeded: 3 } })['status.successful'], '3');
    assert.equal(objectFields(builtinHooks('batch', 'jobs').selectableFields, { metadata: { name: 'j' } })['status.successful'], '0');
    assert.equal(objectFields(builtinHooks('', 'replicationcontrollers').selectableFields, { metadata: { name: 'r' }, status: { replicas: 2 } })['status.replicas'], '2');
    assert.equal(objectFields(builtinHooks('', 'secrets').selectableFields, { metadata: { name: 's' }, type: 'Opaque' })['type'], 'Opaque');
  });

  it('gives other resources only metadata.name and metadata.namespace', () => {
    assert.deepEqual(objectFields(builtinHooks('', 'configmaps').selectableFields, { metadata: { name: 'c', namespace: 'ns' }, data: { key: 'v' } }), {
      'metadata.name': 'c',
      'metadata.namespace': 'ns',
    });
    assert.deepEqual(objectFields(builtinHooks('rbac.authorization.k8s.io', 'clusterroles').selectableFields, { metadata: { name: 'r' } }), {
      'metadata.name': 'r',
      'metadata.namespace': '',
    });
  });
});
