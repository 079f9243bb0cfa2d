// The custom resource the CRD benchmark serves: a CRD with a realistic structural schema (about 20
// spec fields, defaults, a pattern, a list-map, a set, a CEL rule) and objects of it next to
// ConfigMaps of about the same JSON size, so a custom resource and a built-in compare directly.
// Both carry `data.sentAt` (what bench/watch-client.ts reads a delivery's send time from).

export const GROUP = 'bench.example.com';
export const VERSION = 'v1';
export const PLURAL = 'widgets';

const str = (extra: Record<string, unknown> = {}) => ({ type: 'string', ...extra });
const int = (extra: Record<string, unknown> = {}) => ({ type: 'integer', ...extra });

/** The spec schema: ~20 fields, several defaulted, one CEL rule across two of them. */
const specSchema = {
  type: 'object',
  required: ['image'],
  'x-kubernetes-validations': [{ rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' }],
  properties: {
    image: str({ maxLength: 256 }),
    pullPolicy: str({ enum: ['Always', 'IfNotPresent', 'Never'], default: 'IfNotPresent' }),
    replicas: int({ minimum: 0, maximum: 1000, default: 1 }),
    minReplicas: int({ minimum: 0, default: 1 }),
    maxReplicas: int({ minimum: 0, default: 10 }),
    port: int({ minimum: 1, maximum: 65535, default: 8080 }),
    protocol: str({ enum: ['TCP', 'UDP', 'SCTP'], default: 'TCP' }),
    paused: { type: 'boolean', default: false },
    timeoutSeconds: int({ minimum: 0, default: 30 }),
    retries: int({ minimum: 0, maximum: 10, default: 3 }),
    tier: str({ enum: ['frontend', 'backend', 'batch'], default: 'backend' }),
    owner: str({ maxLength: 63 }),
    team: str({ pattern: '^[a-z][a-z0-9-]*$' }),
    schedule: str({ pattern: '^(\\S+\\s+){4}\\S+$' }),
    description: str({ maxLength: 2000 }),
    resources: { type: 'object', properties: { cpu: str(), memory: str() } },
    selector: { type: 'object', additionalProperties: str() },
    env: {
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: str(), value: str() } },
    },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: str() },
    createdBy: str(),
  },
};

/** A CRD of `plural`.`group` (kind from `kind`), namespaced, one served and stored version. */
export function widgetCrd(group = GROUP, plural = PLURAL, kind = 'Widget'): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: plural.replace(/s$/, ''), kind, listKind: `${kind}List` },
      versions: [{
        name: VERSION,
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: specSchema,
              data: { type: 'object', properties: { sentAt: str(), seq: str(), pad: str() } },
              status: { type: 'object', properties: { observedGeneration: int(), ready: { type: 'boolean' } } },
            },
          },
        },
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
      }],
    },
  };
}

function specOf(i: number): Record<string, unknown> {
  return {
    image: `registry.example.com/team/app:${i}.0.0`,
    replicas: 2,
    minReplicas: 1,
    maxReplicas: 5,
    owner: 'bench-owner',
    team: 'platform-team',
    schedule: '*/5 * * * *',
    description: 'A widget for the CRD benchmark, with a description of moderate length to look like a real one.',
    resources: { cpu: '250m', memory: '256Mi' },
    selector: { app: 'bench', tier: 'backend' },
    env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'REGION', value: 'eu-west-1' }, { name: 'MODE', value: 'bench' }],
    tags: ['a', 'b', 'c'],
    createdBy: 'bench',
  };
}

/** A Widget: the spec above (defaults fill the rest) and `data` ({sentAt, seq, pad}). */
export function widget(name: string, data: Record<string, string> = {}, i = 0): Record<string, unknown> {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'Widget', metadata: { name, labels: { app: 'bench' } }, spec: specOf(i), data };
}

/**
 * A ConfigMap holding the same content as strings (the spec as JSON in one key), so its JSON is
 * about the size of the Widget's.
 */
export function twinConfigMap(name: string, data: Record<string, string> = {}, i = 0): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench' } }, data: { spec: JSON.stringify(specOf(i)), ...data } };
}
