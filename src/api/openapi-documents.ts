// The vendored 1.25 OpenAPI documents, each parsed once and shared: the catalog reads its paths,
// the schema model its definitions, and /openapi/v2 serves a filtered copy. Never mutate them.
import { readdirSync } from 'node:fs';
import { dataDir, readData, readDataJson } from './data.js';

export interface OpenApiOperation {
  'x-kubernetes-action'?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string };
}

export interface SwaggerDocument {
  swagger: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, OpenApiOperation | unknown>>;
  definitions: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

let swagger: SwaggerDocument | undefined;

/** The OpenAPI v2 document of every built-in group-version (alpha ones included). */
export function swaggerDocument(): SwaggerDocument {
  swagger ??= readDataJson<SwaggerDocument>('k8s-1.25/openapi/swagger.json');
  return swagger;
}

/** The v3 documents' names: `apis__apps__v1_openapi.json` → `apis/apps/v1`. */
export function openApiV3Paths(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(dataDir + 'k8s-1.25/openapi/v3')) out.set(file.replace(/_openapi\.json$/, '').split('__').join('/'), file);
  return out;
}

/** The bytes of one v3 document, by the file name openApiV3Paths gives. */
export function openApiV3Bytes(file: string): Buffer {
  return readData(`k8s-1.25/openapi/v3/${file}`);
}

/** The file of a group-version's v3 document (`api__v1_openapi.json`, `apis__apps__v1_openapi.json`). */
export function openApiV3File(group: string, version: string): string {
  return group === '' ? `api__${version}_openapi.json` : `apis__${group}__${version}_openapi.json`;
}
