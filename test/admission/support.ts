// Unit-test support for admission plugins: a registry over memory storage (no admission chain, so
// objects are stored exactly as given) and the attributes of a write as the registry builds them.
import assert from 'node:assert/strict';
import { defaultEnabled } from '../../src/api/catalog.js';
import type { ResourceDefinitions } from '../../src/registry/definitions.js';
import { builtinResourceDefinitions } from '../../src/registry/builtin/index.js';
import { AdmissionChain } from '../../src/admission/chain.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices, Operation } from '../../src/admission/types.js';
import type { Authorizer } from '../../src/auth/types.js';
import type { UserInfo } from '../../src/api/user.js';
import { StatusError } from '../../src/errors.js';
import { Registry } from '../../src/registry/store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { type JsonObject } from '../../src/json.js';

let catalog: ResourceDefinitions | undefined;

/** Services over an empty store holding only the "default" namespace. */
export async function testServices(authorizer?: Authorizer): Promise<AdmissionServices> {
  catalog ??= builtinResourceDefinitions(defaultEnabled);
  const services = { registry: new Registry(catalog, new MemoryStorage()), authorizer };
  await put(services, '/v1/namespaces', { metadata: { name: 'default' } });
  return services;
}

/** Stores an object (group/version/resource as in the URL). */
export async function put(services: AdmissionServices, gvr: string, obj: JsonObject, namespace?: string): Promise<void> {
  const [group, version, resource] = gvr.split('/') as [string, string, string];
  const info = services.registry.definitions.lookup(group, version, resource);
  assert.ok(info, `no resource ${gvr}`);
  const kind = info.kind;
  await services.registry.create(info, info.namespaced ? namespace : undefined, { apiVersion: info.apiVersion, kind, ...obj });
}

export const ADMIN: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };

export interface Write {
  operation?: Operation;
  /** group/version/resource, e.g. "/v1/pods" or "apps/v1/deployments". */
  gvr: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  object?: JsonObject;
  oldObject?: JsonObject;
  user?: UserInfo;
}

export function attributes(services: AdmissionServices, w: Write): AdmissionAttributes {
  const [group, version, resource] = w.gvr.split('/') as [string, string, string];
  const info = services.registry.definitions.lookup(group, version, resource);
  assert.ok(info, `no resource ${w.gvr}`);
  const name = w.name ?? String((w.object?.['metadata'] as JsonObject | undefined)?.['name'] ?? '');
  return {
    operation: w.operation ?? 'CREATE', info, subresource: w.subresource, namespace: info.namespaced ? w.namespace ?? 'default' : undefined,
    name, object: w.object, oldObject: w.oldObject, user: w.user ?? ADMIN, dryRun: false, warnings: [], annotations: {},
  };
}

/** Runs a plugin's mutating then validating phase in a chain of its own (which skips the operations it does not handle). */
export async function admit(plugin: AdmissionPlugin, services: AdmissionServices, a: AdmissionAttributes): Promise<AdmissionAttributes> {
  const chain = new AdmissionChain([plugin], new Set([plugin.name]), services);
  await chain.mutate(a);
  await chain.validate(a);
  return a;
}

/** Asserts the promise fails with this status code and message. */
export async function refused(p: Promise<unknown> | (() => unknown), code: number, message: string | RegExp): Promise<StatusError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, code, err.message);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return err;
  }
  assert.fail('expected a refusal');
}

export function pod(name: string, spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}
