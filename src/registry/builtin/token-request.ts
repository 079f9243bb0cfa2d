// serviceaccounts/{name}/token: a TokenRequest answered with a signed, expiring token (optionally
// bound to a pod or secret), issued by the server's token issuer (registry.services.tokens).
// Nothing is stored.
import { badRequest, conflict, fieldInvalid, invalid, notFound, resourceNotFound } from '../../errors.js';
import { recordUpdate } from '../../fieldmanager/index.js';
import { type JsonObject, isObject, now } from '../../json.js';
import type { CreateHook } from '../definitions.js';
import { metadataOf, objectField } from '../objects.js';
import type { BoundObjectRef } from '../services.js';
import type { Registry } from '../store.js';

const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;

/** The object a token is to be bound to, checked to exist (and to be the one named by uid). */
async function boundObject(registry: Registry, namespace: string, ref: JsonObject): Promise<BoundObjectRef> {
  const kind = String(ref['kind'] ?? '');
  if (kind !== 'Pod' && kind !== 'Secret') throw badRequest(`cannot bind token to object of type ${kind}`);
  const target = registry.definitions.lookup('', 'v1', kind === 'Pod' ? 'pods' : 'secrets')!;
  const obj = await registry.getObject(target, namespace, String(ref['name'] ?? ''));
  if (!obj) throw notFound({ group: '', resource: target.resource }, String(ref['name'] ?? ''));
  const uid = String(metadataOf(obj)['uid']);
  if (ref['uid'] !== undefined && ref['uid'] !== uid) throw conflict({ group: '', resource: target.resource }, String(ref['name']), 'the UID in the bound object reference does not match the object');
  return { kind, apiVersion: 'v1', name: String(ref['name']), uid };
}

export const requestToken: CreateHook = async (registry, { info, namespace, name, body, writer }) => {
  const ns = namespace!;
  const saName = name!;
  const tokens = registry.services.tokens;
  if (!tokens) throw resourceNotFound();
  const sa = await registry.getObject(info, ns, saName);
  if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, saName);
  const spec = objectField(body, 'spec');
  const audiences = Array.isArray(spec['audiences']) && spec['audiences'].length ? spec['audiences'].map(String) : tokens.audiences;
  const expirationSeconds = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : DEFAULT_EXPIRATION_SECONDS;
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
    throw invalid('TokenRequest', 'authentication.k8s.io', saName, [fieldInvalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes')]);
  }
  const boundRef = isObject(spec['boundObjectRef']) ? spec['boundObjectRef'] : undefined;
  const bound = boundRef && await boundObject(registry, ns, boundRef);
  const issued = await tokens.issue({ namespace: ns, name: saName, uid: String(metadataOf(sa)['uid']) }, audiences, expirationSeconds, bound);
  const time = now();
  const answer: JsonObject = {
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: saName, namespace: ns, creationTimestamp: time },
    spec: { audiences, expirationSeconds, boundObjectRef: boundRef ?? null },
  };
  // Ownership is recorded on what was sent (spec as given), into the answer's metadata (shared).
  recordUpdate({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, undefined, { ...answer, spec: body['spec'] ?? {} }, writer.manager, { now: time, subresource: 'token' });
  answer['status'] = { token: issued.token, expirationTimestamp: issued.expirationTimestamp };
  return { status: 201, body: Buffer.from(JSON.stringify(answer)) };
};
