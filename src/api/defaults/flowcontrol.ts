// Defaults of flowcontrol.apiserver.k8s.io v1beta1 and v1beta2 (the same rules in both).
import { ensureObject, objectAt, setIfZero, type Obj } from './fields.js';

export function defaultFlowSchema(flowSchema: Obj): void {
  const spec = ensureObject(flowSchema, 'spec');
  if (spec) setIfZero(spec, 'matchingPrecedence', 1000);
}

export function defaultPriorityLevelConfiguration(priorityLevel: Obj): void {
  const spec = ensureObject(priorityLevel, 'spec');
  const limited = spec && objectAt(spec, 'limited');
  if (!limited) return;
  setIfZero(limited, 'assuredConcurrencyShares', 30);
  // A struct value, written {} when empty.
  const limitResponse = ensureObject(limited, 'limitResponse');
  const queuing = limitResponse && objectAt(limitResponse, 'queuing');
  if (queuing) {
    setIfZero(queuing, 'handSize', 8);
    setIfZero(queuing, 'queueLengthLimit', 50);
    setIfZero(queuing, 'queues', 64);
  }
}
