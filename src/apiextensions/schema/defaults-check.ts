// ValidateDefaults: every `default` of a structural schema must be valid against the schema at its
// place and must come out of pruning unchanged ("must not have unknown fields"); defaults of
// embedded resources must make valid resources.
import type { FieldError } from '../../errors.js';
import { validateEmbeddedResources } from './embedded.js';
import { pruneValue } from './prune.js';
import { childPath, deepEqualJson, invalidValue, keyPath } from './render.js';
import { copyJson } from '../../json.js';
import type { JSONSchemaProps, Structural } from './types.js';
import { validateValue } from './validate.js';

const META_FIELDS = new Set(['metadata', 'apiVersion', 'kind']);

/** The schema a default is validated against: the node as kube-openapi sees it (junctors included). */
function validationSchemaOf(s: Structural): JSONSchemaProps {
  return s.source;
}

function check(path: string, s: Structural, insideMeta: boolean, requirePruned: boolean, out: FieldError[]): void {
  if (s.embeddedResource) insideMeta = false;
  if (s.default !== undefined) {
    const at = childPath(path, 'default');
    if (!insideMeta && requirePruned) {
      const pruned = copyJson(s.default);
      pruneValue(pruned, s, s.embeddedResource);
      if (!deepEqualJson(pruned, s.default)) out.push(invalidValue(at, s.default, 'must not have unknown fields'));
    }
    const embedded = insideMeta ? [] : validateEmbeddedResources(s.default, s, at, s.embeddedResource);
    out.push(...(embedded.length ? embedded : validateValue(s.default, validationSchemaOf(s), at)));
  }
  if (s.items) check(childPath(path, 'items'), s.items, insideMeta, requirePruned, out);
  for (const [k, sub] of s.properties ?? []) {
    check(keyPath(childPath(path, 'properties'), k), sub, insideMeta || (s.embeddedResource && META_FIELDS.has(k)), requirePruned, out);
  }
}

/** The errors of the defaults in structural schema `s` (a CRD version's root) at `path`. */
export function validateDefaults(s: Structural, path: string, requirePrunedDefaults = true): FieldError[] {
  const out: FieldError[] = [];
  check(path, s.embeddedResource ? s : { ...s, embeddedResource: true }, false, requirePrunedDefaults, out);
  return out;
}
