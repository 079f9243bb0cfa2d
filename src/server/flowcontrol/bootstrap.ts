// The configuration every kube-apiserver 1.25 keeps (its apis/flowcontrol/bootstrap): the
// mandatory priority levels and flow schemas (exempt, catch-all), restored whenever they are
// deleted or changed, and the suggested ones, created when missing. Written as
// flowcontrol.apiserver.k8s.io/v1beta2 objects, each with the autoupdate-spec annotation "true".
import type { JsonObject } from '../../json.js';

export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';
export const EXEMPT = 'exempt';
export const CATCH_ALL = 'catch-all';

const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1beta2';

/** [name, assuredConcurrencyShares, queues, handSize, queueLengthLimit]; no queues: Reject. */
type LevelRow = [string, number, number?, number?, number?];
/** [name, priority level, matchingPrecedence, distinguisher ('' for none), subjects, resource rules, non-resource rules]. */
type SchemaRow = [string, string, number, string, JsonObject[], JsonObject[], JsonObject[]];

const group = (name: string): JsonObject => ({ kind: 'Group', group: { name } });
const user = (name: string): JsonObject => ({ kind: 'User', user: { name } });
const kubeSystemAccount = (name: string): JsonObject => ({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name } });
const resources = (verbs: string[], apiGroups: string[], resourceNames: string[], clusterScope: boolean): JsonObject => ({
  verbs, apiGroups, resources: resourceNames, ...(clusterScope ? { clusterScope: true } : {}), namespaces: ['*'],
});
const EVERYTHING = [resources(['*'], ['*'], ['*'], true)];
const EVERY_URL = [{ verbs: ['*'], nonResourceURLs: ['*'] }];
const EVERYONE = [group('system:unauthenticated'), group('system:authenticated')];
const GET_CREATE_UPDATE = ['get', 'create', 'update'];

const MANDATORY_LEVELS: LevelRow[] = [[CATCH_ALL, 5], [EXEMPT, 0]];
const SUGGESTED_LEVELS: LevelRow[] = [
  ['system', 30, 64, 6, 50],
  ['node-high', 40, 64, 6, 50],
  ['leader-election', 10, 16, 4, 50],
  ['workload-high', 40, 128, 6, 50],
  ['workload-low', 100, 128, 6, 50],
  ['global-default', 20, 128, 6, 50],
];

const MANDATORY_SCHEMAS: SchemaRow[] = [
  [EXEMPT, EXEMPT, 1, '', [group('system:masters')], EVERYTHING, EVERY_URL],
  [CATCH_ALL, CATCH_ALL, 10000, 'ByUser', EVERYONE, EVERYTHING, EVERY_URL],
];
const SUGGESTED_SCHEMAS: SchemaRow[] = [
  ['system-nodes', 'system', 500, 'ByUser', [group('system:nodes')], EVERYTHING, EVERY_URL],
  ['system-node-high', 'node-high', 400, 'ByUser', [group('system:nodes')], [
    resources(['*'], [''], ['nodes', 'nodes/status'], true), resources(['*'], ['coordination.k8s.io'], ['leases'], false)], []],
  ['probes', EXEMPT, 2, '', EVERYONE, [], [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }]],
  ['system-leader-election', 'leader-election', 100, 'ByUser', [user('system:kube-controller-manager'), user('system:kube-scheduler'), kubeSystemAccount('*')],
    [resources(GET_CREATE_UPDATE, ['coordination.k8s.io'], ['leases'], false)], []],
  ['workload-leader-election', 'leader-election', 200, 'ByUser', [kubeSystemAccount('*')], [
    resources(GET_CREATE_UPDATE, [''], ['endpoints', 'configmaps'], false), resources(GET_CREATE_UPDATE, ['coordination.k8s.io'], ['leases'], false)], []],
  ['endpoint-controller', 'workload-high', 150, 'ByUser',
    [user('system:kube-controller-manager'), kubeSystemAccount('endpoint-controller'), kubeSystemAccount('endpointslicemirroring-controller')],
    [resources(GET_CREATE_UPDATE, [''], ['endpoints'], false)], []],
  ['kube-controller-manager', 'workload-high', 800, 'ByNamespace', [user('system:kube-controller-manager')], EVERYTHING, EVERY_URL],
  ['kube-scheduler', 'workload-high', 800, 'ByNamespace', [user('system:kube-scheduler')], EVERYTHING, EVERY_URL],
  ['kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', [kubeSystemAccount('*')], EVERYTHING, EVERY_URL],
  ['service-accounts', 'workload-low', 9000, 'ByUser', [group('system:serviceaccounts')], EVERYTHING, EVERY_URL],
  ['global-default', 'global-default', 9900, 'ByUser', EVERYONE, EVERYTHING, EVERY_URL],
];

function levelObject([name, shares, queues, handSize, queueLengthLimit]: LevelRow): JsonObject {
  const spec: JsonObject = name === EXEMPT
    ? { type: 'Exempt' }
    : {
      type: 'Limited',
      limited: {
        assuredConcurrencyShares: shares,
        limitResponse: queues === undefined ? { type: 'Reject' } : { type: 'Queue', queuing: { queues, handSize: handSize!, queueLengthLimit: queueLengthLimit! } },
      },
    };
  return { apiVersion: API_VERSION, kind: 'PriorityLevelConfiguration', metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } }, spec };
}

function schemaObject([name, level, matchingPrecedence, distinguisher, subjects, resourceRules, nonResourceRules]: SchemaRow): JsonObject {
  const rule: JsonObject = { subjects };
  if (resourceRules.length) rule['resourceRules'] = resourceRules;
  if (nonResourceRules.length) rule['nonResourceRules'] = nonResourceRules;
  return {
    apiVersion: API_VERSION, kind: 'FlowSchema', metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence, ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}), rules: [rule] },
  };
}

/** What the configuration producer keeps: each object, and whether it is mandatory. */
export interface BootstrapSet {
  levels: ReadonlyArray<{ object: JsonObject; mandatory: boolean }>;
  schemas: ReadonlyArray<{ object: JsonObject; mandatory: boolean }>;
}

/** A fresh copy of the bootstrap configuration (suggested first, then mandatory: the reference's order). */
export function bootstrapConfiguration(): BootstrapSet {
  return {
    levels: [...SUGGESTED_LEVELS.map((r) => ({ object: levelObject(r), mandatory: false })), ...MANDATORY_LEVELS.map((r) => ({ object: levelObject(r), mandatory: true }))],
    schemas: [...SUGGESTED_SCHEMAS.map((r) => ({ object: schemaObject(r), mandatory: false })), ...MANDATORY_SCHEMAS.map((r) => ({ object: schemaObject(r), mandatory: true }))],
  };
}

/** A mandatory priority level as the consumer imagines it while its object is missing. */
export function mandatoryLevel(name: typeof EXEMPT | typeof CATCH_ALL): JsonObject {
  return levelObject(MANDATORY_LEVELS.find((r) => r[0] === name)!);
}

/** A mandatory flow schema as the consumer imagines it while its object is missing. */
export function mandatorySchema(name: typeof EXEMPT | typeof CATCH_ALL): JsonObject {
  return schemaObject(MANDATORY_SCHEMAS.find((r) => r[0] === name)!);
}
