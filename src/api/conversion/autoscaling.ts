// HorizontalPodAutoscaler between autoscaling/v1 and v2 (v2beta2 has v2's shape), as the
// reference converts through its internal type (v2's): v1 carries only the CPU utilization target
// and current value in fields; every other metric, the current metrics, the conditions and the
// behavior travel in annotations, so that v2 → v1 → v2 loses nothing.
// - v2 → v1: the first CPU Utilization metric becomes targetCPUUtilizationPercentage, the other
//   metrics go to `autoscaling.alpha.kubernetes.io/metrics` in v1's (v2beta1-like) metric shape;
//   all current metrics (the CPU one too, for its raw value) to `…/current-metrics`, conditions to
//   `…/conditions`, behavior to `…/behavior` — the last as the reference marshals its internal type,
//   with Go's field names (`ScaleUp`, `StabilizationWindowSeconds`).
// - v1 → v2: the annotations are read back (a value that does not parse is ignored, as there) and
//   dropped; the annotated metrics come first, then the CPU target.
// Objects in v2 never carry those annotations: they are dropped on the way to v2 too.
import { isObject, type JsonObject, copyJson } from '../../json.js';

const METRICS = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT_METRICS = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP_ANNOTATIONS = [METRICS, BEHAVIOR, CURRENT_METRICS, CONDITIONS];

type Obj = JsonObject;

const obj = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined);

/** An object of the given entries, without those whose value is undefined (Go's omitempty on pointers). */
function compact(entries: Array<[string, unknown]>): Obj {
  const out: Obj = {};
  for (const [k, v] of entries) if (v !== undefined) out[k] = v;
  return out;
}

/** A v1 Quantity field that is not a pointer: written as "0" when unset. */
const quantity = (v: unknown): unknown => v ?? '0';

// ---- metrics, v2 → v1 ----

function metricSpecToV1(m: Obj): Obj {
  const object = obj(m['object']);
  const pods = obj(m['pods']);
  const resource = obj(m['resource']);
  const container = obj(m['containerResource']);
  const external = obj(m['external']);
  const target = (s: Obj | undefined) => obj(s?.['target']) ?? {};
  const metric = (s: Obj | undefined) => obj(s?.['metric']) ?? {};
  return compact([
    ['type', m['type']],
    ['object', object && compact([
      ['target', object['describedObject'] ?? {}], ['metricName', metric(object)['name'] ?? ''], ['targetValue', quantity(target(object)['value'])],
      ['selector', metric(object)['selector']], ['averageValue', target(object)['averageValue']],
    ])],
    ['pods', pods && compact([['metricName', metric(pods)['name'] ?? ''], ['targetAverageValue', quantity(target(pods)['averageValue'])], ['selector', metric(pods)['selector']]])],
    ['resource', resource && compact([
      ['name', resource['name'] ?? ''], ['targetAverageUtilization', target(resource)['averageUtilization']], ['targetAverageValue', target(resource)['averageValue']],
    ])],
    ['containerResource', container && compact([
      ['name', container['name'] ?? ''], ['targetAverageUtilization', target(container)['averageUtilization']], ['targetAverageValue', target(container)['averageValue']],
      ['container', container['container'] ?? ''],
    ])],
    ['external', external && compact([
      ['metricName', metric(external)['name'] ?? ''], ['metricSelector', metric(external)['selector']], ['targetValue', target(external)['value']],
      ['targetAverageValue', target(external)['averageValue']],
    ])],
  ]);
}

function metricStatusToV1(m: Obj): Obj {
  const object = obj(m['object']);
  const pods = obj(m['pods']);
  const resource = obj(m['resource']);
  const container = obj(m['containerResource']);
  const external = obj(m['external']);
  const current = (s: Obj | undefined) => obj(s?.['current']) ?? {};
  const metric = (s: Obj | undefined) => obj(s?.['metric']) ?? {};
  return compact([
    ['type', m['type']],
    ['object', object && compact([
      ['target', object['describedObject'] ?? {}], ['metricName', metric(object)['name'] ?? ''], ['currentValue', quantity(current(object)['value'])],
      ['selector', metric(object)['selector']], ['averageValue', current(object)['averageValue']],
    ])],
    ['pods', pods && compact([['metricName', metric(pods)['name'] ?? ''], ['currentAverageValue', quantity(current(pods)['averageValue'])], ['selector', metric(pods)['selector']]])],
    ['resource', resource && compact([
      ['name', resource['name'] ?? ''], ['currentAverageUtilization', current(resource)['averageUtilization']], ['currentAverageValue', quantity(current(resource)['averageValue'])],
    ])],
    ['containerResource', container && compact([
      ['name', container['name'] ?? ''], ['currentAverageUtilization', current(container)['averageUtilization']],
      ['currentAverageValue', quantity(current(container)['averageValue'])], ['container', container['container'] ?? ''],
    ])],
    ['external', external && compact([
      ['metricName', metric(external)['name'] ?? ''], ['metricSelector', metric(external)['selector']], ['currentValue', quantity(current(external)['value'])],
      ['currentAverageValue', current(external)['averageValue']],
    ])],
  ]);
}

// ---- metrics, v1 (and v2beta1, the same shape) → v2 ----

const identifier = (name: unknown, selector: unknown): Obj => compact([['name', name ?? ''], ['selector', selector]]);

export function metricSpecToV2(m: Obj): Obj {
  const object = obj(m['object']);
  const pods = obj(m['pods']);
  const resource = obj(m['resource']);
  const container = obj(m['containerResource']);
  const external = obj(m['external']);
  const resourceTarget = (s: Obj) => compact([
    ['type', s['targetAverageUtilization'] === undefined || s['targetAverageUtilization'] === null ? 'AverageValue' : 'Utilization'],
    ['averageValue', s['targetAverageValue'] ?? undefined], ['averageUtilization', s['targetAverageUtilization'] ?? undefined],
  ]);
  return compact([
    ['type', m['type']],
    ['object', object && {
      describedObject: object['target'] ?? {},
      target: compact([['type', object['averageValue'] == null ? 'Value' : 'AverageValue'], ['value', quantity(object['targetValue'])], ['averageValue', object['averageValue'] ?? undefined]]),
      metric: identifier(object['metricName'], object['selector'] ?? undefined),
    }],
    ['pods', pods && { metric: identifier(pods['metricName'], pods['selector'] ?? undefined), target: { type: 'AverageValue', averageValue: quantity(pods['targetAverageValue']) } }],
    ['resource', resource && { name: resource['name'] ?? '', target: resourceTarget(resource) }],
    ['containerResource', container && { name: container['name'] ?? '', target: resourceTarget(container), container: container['container'] ?? '' }],
    ['external', external && {
      metric: identifier(external['metricName'], external['metricSelector'] ?? undefined),
      target: compact([['type', external['targetAverageValue'] == null ? 'Value' : 'AverageValue'], ['value', external['targetValue'] ?? undefined], ['averageValue', external['targetAverageValue'] ?? undefined]]),
    }],
  ]);
}

export function metricStatusToV2(m: Obj): Obj {
  const object = obj(m['object']);
  const pods = obj(m['pods']);
  const resource = obj(m['resource']);
  const container = obj(m['containerResource']);
  const external = obj(m['external']);
  const resourceCurrent = (s: Obj) => compact([['averageValue', quantity(s['currentAverageValue'])], ['averageUtilization', s['currentAverageUtilization'] ?? undefined]]);
  return compact([
    ['type', m['type']],
    ['object', object && {
      metric: identifier(object['metricName'], object['selector'] ?? undefined),
      current: compact([['value', quantity(object['currentValue'])], ['averageValue', object['averageValue'] ?? undefined]]),
      describedObject: object['target'] ?? {},
    }],
    ['pods', pods && { metric: identifier(pods['metricName'], pods['selector'] ?? undefined), current: { averageValue: quantity(pods['currentAverageValue']) } }],
    ['resource', resource && { name: resource['name'] ?? '', current: resourceCurrent(resource) }],
    ['containerResource', container && { name: container['name'] ?? '', current: resourceCurrent(container), container: container['container'] ?? '' }],
    ['external', external && {
      metric: identifier(external['metricName'], external['metricSelector'] ?? undefined),
      current: compact([['value', quantity(external['currentValue'])], ['averageValue', external['currentAverageValue'] ?? undefined]]),
    }],
  ]);
}

// ---- behavior: the reference's internal type marshalled with Go's field names ----

const BEHAVIOR_FIELDS: Array<[string, string]> = [['ScaleUp', 'scaleUp'], ['ScaleDown', 'scaleDown']];
const RULE_FIELDS: Array<[string, string]> = [['StabilizationWindowSeconds', 'stabilizationWindowSeconds'], ['SelectPolicy', 'selectPolicy'], ['Policies', 'policies']];
const POLICY_FIELDS: Array<[string, string]> = [['Type', 'type'], ['Value', 'value'], ['PeriodSeconds', 'periodSeconds']];

function goRules(rules: unknown): unknown {
  const r = obj(rules);
  if (!r) return null;
  const out: Obj = {};
  for (const [go, json] of RULE_FIELDS) {
    const v = r[json];
    out[go] = json === 'policies' ? (Array.isArray(v) ? v.map((p) => Object.fromEntries(POLICY_FIELDS.map(([g, j]) => [g, obj(p)?.[j] ?? (j === 'type' ? '' : 0)]))) : null) : (v ?? null);
  }
  return out;
}

/** The value Go's encoding/json finds for a field: its exact name, else one equal ignoring case. */
function goField(o: Obj, name: string): unknown {
  if (name in o) return o[name];
  const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : o[key];
}

function rulesFromGo(rules: unknown): Obj | undefined {
  const r = obj(rules);
  if (!r) return undefined;
  const policies = goField(r, 'Policies');
  return compact([
    ['stabilizationWindowSeconds', goField(r, 'StabilizationWindowSeconds') ?? undefined],
    ['selectPolicy', goField(r, 'SelectPolicy') ?? undefined],
    ['policies', Array.isArray(policies) ? policies.map((p) => compact(POLICY_FIELDS.map(([g, j]) => [j, obj(p) ? goField(obj(p)!, g) ?? undefined : undefined]))) : undefined],
  ]);
}

// ---- the object ----

function isCpuUtilization(m: unknown): boolean {
  const resource = obj(obj(m)?.['resource']);
  return obj(m)?.['type'] === 'Resource' && resource?.['name'] === 'cpu' && obj(resource['target'])?.['averageUtilization'] != null;
}

function annotationsOf(o: Obj): Obj | undefined {
  return obj(obj(o['metadata'])?.['annotations']);
}

/** Drops the round-trip annotations (and the annotations field when nothing else is left, as Go's omitempty). */
function withoutRoundTripAnnotations(o: Obj): void {
  const annotations = annotationsOf(o);
  if (!annotations || !ROUND_TRIP_ANNOTATIONS.some((k) => k in annotations)) return;
  const kept = { ...annotations };
  for (const k of ROUND_TRIP_ANNOTATIONS) delete kept[k];
  const metadata = o['metadata'] as Obj;
  if (Object.keys(kept).length) metadata['annotations'] = kept;
  else delete metadata['annotations'];
}

/** A JSON array or object in an annotation; undefined when absent or not parsable (the reference then ignores it). */
function parsed(annotations: Obj | undefined, key: string): unknown {
  const text = annotations?.[key];
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function hpaToV1(hpa: Obj): Obj {
  const out = copyJson(hpa);
  withoutRoundTripAnnotations(out);
  const spec = obj(hpa['spec']) ?? {};
  const status = obj(hpa['status']);
  const metrics = Array.isArray(spec['metrics']) ? spec['metrics'].filter(isObject) : [];
  const cpu = metrics.find(isCpuUtilization);
  out['spec'] = compact([
    ['scaleTargetRef', spec['scaleTargetRef']], ['minReplicas', spec['minReplicas']], ['maxReplicas', spec['maxReplicas']],
    ['targetCPUUtilizationPercentage', cpu ? obj(obj(cpu['resource'])!['target'])!['averageUtilization'] : undefined],
  ]);
  const annotations: Obj = {};
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricSpecToV1);
  if (others.length) annotations[METRICS] = JSON.stringify(others);
  if (status) {
    const current = Array.isArray(status['currentMetrics']) ? status['currentMetrics'].filter(isObject) : [];
    const cpuNow = current.find((m) => m['type'] === 'Resource' && obj(m['resource'])?.['name'] === 'cpu' && obj(obj(m['resource'])!['current'])?.['averageUtilization'] != null);
    out['status'] = compact([
      ['observedGeneration', status['observedGeneration']], ['lastScaleTime', status['lastScaleTime']],
      ['currentReplicas', status['currentReplicas'] ?? 0], ['desiredReplicas', status['desiredReplicas'] ?? 0],
      ['currentCPUUtilizationPercentage', cpuNow ? obj(obj(cpuNow['resource'])!['current'])!['averageUtilization'] : undefined],
    ]);
    if (current.length) annotations[CURRENT_METRICS] = JSON.stringify(current.map(metricStatusToV1));
    const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isObject) : [];
    if (conditions.length) {
      annotations[CONDITIONS] = JSON.stringify(conditions.map((c) => compact([
        ['type', c['type'] ?? ''], ['status', c['status'] ?? ''], ['lastTransitionTime', c['lastTransitionTime'] ?? null], ['reason', c['reason'] || undefined], ['message', c['message'] || undefined],
      ])));
    }
  }
  const behavior = obj(spec['behavior']);
  if (behavior) annotations[BEHAVIOR] = JSON.stringify(Object.fromEntries(BEHAVIOR_FIELDS.map(([go, json]) => [go, goRules(behavior[json])])));
  if (Object.keys(annotations).length) {
    const metadata = (out['metadata'] ??= {}) as Obj;
    metadata['annotations'] = { ...(obj(metadata['annotations']) ?? {}), ...annotations };
  }
  return out;
}

export function hpaToV2(hpa: Obj): Obj {
  const out = copyJson(hpa);
  const annotations = annotationsOf(hpa);
  withoutRoundTripAnnotations(out);
  const spec = obj(hpa['spec']) ?? {};
  const metrics: Obj[] = [];
  const others = parsed(annotations, METRICS);
  if (Array.isArray(others)) metrics.push(...others.filter(isObject).map(metricSpecToV2));
  const target = spec['targetCPUUtilizationPercentage'];
  if (target != null) metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } });
  const annotatedBehavior = obj(parsed(annotations, BEHAVIOR));
  const behavior = annotatedBehavior && compact(BEHAVIOR_FIELDS.map(([go, json]) => [json, rulesFromGo(goField(annotatedBehavior, go))]));
  out['spec'] = compact([
    ['scaleTargetRef', spec['scaleTargetRef']], ['minReplicas', spec['minReplicas']], ['maxReplicas', spec['maxReplicas']],
    ['metrics', metrics.length ? metrics : undefined], ['behavior', behavior],
  ]);
  const status = obj(hpa['status']);
  if (status) {
    const annotated = parsed(annotations, CURRENT_METRICS);
    const cpuNow = status['currentCPUUtilizationPercentage'];
    // The annotation, when there, holds every current metric (the CPU one included).
    const current = Array.isArray(annotated) ? annotated.filter(isObject).map(metricStatusToV2) : cpuNow != null ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpuNow } } }] : [];
    const conditions = parsed(annotations, CONDITIONS);
    out['status'] = compact([
      ['observedGeneration', status['observedGeneration']], ['lastScaleTime', status['lastScaleTime']],
      ['currentReplicas', status['currentReplicas'] || undefined], ['desiredReplicas', status['desiredReplicas'] ?? 0],
      ['currentMetrics', current.length ? current : null],
      ['conditions', Array.isArray(conditions) && conditions.length ? conditions.filter(isObject) : undefined],
    ]);
  }
  return out;
}

/** The HorizontalPodAutoscaler conversion between served versions (v2 and v2beta2 share a shape). */
export function convertHorizontalPodAutoscaler(hpa: Obj, from: string, to: string): Obj {
  if (from === to) return hpa;
  if (to === 'v1') return hpaToV1(hpa);
  if (from === 'v1') return hpaToV2(hpa);
  const out = copyJson(hpa);
  withoutRoundTripAnnotations(out);
  return out;
}
