// The vendored 1.25 OpenAPI documents, each parsed once and shared: /openapi serves filtered
// copies (a start reads extracts instead: the catalog's of the paths, the schema model's of the
// definitions). Never mutate them.
import { readdirSync } from 'node:fs';
import { dataDir, readData } from './data.js';

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

const SWAGGER_FILE = 'k8s-1.25/openapi/swagger.json';

/**
 * The top-level members of swagger.json, each parsed when first asked for: `definitions` is 0.75
 * MB of the 4.3, `paths` 2.7 MB and ~26 ms to parse. The file is printed with two-space
 * indentation, so a line that starts with exactly two spaces and a quote begins a top-level member
 * (a test checks the members make the whole document).
 */
class SwaggerMembers {
  private spans?: Map<string, [number, number]>;
  private readonly parsed = new Map<string, unknown>();

  get(name: string, bytes?: Buffer): unknown {
    if (this.parsed.has(name)) return this.parsed.get(name);
    const file = bytes ?? readData(SWAGGER_FILE);
    const span = this.spansOf(file).get(name);
    const value: unknown = span ? JSON.parse(file.toString('utf8', span[0], span[1])) : undefined;
    this.parsed.set(name, value);
    return value;
  }

  /** Every member, in the file's order (the file read once for those not yet parsed). */
  all(): Array<[string, unknown]> {
    const bytes = readData(SWAGGER_FILE);
    return [...this.spansOf(bytes).keys()].map((name) => [name, this.get(name, bytes)]);
  }

  private spansOf(bytes: Buffer): Map<string, [number, number]> {
    if (this.spans) return this.spans;
    const spans = new Map<string, [number, number]>();
    const end = bytes.lastIndexOf('}');
    let at = bytes.indexOf('\n  "');
    while (at !== -1) {
      const keyEnd = bytes.indexOf('": ', at + 4);
      const name = bytes.toString('utf8', at + 4, keyEnd);
      const next = bytes.indexOf('\n  "', keyEnd);
      // The value runs to the comma before the next member, or to the document's closing brace.
      let valueEnd = next === -1 ? end : next;
      while (valueEnd > keyEnd && /[\s,]/.test(String.fromCharCode(bytes[valueEnd - 1]!))) valueEnd--;
      spans.set(name, [keyEnd + 3, valueEnd]);
      at = next;
    }
    this.spans = spans;
    return spans;
  }
}

const members = new SwaggerMembers();
let swagger: SwaggerDocument | undefined;

/** The OpenAPI v2 document of every built-in group-version (alpha ones included). */
export function swaggerDocument(): SwaggerDocument {
  swagger ??= Object.fromEntries(members.all()) as SwaggerDocument;
  return swagger;
}

/** Its `definitions` alone (the schemas), without parsing the rest. */
export function swaggerDefinitions(): SwaggerDocument['definitions'] {
  return members.get('definitions') as SwaggerDocument['definitions'];
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
