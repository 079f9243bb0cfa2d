// /openapi/v2 and /openapi/v3 from the vendored 1.25 documents, limited to the served group-versions.
import { createHash } from 'node:crypto';
import { openApiV3Bytes, openApiV3Paths, swaggerDocument } from '../api/openapi-documents.js';
import type { GroupVersionFilter } from '../api/catalog.js';
import type { ResourceDefinition, ResourceDefinitions } from '../registry/definitions.js';
import { openApiV2Additions, openApiV3Document } from './openapi-generated.js';

export interface OpenApiDocumentBytes {
  body: Buffer;
  etag: string;
}

const GROUP_PATH = /^\/apis\/([^/]+)\/([^/]+)\//;

function withEtag(body: Buffer): OpenApiDocumentBytes {
  return { body, etag: `"${createHash('sha512').update(body).digest('hex').slice(0, 64).toUpperCase()}"` };
}

function v3Served(path: string, enabled: GroupVersionFilter): boolean {
  const m = /^apis\/([^/]+)\/([^/]+)$/.exec(path);
  return !m || enabled(m[1]!, m[2]!);
}

/** A vendored v3 document with the server's version in place of the `info.version` it was generated with. */
function withInfoVersion(bytes: Buffer, version: string): Buffer {
  const text = bytes.toString('utf8');
  const at = text.lastIndexOf(UNVERSIONED);
  if (at < 0) return bytes;
  return Buffer.from(text.slice(0, at) + `"version": ${JSON.stringify(version)}` + text.slice(at + UNVERSIONED.length));
}

/** How the vendored v3 documents write their `info.version` (once per document, in `info`). */
const UNVERSIONED = '"version": "unversioned"';

/** A definition's schema, closed over its references, with the v3 document's reference prefix. */
function referencedSchemas(roots: Iterable<string>): Record<string, unknown> {
  const all = swaggerDocument().definitions;
  const out: Record<string, unknown> = {};
  const visit = (name: string) => {
    if (name in out || !(name in all)) return;
    const text = JSON.stringify(all[name]).replaceAll('"#/definitions/', '"#/components/schemas/');
    out[name] = JSON.parse(text) as unknown;
    for (const m of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) visit(m[1]!);
  };
  for (const name of roots) visit(name);
  return out;
}

/**
 * /openapi/v2 and /openapi/v3: the vendored documents of the served built-in group-versions, and
 * documents made for the resources defined at run time. Each is serialized once, and again after
 * the set of definitions changed.
 */
export class OpenApi {
  private v2?: OpenApiDocumentBytes;
  private v3Root?: Buffer;
  private readonly v3 = new Map<string, { file: string; doc?: OpenApiDocumentBytes }>();
  /** Documents of run-time group-versions, made on first request. */
  private generated = new Map<string, OpenApiDocumentBytes>();
  private builtAt = -1;

  /**
   * `infoVersion` is what the documents' `info.version` says: the server's version (the reference
   * takes /version's gitVersion up to its first `-`).
   */
  constructor(private readonly definitions: ResourceDefinitions, private readonly enabled: GroupVersionFilter, private readonly infoVersion: string) {
    for (const [path, file] of openApiV3Paths()) if (v3Served(path, enabled)) this.v3.set(path, { file });
  }

  /** The resources defined at run time (drops what was made from an older set). */
  private runtime(): ResourceDefinition[] {
    if (this.builtAt !== this.definitions.generation) {
      this.builtAt = this.definitions.generation;
      this.v2 = undefined;
      this.v3Root = undefined;
      this.generated = new Map();
    }
    return [...this.definitions.definitions()].filter((d) => !d.builtin);
  }

  /** `apis/{group}/{version}` of every run-time group-version the vendored documents do not have. */
  private runtimeGroupVersions(runtime: readonly ResourceDefinition[]): Map<string, { group: string; version: string }> {
    const out = new Map<string, { group: string; version: string }>();
    for (const d of runtime) {
      for (const v of d.versions) {
        const path = d.group ? `apis/${d.group}/${v.version}` : `api/${v.version}`;
        if (!this.v3.has(path)) out.set(path, { group: d.group, version: v.version });
      }
    }
    return out;
  }

  v2Document(): OpenApiDocumentBytes {
    const runtime = this.runtime();
    if (!this.v2) {
      const doc = swaggerDocument();
      const paths: Record<string, unknown> = {};
      for (const [path, item] of Object.entries(doc.paths)) {
        const m = GROUP_PATH.exec(path);
        if (!m || this.enabled(m[1]!, m[2]!)) paths[path] = item;
      }
      const added = openApiV2Additions(runtime);
      Object.assign(paths, added.paths);
      const definitions = runtime.length ? { ...doc.definitions, ...added.definitions } : doc.definitions;
      const info = { ...doc.info, version: this.infoVersion };
      this.v2 = withEtag(Buffer.from(JSON.stringify({ ...doc, info, definitions, paths })));
    }
    return this.v2;
  }

  private v3Entry(path: string): OpenApiDocumentBytes | undefined {
    const entry = this.v3.get(path);
    if (entry) {
      entry.doc ??= withEtag(withInfoVersion(openApiV3Bytes(entry.file), this.infoVersion));
      return entry.doc;
    }
    const runtime = this.runtime();
    const gv = this.runtimeGroupVersions(runtime).get(path);
    if (!gv) return undefined;
    let doc = this.generated.get(path);
    if (!doc) {
      const made = openApiV3Document(runtime, gv.group, gv.version);
      const components = made['components'] as { schemas: Record<string, unknown> };
      const own = new Set(Object.keys(components.schemas));
      const refs = [...JSON.stringify(made).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!).filter((n) => !own.has(n));
      Object.assign(components.schemas, referencedSchemas(refs));
      doc = withEtag(Buffer.from(JSON.stringify(made)));
      this.generated.set(path, doc);
    }
    return doc;
  }

  v3RootDocument(): Buffer {
    const runtime = this.runtime();
    if (!this.v3Root) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      const all = [...this.v3.keys(), ...this.runtimeGroupVersions(runtime).keys()].sort();
      for (const path of all) {
        const doc = this.v3Entry(path)!;
        paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.etag.slice(1, -1)}` };
      }
      this.v3Root = Buffer.from(JSON.stringify({ paths }));
    }
    return this.v3Root;
  }

  v3Document(path: string): OpenApiDocumentBytes | undefined {
    return this.v3Entry(path);
  }
}
