// Loads the real CRDs of test/fixtures/crds (cert-manager, the Prometheus operator, Argo CD;
// see NOTICE.md there) for the schema engine's tests and probes.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { type JSONSchemaProps, type Structural, toStructural } from '../../../src/apiextensions/schema/index.js';

// dist/test/apiextensions/schema → the repository's test/fixtures/crds.
const DIR = fileURLToPath(new URL('../../../../test/fixtures/crds/', import.meta.url));

export interface FixtureVersion {
  name: string;
  schema: JSONSchemaProps;
  statusEnabled: boolean;
}

export interface FixtureCrd {
  file: string;
  name: string;
  group: string;
  kind: string;
  versions: FixtureVersion[];
}

interface CrdYaml {
  metadata: { name: string };
  spec: { group: string; names: { kind: string }; versions: Array<{ name: string; schema: { openAPIV3Schema: JSONSchemaProps }; subresources?: { status?: unknown } }> };
}

let loaded: FixtureCrd[] | undefined;

/** Every fixture CRD, parsed once (sorted by file name). */
export function loadFixtureCrds(): FixtureCrd[] {
  loaded ??= readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort().map((file) => {
    const crd = parse(readFileSync(DIR + file, 'utf8')) as CrdYaml;
    return {
      file,
      name: crd.metadata.name,
      group: crd.spec.group,
      kind: crd.spec.names.kind,
      versions: crd.spec.versions.map((v) => ({ name: v.name, schema: v.schema.openAPIV3Schema, statusEnabled: v.subresources?.status !== undefined })),
    };
  });
  return loaded;
}

/** The first version's schema of the CRD named `name` (e.g. certificates.cert-manager.io), and its structural form. */
export function fixtureSchema(name: string): { schema: JSONSchemaProps; structural: Structural } {
  const crd = loadFixtureCrds().find((c) => c.name === name);
  if (!crd) throw new Error(`no fixture CRD ${name}`);
  const schema = crd.versions[0]!.schema;
  const r = toStructural(schema);
  if (!('structural' in r)) throw new Error(`${name}: ${r.error}`);
  return { schema, structural: r.structural };
}
