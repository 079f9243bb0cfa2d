// What startCapstan installs before it resolves: CustomResourceDefinitions (each waited for until
// Established, as envtest's InstallCRDs waits) and then the objects to seed, created as the admin.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseYaml } from '../encoding/yaml-decode.js';
import { ApiError, type ApiClient } from './client.js';

export type Manifest = Record<string, unknown>;

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
/** How long a CRD may take to be Established. */
const ESTABLISH_TIMEOUT_MS = 10_000;

/** The objects in a file (YAML documents separated by `---` lines, or JSON; a List's items) or in a folder's manifest files, in name order. */
export function readManifests(path: string): Manifest[] {
  if (statSync(path).isDirectory()) {
    return readdirSync(path).sort().filter((name) => MANIFEST_EXTENSIONS.has(extname(name))).flatMap((name) => readManifests(join(path, name)));
  }
  const text = readFileSync(path, 'utf8');
  const docs = text.split(/^---[ \t]*(?:#.*)?$/m).filter((doc) => /^\s*[^\s#]/m.test(doc));
  return docs.flatMap((doc) => {
    let value: unknown;
    try {
      value = parseYaml(doc);
    } catch (err) {
      throw new Error(`${path}: ${(err as Error).message}`);
    }
    if (value === null || value === undefined) return [];
    if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path}: a manifest must be an object`);
    const object = value as Manifest;
    return typeof object['kind'] === 'string' && object['kind'].endsWith('List') && Array.isArray(object['items']) ? (object['items'] as Manifest[]) : [object];
  });
}

const nameOf = (m: Manifest) => String((m['metadata'] as Manifest | undefined)?.['name'] ?? '');
const namespaceOf = (m: Manifest) => (m['metadata'] as Manifest | undefined)?.['namespace'] as string | undefined;

function established(crd: Manifest): boolean {
  const conditions = ((crd['status'] as Manifest | undefined)?.['conditions'] ?? []) as Manifest[];
  return conditions.some((c) => c['type'] === 'Established' && c['status'] === 'True');
}

/** Creates each CRD (replacing one of the same name) and waits until all are Established. */
export async function installCrds(client: ApiClient, crds: Manifest[]): Promise<void> {
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  for (const crd of crds) {
    if (crd['kind'] !== 'CustomResourceDefinition') throw new Error(`crds: ${String(crd['kind'])} "${nameOf(crd)}" is not a CustomResourceDefinition`);
    try {
      await client.request('POST', base, crd);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
      const current = (await client.request('GET', `${base}/${nameOf(crd)}`)).json;
      const metadata = { ...(crd['metadata'] as Manifest), resourceVersion: (current['metadata'] as Manifest)['resourceVersion'] };
      await client.request('PUT', `${base}/${nameOf(crd)}`, { ...crd, metadata });
    }
  }
  const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
  for (const crd of crds) {
    for (;;) {
      if (established((await client.request('GET', `${base}/${nameOf(crd)}`)).json)) break;
      if (Date.now() > deadline) throw new Error(`crds: ${nameOf(crd)} was not Established within ${ESTABLISH_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** Creates the objects in order; where each goes is read from discovery. */
export async function seedObjects(client: ApiClient, objects: Manifest[]): Promise<void> {
  const resources = new Map<string, Array<{ name: string; kind: string; namespaced: boolean }>>();
  for (const object of objects) {
    const apiVersion = String(object['apiVersion'] ?? '');
    const kind = String(object['kind'] ?? '');
    const groupVersionPath = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    if (!resources.has(apiVersion)) {
      const list = (await client.request('GET', groupVersionPath)).json['resources'] as Array<{ name: string; kind: string; namespaced: boolean }>;
      resources.set(apiVersion, list.filter((r) => !r.name.includes('/')));
    }
    const resource = resources.get(apiVersion)!.find((r) => r.kind === kind);
    if (!resource) throw new Error(`objects: ${apiVersion} has no kind ${kind}`);
    const namespace = resource.namespaced ? namespaceOf(object) ?? 'default' : undefined;
    await client.request('POST', `${groupVersionPath}${namespace ? `/namespaces/${namespace}` : ''}/${resource.name}`, object);
  }
}
