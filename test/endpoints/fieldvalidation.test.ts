// fieldValidation=Ignore|Warn|Strict on every write path, against the reference's answers
// (test/fixtures/reference/fieldvalidation and errors/strict-*), and the whole matrix of levels ×
// unknown / duplicate / mistyped fields × POST, PUT, merge, strategic merge, JSON patch, apply ×
// JSON and YAML bodies. A refused write leaves stored data untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/server.js';
import { call, fixture, memoryServer, placeholders, type Fixture, type Reply } from '../helpers.js';

/** The Warning headers of a reply, one entry each (Node joins repeated headers with ", "). */
function warningsOf(reply: Reply): string[] {
  const header = reply.headers['warning'];
  const text = Array.isArray(header) ? header.join(', ') : header ?? '';
  return text.match(/\d{3} \S+ "(?:[^"\\]|\\.)*"/g) ?? [];
}

/** Every field of `actual` is in `expected` with the same value (the reference also fills in defaults). */
function assertSubset(actual: unknown, expected: unknown, path = ''): void {
  if (actual !== null && typeof actual === 'object') {
    assert.equal(typeof expected, 'object', `${path}: ${JSON.stringify(expected)}`);
    assert.equal(Array.isArray(actual), Array.isArray(expected), path);
    if (Array.isArray(actual)) assert.equal(actual.length, (expected as unknown[]).length, `${path}: length`);
    for (const [k, v] of Object.entries(actual)) {
      assert.ok(Object.hasOwn(expected as object, k), `${path}.${k} is not in the reference's object`);
      assertSubset(v, (expected as Record<string, unknown>)[k], `${path}.${k}`);
    }
    return;
  }
  assert.deepEqual(actual, expected, path);
}

const NS = 'ref-fieldvalidation';
const DEPLOYS = `/apis/apps/v1/namespaces/${NS}/deployments`;

describe('field validation as the reference answers it', () => {
  let server: RunningServer;
  before(async () => {
    // The answers compared are the writes' own; the Deployments' status and revision the controllers add later are not.
    server = await memoryServer({ controllers: ['*', '-deployment', '-replicaset', '-replicationcontroller'] });
    for (const name of [NS, 'ref-errors', 'ref-protobuf']) {
      assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status, 201);
    }
    // The object the "existing object" apply fixture applies to, applied before by the same manager.
    const existing = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"apply-existing"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"apply-existing"}},"template":{"metadata":{"labels":{"app":"apply-existing"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.25"}]}}}}';
    const applied = await call(server.url, 'PATCH', `${DEPLOYS}/apply-existing?fieldManager=test`, { body: existing, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    assert.equal(applied.status, 201, applied.text);
  });
  after(() => server.close());

  // In the order recorded: PUT and PATCH fixtures change the objects the POST fixtures made.
  const FIXTURES = [
    'post-warn-unknown', 'post-warn-duplicate', 'post-warn-unknown-and-duplicate',
    'put-warn-unknown', 'put-warn-duplicate', 'put-warn-unknown-and-duplicate',
    'merge-patch-warn-unknown', 'merge-patch-warn-duplicate', 'merge-patch-warn-unknown-and-duplicate',
    'strategic-merge-patch-warn-unknown', 'strategic-merge-patch-warn-duplicate', 'strategic-merge-patch-warn-unknown-and-duplicate',
    'apply-warn-unknown', 'apply-warn-duplicate', 'apply-warn-unknown-and-duplicate', 'apply-warn-unknown-existing-object',
    'apply-ignore-unknown', 'apply-strict-unknown', 'apply-strict-duplicate',
    'post-default-unknown-and-duplicate', 'post-ignore-unknown-and-duplicate', 'post-strict-unknown-and-duplicate',
    'post-warn-yaml-unknown-and-duplicate', 'apply-warn-yaml-unknown-and-duplicate', 'post-warn-unknown-metadata-field',
  ];
  /** The reference's 500 for an apply its type checks refuse is answered 400 BadRequest here, with the same message. */
  const asAnswered = (f: Fixture): Fixture => {
    const { kind, apiVersion, metadata, status, message } = f.response.body as Record<string, unknown>;
    if (f.response.status !== 500 || typeof message !== 'string' || !message.startsWith('failed to create typed patch object')) return f;
    const body = { kind, apiVersion, metadata, status, message, reason: 'BadRequest', code: 400 };
    return { ...f, response: { ...f.response, status: 400, body, rawBody: `${JSON.stringify(body)}\n` } };
  };
  for (const name of FIXTURES) {
    it(`fieldvalidation/${name}`, async () => {
      const f = asAnswered(fixture(`fieldvalidation/${name}`));
      let body = f.request.body;
      if (typeof body === 'string' && body.includes('"<rv>"')) {
        const current = await call(server.url, 'GET', `${DEPLOYS}/${/"name":"([^"]+)"/.exec(body)![1]}`);
        body = body.replace('"<rv>"', JSON.stringify(current.json.metadata.resourceVersion));
      }
      const path = new URL(f.request.path, server.url).pathname;
      const objectPath = f.request.method === 'POST' ? `${path}/${(/"name":"([^"]+)"/.exec(String(body)) ?? /name: (\S+)/.exec(String(body)))![1]}` : path;
      const before = await call(server.url, 'GET', objectPath);
      const reply = await call(server.url, f.request.method, f.request.path, { body, headers: f.request.headers });
      assert.equal(reply.status, f.response.status, reply.text);
      assert.equal(reply.headers['content-type'], f.response.headers['content-type']);
      assert.deepEqual(warningsOf(reply), f.response.headers['warning'] ?? []);
      const expected = f.response.body as { kind: string };
      if (expected.kind === 'Status') {
        assert.equal(JSON.stringify(placeholders(reply.json)) + '\n', f.response.rawBody ?? JSON.stringify(expected) + '\n');
        // Nothing was written.
        const afterwards = await call(server.url, 'GET', objectPath);
        assert.equal(afterwards.status, before.status);
        if (before.status === 200) assert.equal(afterwards.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
        return;
      }
      // What field validation decides; managedFields and generation are the registry's.
      const { managedFields: _mine, generation: _g1, ...ourMeta } = placeholders(reply.json.metadata) as Record<string, unknown>;
      const { managedFields: _theirs, generation: _g2, ...theirMeta } = (expected as unknown as { metadata: Record<string, unknown> }).metadata;
      assertSubset({ ...reply.json, metadata: ourMeta }, { ...expected, metadata: theirMeta });
    });
  }

  const ERRORS = ['strict-unknown-field', 'strict-duplicate-field', 'strict-unknown-and-duplicate', 'strict-unknown-field-configmap-top-level', 'field-validation-invalid-value'];
  for (const name of ERRORS) {
    it(`errors/${name}: same status and Status body; nothing stored`, async () => {
      const f = fixture(`errors/${name}`);
      const reply = await call(server.url, f.request.method, f.request.path, { body: f.request.body, headers: f.request.headers });
      assert.equal(reply.status, f.response.status, reply.text);
      assert.equal(JSON.stringify(placeholders(reply.json)) + '\n', f.response.rawBody);
      const list = await call(server.url, 'GET', new URL(f.request.path, server.url).pathname);
      assert.deepEqual(list.json.items, []);
    });
  }

  it('protobuf bodies have no unknown fields to report: kubectl\'s create under Strict', async () => {
    const f = fixture('protobuf/create-configmap-kubectl-bytes');
    const data = (f.request.body as { data: string }).data;
    const reply = await call(server.url, f.request.method, f.request.path, { body: Buffer.from(data, 'base64'), headers: f.request.headers });
    assert.equal(reply.status, 201);
    assert.deepEqual(warningsOf(reply), []);
  });
});

// ---------------------------------------------------------------------------------------
// The matrix

type Level = 'Ignore' | 'Warn' | 'Strict';
type Case = 'unknown' | 'duplicate' | 'mistyped';
type Method = 'POST' | 'PUT' | 'merge' | 'strategic' | 'json' | 'apply';

const MATRIX_NS = 'fv-matrix';
const MATRIX = `/apis/apps/v1/namespaces/${MATRIX_NS}/deployments`;
const TYPE_ERROR = 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32';

/** spec.replicas as each case writes it (the duplicate's last value, 3, is the one kept). */
const SPEC_JSON: Record<Case, string> = {
  unknown: '"replicas":2,"replicaz":4',
  duplicate: '"replicas":2,"replicas":3',
  mistyped: '"replicas":"two"',
};
const SPEC_YAML: Record<Case, string> = {
  unknown: '  replicas: 2\n  replicaz: 4\n',
  duplicate: '  replicas: 2\n  replicas: 3\n',
  mistyped: '  replicas: two\n',
};

function objectJson(name: string, c: Case): string {
  return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{${SPEC_JSON[c]},"selector":{"matchLabels":{"app":"m"}},"template":{"metadata":{"labels":{"app":"m"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`;
}

function objectYaml(name: string, c: Case): string {
  return `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n${SPEC_YAML[c]}  selector:\n    matchLabels:\n      app: m\n  template:\n    metadata:\n      labels:\n        app: m\n    spec:\n      containers:\n      - name: c\n        image: i\n`;
}

const PATCHES: Record<'merge' | 'strategic' | 'json', Record<Case, string>> = {
  merge: { unknown: '{"spec":{"replicaz":4}}', duplicate: '{"spec":{"replicas":2,"replicas":3}}', mistyped: '{"spec":{"replicas":"two"}}' },
  strategic: { unknown: '{"spec":{"replicaz":4}}', duplicate: '{"spec":{"replicas":2,"replicas":3}}', mistyped: '{"spec":{"replicas":"two"}}' },
  json: {
    unknown: '[{"op":"add","path":"/spec/replicaz","value":4}]',
    duplicate: '[{"op":"replace","path":"/spec/replicas","value":2,"value":3}]',
    mistyped: '[{"op":"replace","path":"/spec/replicas","value":"two"}]',
  },
};
const PATCH_TYPES = { merge: 'application/merge-patch+json', strategic: 'application/strategic-merge-patch+json', json: 'application/json-patch+json' };

/** What the reference answers: a warning text per issue, or a refusal. */
interface Expected {
  status: number;
  warnings: string[];
  /** Refusals: the Status message, or a pattern for it. */
  message?: string | RegExp;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function expectedOf(method: Method, format: 'json' | 'yaml', level: Level, c: Case): Expected {
  const ok = method === 'POST' || method === 'apply' ? 201 : 200;
  const cannot = (why: string) => `Deployment in version "v1" cannot be handled as a Deployment: ${why}`;
  const issue = c === 'unknown'
    ? 'unknown field "spec.replicaz"'
    : format === 'yaml' ? 'line 7: key "replicas" already set in map' : method === 'json' ? 'json patch duplicate field "[0].value"' : 'duplicate field "spec.replicas"';
  if (method === 'apply') {
    // The reference's 500 (its error is no Status), answered 400 with the same message.
    if (c === 'unknown') return { status: 400, warnings: [], message: 'failed to create typed patch object (/m; apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema' };
    if (c === 'mistyped') return { status: 400, warnings: [], message: 'failed to create typed patch object (/m; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string' };
    const line = format === 'yaml' ? 'line 7' : 'line 1';
    if (level === 'Strict') return { status: 400, warnings: [], message: `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${line}: key "replicas" already set in map` };
    return { status: ok, warnings: level === 'Warn' ? [`${line}: key "replicas" already set in map`] : [] };
  }
  if (method === 'POST' || method === 'PUT') {
    if (c === 'mistyped') return { status: 400, warnings: [], message: cannot(TYPE_ERROR) };
    if (level === 'Strict') {
      const strictIssue = format === 'yaml' && c === 'duplicate' ? `yaml: unmarshal errors:\n  ${issue}` : issue;
      return { status: 400, warnings: [], message: cannot(`strict decoding error: ${strictIssue}`) };
    }
    return { status: ok, warnings: level === 'Warn' ? [issue] : [] };
  }
  // Patches.
  if (method === 'strategic') {
    const shown = c === 'unknown' ? 'map[spec:map[replicaz:4]]' : c === 'duplicate' ? 'map[spec:map[replicas:3]]' : 'map[spec:map[replicas:two]]';
    if (c === 'mistyped') return { status: 422, warnings: [], message: ` "" is invalid: patch: Invalid value: "${shown}": unrecognized type: int32` };
    if (level === 'Strict') return { status: 422, warnings: [], message: ` "" is invalid: patch: Invalid value: "${shown}": strict decoding error: ${issue}` };
    return { status: ok, warnings: level === 'Warn' ? [issue] : [] };
  }
  const onDocument = (why: string) => new RegExp(`^ "" is invalid: patch: Invalid value: "\\{.*\\}": ${escapeRe(why)}$`, 's');
  if (c === 'mistyped') return { status: 422, warnings: [], message: onDocument(TYPE_ERROR) };
  if (level === 'Strict') return { status: 422, warnings: [], message: onDocument(`strict decoding error: ${issue}`) };
  return { status: ok, warnings: level === 'Warn' ? [issue] : [] };
}

describe('field validation matrix: level × issue × write path × body format', () => {
  let server: RunningServer;
  let counter = 0;
  before(async () => {
    server = await memoryServer();
    assert.equal((await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: MATRIX_NS } } })).status, 201);
  });
  after(() => server.close());

  const cells: Array<[Method, 'json' | 'yaml']> = [
    ['POST', 'json'], ['POST', 'yaml'], ['PUT', 'json'], ['PUT', 'yaml'], ['apply', 'json'], ['apply', 'yaml'],
    ['merge', 'json'], ['strategic', 'json'], ['json', 'json'],
  ];
  for (const [method, format] of cells) {
    for (const level of ['Ignore', 'Warn', 'Strict'] as const) {
      for (const c of ['unknown', 'duplicate', 'mistyped'] as const) {
        it(`${method} ${format} ${level} ${c}`, async () => {
          const name = `m${++counter}`;
          const path = `${MATRIX}/${name}`;
          // PUT and the patches change an object that exists (replicas 1).
          if (method !== 'POST' && method !== 'apply') {
            const made = await call(server.url, 'POST', MATRIX, { body: objectJson(name, 'unknown').replace('"replicas":2,"replicaz":4', '"replicas":1') });
            assert.equal(made.status, 201, made.text);
          }
          const before = await call(server.url, 'GET', path);
          const text = (method === 'POST' || method === 'PUT' || method === 'apply') ? (format === 'yaml' ? objectYaml(name, c) : objectJson(name, c)) : PATCHES[method][c];
          const contentType = method === 'apply' ? 'application/apply-patch+yaml' : method === 'POST' || method === 'PUT' ? `application/${format}` : PATCH_TYPES[method];
          const query = `fieldValidation=${level}${method === 'apply' ? '&fieldManager=m' : ''}`;
          const httpMethod = method === 'POST' ? 'POST' : method === 'PUT' ? 'PUT' : 'PATCH';
          const url = method === 'POST' ? `${MATRIX}?${query}` : `${path}?${query}`;
          const reply = await call(server.url, httpMethod, url, { body: text, headers: { 'Content-Type': contentType } });

          const want = expectedOf(method, format, level, c);
          const wantMessage = typeof want.message === 'string' ? want.message.replace('(/m;', `(/${name};`) : want.message;
          assert.equal(reply.status, want.status, reply.text);
          assert.deepEqual(warningsOf(reply), want.warnings.map((w) => `299 - ${JSON.stringify(w)}`));
          const after = await call(server.url, 'GET', path);
          if (want.status >= 400) {
            if (typeof wantMessage === 'string') assert.equal(reply.json.message, wantMessage);
            else assert.match(reply.json.message, wantMessage!);
            // Nothing was written.
            assert.equal(after.status, before.status);
            if (before.status === 200) assert.equal(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
            return;
          }
          // Written: unknown fields dropped, the last of duplicated keys kept.
          assert.equal(after.status, 200);
          assert.equal(after.json.spec.replicaz, undefined);
          assert.equal(reply.json.spec.replicaz, undefined);
          assert.equal(after.json.spec.replicas, c === 'duplicate' ? 3 : method === 'POST' || method === 'PUT' || method === 'apply' ? 2 : 1);
        });
      }
    }
  }

  it('Strict names every issue, in document order', async () => {
    const body = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"all","foo":1},"spec":{"replicas":1,"replicas":2,"selector":{"matchLabels":{"app":"m","app":"n"}},"template":{"metadata":{"labels":{"app":"m"}},"spec":{"containers":[{"name":"c","image":"i","bar":true},{"name":"d","image":"i","ports":[{"containerPort":80,"baz":1}]}]}}},"status":{"qux":1}}';
    const reply = await call(server.url, 'POST', `${MATRIX}?fieldValidation=Strict`, { body });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.message, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "metadata.foo", duplicate field "spec.replicas", duplicate field "spec.selector.matchLabels.app", unknown field "spec.template.spec.containers[0].bar", unknown field "spec.template.spec.containers[1].ports[0].baz", unknown field "status.qux"');
  });

  it('a mistyped field wins over unknown ones at every level', async () => {
    for (const level of ['Ignore', 'Warn', 'Strict']) {
      const body = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"typed","foo":1},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":"80"}]}]}}}}';
      const reply = await call(server.url, 'POST', `${MATRIX}?fieldValidation=${level}`, { body });
      assert.equal(reply.status, 400);
      assert.deepEqual(warningsOf(reply), []);
      assert.equal(reply.json.message, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32');
    }
  });

  it('YAML 1.1 bodies: timestamps stay strings, yes/no are booleans (and so mistyped as a label)', async () => {
    const yaml = (labels: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y11\n  labels:\n${labels}data:\n  when: 2024-01-02T03:04:05Z\n`;
    const refused = await call(server.url, 'POST', `/api/v1/namespaces/${MATRIX_NS}/configmaps`, { body: yaml('    ok: yes\n'), headers: { 'Content-Type': 'application/yaml' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string');
    const created = await call(server.url, 'POST', `/api/v1/namespaces/${MATRIX_NS}/configmaps`, { body: yaml('    day: 2024-01-02\n'), headers: { 'Content-Type': 'application/yaml' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.metadata.labels, { day: '2024-01-02' });
    assert.deepEqual(created.json.data, { when: '2024-01-02T03:04:05Z' });
  });

  it('dry-run writes are validated too, and store nothing', async () => {
    const reply = await call(server.url, 'POST', `${MATRIX}?dryRun=All&fieldValidation=Warn`, { body: objectJson('dry', 'unknown') });
    assert.equal(reply.status, 201);
    assert.deepEqual(warningsOf(reply), ['299 - "unknown field \\"spec.replicaz\\""']);
    assert.equal((await call(server.url, 'GET', `${MATRIX}/dry`)).status, 404);
  });
});
