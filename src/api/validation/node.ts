// node.k8s.io/v1 RuntimeClasses: a DNS-label handler, fixed once created.
import type { FieldError } from '../../errors.js';
import { validateLabels } from '../names.js';
import { dnsLabel, immutable, obj, type Obj, str } from './helpers.js';
import { quantities, validateContainerResourceName, validateQuantityValue } from './core-resources.js';
import { isObject } from '../../json.js';

export function validateRuntimeClass(rc: Obj): FieldError[] {
  const errs = dnsLabel(str(rc['handler']), 'handler');
  for (const [name, q] of quantities(obj(rc['overhead'])['podFixed'])) {
    const path = `overhead.podFixed[${name}]`;
    errs.push(...validateContainerResourceName(name, path), ...validateQuantityValue(name, q, path));
  }
  if (isObject(rc['scheduling'])) errs.push(...validateLabels(rc['scheduling']['nodeSelector'], 'scheduling.nodeSelector'));
  return errs;
}

export function validateRuntimeClassUpdate(rc: Obj, old: Obj): FieldError[] {
  return immutable(str(rc['handler']), str(old['handler']), 'handler');
}
