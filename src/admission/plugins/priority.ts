// Priority: a pod's priority comes from its PriorityClass (or the global default class, else 0) and
// may not be given by hand; only one PriorityClass may be the global default.
import type { Registry } from '../../registry/store.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { podSpecOf, setSpecField } from './pods.js';
import { forbidden, isResource, listObjects, objectOf, readObject, stringOf, type JsonObject } from './support.js';

const GROUP = 'scheduling.k8s.io';
/** The priority of pods when no class is the global default. */
const DEFAULT_PRIORITY = 0;

export const priority: AdmissionPlugin = {
  name: 'Priority',
  operations: ['CREATE', 'UPDATE', 'DELETE'],
  async mutate(a, { registry }) {
    if (a.subresource || !isResource(a, '', 'pods')) return;
    const pod = objectOf(a.object);
    if (!pod) return;
    if (a.operation === 'UPDATE') return keepResolvedPriority(pod, objectOf(a.oldObject));
    if (a.operation === 'CREATE') await resolvePriority(a, registry, pod);
  },
  async validate(a, { registry }) {
    if (a.subresource || !isResource(a, GROUP, 'priorityclasses')) return;
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    const pc = objectOf(a.object);
    if (pc?.['globalDefault'] !== true) return;
    const current = await defaultClass(registry);
    if (current && (a.operation === 'CREATE' || nameOf(current) !== a.name)) {
      throw forbidden(a, `PriorityClass ${nameOf(current)} is already marked as default. Only one default can exist`);
    }
  },
};

async function resolvePriority(a: AdmissionAttributes, registry: Registry, pod: JsonObject): Promise<void> {
  const spec = podSpecOf(pod);
  const className = stringOf(spec['priorityClassName']) ?? '';
  let value: number;
  let policy: string | undefined;
  if (!className) {
    const pc = await defaultClass(registry);
    value = pc ? valueOf(pc) : DEFAULT_PRIORITY;
    policy = pc ? stringOf(pc['preemptionPolicy']) : 'PreemptLowerPriority';
    if (pc) setSpecField(spec, 'priorityClassName', nameOf(pc));
  } else {
    const pc = await readObject(registry, GROUP, 'priorityclasses', undefined, className);
    if (!pc) throw forbidden(a, `no PriorityClass with name ${className} was found`, 'mutate');
    value = valueOf(pc);
    policy = stringOf(pc['preemptionPolicy']);
  }
  if (typeof spec['priority'] === 'number' && spec['priority'] !== value) {
    throw forbidden(a, `the integer value of priority (${spec['priority']}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`, 'mutate');
  }
  setSpecField(spec, 'priority', value);
  if (policy === undefined) return;
  const given = stringOf(spec['preemptionPolicy']);
  if (given !== undefined && given !== policy) {
    throw forbidden(a, `the string value of PreemptionPolicy (${given}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`, 'mutate');
  }
  setSpecField(spec, 'preemptionPolicy', policy);
}

/** Updates keep the priority resolved at creation (validation refuses any other change to it). */
function keepResolvedPriority(pod: JsonObject, old: JsonObject | undefined): void {
  const spec = podSpecOf(pod);
  const oldSpec = objectOf(old?.['spec']) ?? {};
  for (const key of ['priority', 'preemptionPolicy']) {
    if (spec[key] === undefined && oldSpec[key] !== undefined) setSpecField(spec, key, oldSpec[key]);
  }
}

/** The global default class; should a race have made several, the one of lowest value. */
async function defaultClass(registry: Registry): Promise<JsonObject | undefined> {
  let found: JsonObject | undefined;
  for (const pc of await listObjects(registry, GROUP, 'priorityclasses')) {
    if (pc['globalDefault'] === true && (!found || valueOf(found) > valueOf(pc))) found = pc;
  }
  return found;
}

function valueOf(pc: JsonObject): number {
  return typeof pc['value'] === 'number' ? pc['value'] : 0;
}

function nameOf(obj: JsonObject): string {
  return stringOf(objectOf(obj['metadata'])?.['name']) ?? '';
}
