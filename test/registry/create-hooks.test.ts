// Resources that answer a create themselves (the review APIs, TokenRequest): the registry hands
// the create to the definition's hook, which asks the services handed in at wiring time, and
// nothing is stored.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { UserInfo } from '../../src/api/user.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { genericDefinition } from '../../src/registry/definitions.js';
import type { AccessAttributes } from '../../src/registry/services.js';
import { Registry } from '../../src/registry/store.js';
import { StatusError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const ALICE: UserInfo = { name: 'alice', groups: ['system:authenticated'] };

function registry(): Registry {
  return new Registry(builtinResourceDefinitions(), new MemoryStorage());
}

async function refusal(answer: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await answer;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return { code: err.code, message: err.message };
  }
  assert.fail('the create was not refused');
}

describe('create hooks', { timeout: 10_000 }, () => {
  const made: Registry[] = [];
  const fresh = () => {
    const r = registry();
    made.push(r);
    return r;
  };
  after(async () => {
    for (const r of made) await r.storage.close();
  });

  it('answer a SubjectAccessReview from the authorizer handed in, storing nothing', async () => {
    const r = fresh();
    const asked: AccessAttributes[] = [];
    r.provide({
      authorizer: {
        authorize(a) {
          asked.push(a);
          return { allowed: a.verb === 'get', reason: 'by the test' };
        },
      },
    });
    const info = r.definitions.lookup('authorization.k8s.io', 'v1', 'subjectaccessreviews')!;
    const before = r.storage.currentRevision();
    const answer = await r.create(info, undefined, { spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns' } } }, { manager: 'tester', user: ALICE });
    assert.equal(answer.status, 201);
    const body = JSON.parse(answer.body.toString());
    assert.deepEqual(body.status, { allowed: true, reason: 'by the test' });
    assert.equal(body.kind, 'SubjectAccessReview');
    assert.equal(body.metadata.creationTimestamp, null);
    assert.equal(body.metadata.managedFields[0].manager, 'tester');
    assert.deepEqual(asked, [{ user: { name: 'bob', groups: [] }, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'pods', namespace: 'ns' }]);
    assert.equal(r.storage.currentRevision(), before, 'nothing is stored');
  });

  it('answer a SelfSubjectAccessReview for the writer, and allow nothing without an authorizer', async () => {
    const r = fresh();
    const info = r.definitions.lookup('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews')!;
    const answer = await r.create(info, undefined, { spec: { nonResourceAttributes: { verb: 'get', path: '/healthz' } } }, { manager: 'tester', user: ALICE });
    assert.deepEqual(JSON.parse(answer.body.toString()).status, { allowed: false });
  });

  it('issue a TokenRequest with the token service, and 404 without one', async () => {
    const r = fresh();
    const serviceAccounts = r.definitions.lookup('', 'v1', 'serviceaccounts')!;
    await r.create(serviceAccounts, 'ns', { metadata: { name: 'robot' } });
    const request = () => r.createSubresource(serviceAccounts, 'ns', 'robot', 'token', { spec: { audiences: ['api'], expirationSeconds: 600 } }, { manager: 'tester', user: ALICE });
    assert.deepEqual(await refusal(request()), { code: 404, message: 'the server could not find the requested resource' });
    r.provide({ tokens: { audiences: ['default'], issue: async (sa, audiences, seconds) => ({ token: `${sa.namespace}/${sa.name}:${audiences.join(',')}:${seconds}`, expirationTimestamp: 'then' }) } });
    const answer = await request();
    assert.equal(answer.status, 201);
    const body = JSON.parse(answer.body.toString());
    assert.deepEqual(body.status, { token: 'ns/robot:api:600', expirationTimestamp: 'then' });
    assert.deepEqual(body.spec, { audiences: ['api'], expirationSeconds: 600, boundObjectRef: null });
  });

  it('refuse a create of a subresource that does not act with 405', async () => {
    const r = fresh();
    const pods = r.definitions.lookup('', 'v1', 'pods')!;
    assert.deepEqual(await refusal(r.createSubresource(pods, 'ns', 'p', 'status', {}, { manager: 'tester' })), {
      code: 405, message: 'the server does not allow this method on the requested resource',
    });
  });

  it('hand any definition\'s creates to its hook', async () => {
    const r = fresh();
    r.definitions.add(genericDefinition({
      group: 'example.com', resource: 'echoes', kind: 'Echo', namespaced: false, versions: ['v1'],
      hooks: { create: async (_registry, call) => ({ status: 201, body: Buffer.from(JSON.stringify({ echoed: call.body, by: call.writer.manager })) }) },
    }));
    const answer = await r.create(r.definitions.lookup('example.com', 'v1', 'echoes')!, undefined, { hello: 1 }, { manager: 'tester' });
    assert.deepEqual(JSON.parse(answer.body.toString()), { echoed: { hello: 1 }, by: 'tester' });
  });
});
