// /openapi/v2 and /openapi/v3 from the vendored 1.25 documents, limited to the served group-versions.
import { createHash, type Hash } from 'node:crypto';
import { openApiV3Bytes, openApiV3Paths, swaggerDefinitions, swaggerDocument } from '../api/openapi-documents.js';
import { v3PathsFromV2 } from '../api/openapi-v3-from-v2.js';
import type { GroupVersionFilter } from '../api/catalog.js';
import { openApiV2Protobuf } from '../encoding/openapi-v2-protobuf.js';
import { decodeJson, type JsonObject } from '../json.js';
import type { ResourceDefinition, ResourceDefinitions } from '../registry/definitions.js';
import { parseMediaRanges, type MediaRange } from './negotiation.js';
import { jsonMembers, openApiV2Texts, openApiV3DocumentOf, openApiV3DocumentTexts, type PartText } from './openapi-generated.js';

export interface OpenApiDocumentBytes {
  body: Buffer;
  etag: string;
}

const GROUP_PATH = /^\/apis\/([^/]+)\/([^/]+)\//;

/** What kubectl ≤ 1.28 and client-go's OpenAPISchema ask /openapi/v2 for: gnostic's Protobuf message. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/**
 * The form of /openapi/v2 an Accept header asks for, or undefined (406), as the reference chooses:
 * media ranges by quality, then the more specific first; the first that matches JSON or the
 * Protobuf type wins, JSON first for wildcards. No header is `*\/*`.
 */
export function openApiV2Format(accept: string | undefined): 'json' | 'protobuf' | undefined {
  const wildcards = (r: MediaRange) => (r.type === '*' ? 2 : 0) + (r.subtype === '*' ? 1 : 0);
  const ranges = parseMediaRanges(accept?.trim() ? accept : '*/*')
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.q - a.r.q || wildcards(a.r) - wildcards(b.r) || a.i - b.i)
    .map((x) => x.r);
  const [type, subtype] = OPENAPI_V2_PROTOBUF.split('/') as [string, string];
  for (const r of ranges) {
    if (r.type !== 'application' && r.type !== '*') continue;
    if (r.subtype === 'json' || r.subtype === '*') return 'json';
    if (r.type === type && r.subtype === subtype) return 'protobuf';
  }
  return undefined;
}

/** The vendored v2 document serialized (see OpenApi.builtinV2). */
interface BuiltinV2 {
  pieces: Array<Buffer | 'paths' | 'definitions'>;
  paths: Buffer;
  definitions: Buffer;
  digest: Buffer;
}

/** Where a v3 document that is not vendored comes from. */
type MadeV3 = { from: 'v2' } | { from: 'definitions'; group: string; version: string };

/** An ETag as the reference writes one: the first half of a SHA-512, upper-case hex, quoted. */
function etagOf(hash: Hash): string {
  return `"${hash.digest('hex').slice(0, 64).toUpperCase()}"`;
}

function withEtag(body: Buffer): OpenApiDocumentBytes {
  return { body, etag: etagOf(createHash('sha512').update(body)) };
}

/**
 * A document assembled from pieces: its ETag from a hash of what identifies the pieces (their
 * digests), its body concatenated when first read — the root names every document's hash, and a
 * document of a hundred CRDs is megabytes.
 */
function assembled(identity: Hash, pieces: () => Buffer[]): OpenApiDocumentBytes {
  let body: Buffer | undefined;
  return {
    etag: etagOf(identity),
    get body() {
      body ??= Buffer.concat(pieces());
      return body;
    },
  };
}

/** The same definitions (the very objects: a definition is replaced, never changed), in the same order. */
function sameDefinitions(a: readonly ResourceDefinition[], b: readonly ResourceDefinition[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** The resource a vendored path is about (`/apis/g/v/namespaces/{namespace}/r/…`, `/apis/g/v/watch/r`); none for the version's own path. */
function resourceOfPath(path: string): string | undefined {
  const rest = path.split('/').slice(4).filter((s) => s !== 'watch');
  return (rest[0] === 'namespaces' && rest.length > 2 ? rest[2] : rest[0]) || undefined;
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
  const all = swaggerDefinitions();
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

/** The schemas `refs` need (closed over), as comma-separated JSON members, kept for the same set of names (it rarely changes). */
let referencedText: { key: string; members: Buffer } | undefined;

function referencedMembers(refs: readonly string[]): Buffer {
  const key = refs.join(',');
  if (referencedText?.key !== key) {
    referencedText = { key, members: Buffer.from(jsonMembers(Object.entries(referencedSchemas(refs)))) };
  }
  return referencedText.members;
}

const COMMA = Buffer.from(',');

/** Comma-separated lists of members, joined into one (empty ones left out). */
function joined(lists: readonly Buffer[]): Buffer[] {
  return lists.filter((b) => b.length).flatMap((b, i) => (i ? [COMMA, b] : [b]));
}

/** A v3 document of resources defined at run time, from its parts' encoded pieces (the same bytes as serializing it whole). */
function madeV3BytesOf(parts: readonly PartText[], infoVersion: string): OpenApiDocumentBytes {
  const own = new Set(parts.flatMap((p) => p.schemaNames));
  const refs = [...new Set(parts.flatMap((p) => [...p.refs]))].filter((n) => !own.has(n)).sort();
  const info = JSON.stringify({ title: 'Kubernetes', version: infoVersion });
  const identity = createHash('sha512').update(info).update(refs.join(','));
  for (const p of parts) identity.update(p.digest);
  return assembled(identity, () => [
    Buffer.from(`{"openapi":"3.0.0","info":${info},"paths":{`),
    ...joined(parts.map((p) => p.paths)),
    Buffer.from('},"components":{"schemas":{'),
    ...joined([...parts.map((p) => p.schemas), referencedMembers(refs)]),
    Buffer.from(`},"securitySchemes":${JSON.stringify(swaggerDocument()['securityDefinitions'])}}}`),
  ]);
}

/** A made v3 document completed with the schemas it references (closed over), serialized. */
function madeV3Bytes(doc: JsonObject): OpenApiDocumentBytes {
  const components = doc['components'] as { schemas: Record<string, unknown>; securitySchemes?: unknown };
  const own = new Set(Object.keys(components.schemas));
  const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!).filter((n) => !own.has(n));
  Object.assign(components.schemas, referencedSchemas(refs));
  components.securitySchemes ??= swaggerDocument()['securityDefinitions'];
  return withEtag(Buffer.from(JSON.stringify(doc)));
}

/**
 * /openapi/v2 and /openapi/v3: the vendored documents of the served built-in group-versions, and
 * documents made for the rest: from the v2 document for built-in group-versions the vendored v3
 * documents lack (apiregistration.k8s.io/v1), from the definitions for resources defined at run
 * time. Each is serialized once, and again after the set of definitions changed; /openapi/v2 as
 * Protobuf is made from the JSON on first request.
 */
/** An extension API server's part of /openapi/v2: its paths and definitions as comma-separated JSON members. */
export interface ExtensionOpenApi {
  readonly paths: Buffer;
  readonly definitions: Buffer;
  /** The extension's entry of the /openapi/v3 root, when its server has one. */
  readonly v3?: { readonly path: string; readonly serverRelativeURL: string };
  /** Identifies the two (a digest of them). */
  readonly digest: Buffer;
}

export class OpenApi {
  private v2?: OpenApiDocumentBytes;
  private extensions: readonly ExtensionOpenApi[] = [];
  private builtinV2Text?: BuiltinV2;
  /** The Protobuf form of /openapi/v2, and the JSON document it was made from. */
  private v2Protobuf?: { from: OpenApiDocumentBytes; body: Buffer };
  private v3Root?: Buffer;
  private readonly v3 = new Map<string, { file: string; doc?: OpenApiDocumentBytes }>();
  /**
   * The v3 documents made here, by name (`apis/{group}/{version}`), made on first request, with the
   * definitions each was made from: kept across changes of the set while those stay the same (the
   * root names every document's hash, and remaking all of them at each new CRD is dear).
   */
  private generated = new Map<string, { doc: OpenApiDocumentBytes; from: readonly ResourceDefinition[] }>();
  private made?: Map<string, MadeV3>;
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
      this.made = undefined;
    }
    return [...this.definitions.definitions()].filter((d) => !d.builtin);
  }

  /**
   * Every v3 document to make, by name: each served group-version the vendored documents do not
   * have (a built-in one from the v2 document, one of resources defined at run time from their
   * definitions), and each such built-in group's own document.
   */
  private madeV3(): Map<string, MadeV3> {
    this.runtime();
    if (!this.made) {
      const made = new Map<string, MadeV3>();
      const v2Paths = swaggerDocument().paths;
      for (const d of this.definitions.definitions()) {
        for (const v of d.versions) {
          const path = d.group ? `apis/${d.group}/${v.version}` : `api/${v.version}`;
          if (this.v3.has(path)) continue;
          if (d.builtin) made.set(path, { from: 'v2' });
          else if (!made.has(path)) made.set(path, { from: 'definitions', group: d.group, version: v.version });
          const group = `apis/${d.group}`;
          if (d.builtin && d.group && !this.v3.has(group) && `/${group}/` in v2Paths) made.set(group, { from: 'v2' });
        }
      }
      this.made = made;
      for (const path of this.generated.keys()) if (!made.has(path)) this.generated.delete(path);
    }
    return this.made;
  }

  /**
   * /openapi/v2: the vendored document's served paths and definitions (serialized once), then those
   * of the resources defined at run time, from their parts' encoded pieces (as madeV3BytesOf).
   */
  v2Document(): OpenApiDocumentBytes {
    const runtime = this.runtime();
    if (!this.v2) {
      const builtin = this.builtinV2();
      const parts = openApiV2Texts(runtime);
      const extensions = this.extensions;
      const identity = createHash('sha512').update(builtin.digest);
      for (const p of parts) identity.update(p.digest);
      for (const e of extensions) identity.update(e.digest);
      this.v2 = assembled(identity, () => builtin.pieces.flatMap((piece) => {
        if (piece === 'paths') return joined([builtin.paths, ...parts.map((p) => p.paths), ...extensions.map((e) => e.paths)]);
        if (piece === 'definitions') return joined([builtin.definitions, ...parts.map((p) => p.schemas), ...extensions.map((e) => e.definitions)]);
        return [piece];
      }));
    }
    return this.v2;
  }

  /** The extension servers' parts of /openapi/v2 from now on (the aggregator's downloads). */
  setExtensions(parts: readonly ExtensionOpenApi[]): void {
    this.extensions = parts;
    this.v2 = undefined;
    this.v3Root = undefined;
  }

  /**
   * The vendored v2 document as this server serves it (its served paths, its info.version),
   * serialized once: the members of `paths` and of `definitions`, and the document around them
   * with a mark where each list of members goes.
   */
  private builtinV2(): BuiltinV2 {
    if (!this.builtinV2Text) {
      const doc = swaggerDocument();
      const members = (entries: Array<[string, unknown]>) => Buffer.from(jsonMembers(entries));
      const paths = members(Object.entries(doc.paths).filter(([path]) => {
        const m = GROUP_PATH.exec(path);
        return !m || this.enabled(m[1]!, m[2]!, resourceOfPath(path));
      }));
      const definitions = members(Object.entries(doc.definitions));
      const whole: Record<string, unknown> = { ...doc, info: { ...doc.info, version: this.infoVersion } };
      const pieces: BuiltinV2['pieces'] = [Buffer.from('{')];
      for (const [i, [key, value]] of Object.entries(whole).entries()) {
        const name = `${i ? ',' : ''}${JSON.stringify(key)}:`;
        if (key === 'paths' || key === 'definitions') pieces.push(Buffer.from(`${name}{`), key, Buffer.from('}'));
        else pieces.push(Buffer.from(`${name}${JSON.stringify(value)}`));
      }
      pieces.push(Buffer.from('}'));
      const digest = createHash('sha512');
      for (const piece of [...pieces, paths, definitions]) digest.update(piece);
      this.builtinV2Text = { pieces, paths, definitions, digest: digest.digest() };
    }
    return this.builtinV2Text;
  }

  /** /openapi/v2 as gnostic's `openapi.v2.Document`, with the JSON's ETag (as the reference). */
  v2ProtobufDocument(): OpenApiDocumentBytes {
    const json = this.v2Document();
    if (this.v2Protobuf?.from !== json) this.v2Protobuf = { from: json, body: openApiV2Protobuf(decodeJson(json.body)) };
    return { body: this.v2Protobuf.body, etag: json.etag };
  }

  private v3Entry(path: string): OpenApiDocumentBytes | undefined {
    const entry = this.v3.get(path);
    if (entry) {
      entry.doc ??= withEtag(withInfoVersion(openApiV3Bytes(entry.file), this.infoVersion));
      return entry.doc;
    }
    const made = this.madeV3().get(path);
    if (!made) return undefined;
    const from = made.from === 'v2' ? [] : this.runtime().filter((d) => d.group === made.group && d.versions.some((v) => v.version === made.version));
    const known = this.generated.get(path);
    if (known && sameDefinitions(known.from, from)) return known.doc;
    let doc: OpenApiDocumentBytes;
    if (made.from === 'v2') {
      const document = openApiV3DocumentOf(v3PathsFromV2(swaggerDocument().paths, path), {});
      document['info'] = { ...(document['info'] as JsonObject | undefined), version: this.infoVersion };
      doc = madeV3Bytes(document);
    } else {
      doc = madeV3BytesOf(openApiV3DocumentTexts(from, made.group, made.version), this.infoVersion);
    }
    this.generated.set(path, { doc, from });
    return doc;
  }

  v3RootDocument(): Buffer {
    this.runtime();
    if (!this.v3Root) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      const all = [...this.v3.keys(), ...this.madeV3().keys()].sort();
      for (const path of all) {
        const doc = this.v3Entry(path)!;
        paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.etag.slice(1, -1)}` };
      }
      // The extension servers' group-versions (never one served here: those are not proxied).
      for (const { v3 } of this.extensions) if (v3 && !(v3.path in paths)) paths[v3.path] = { serverRelativeURL: v3.serverRelativeURL };
      this.v3Root = Buffer.from(JSON.stringify({ paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }));
    }
    return this.v3Root;
  }

  v3Document(path: string): OpenApiDocumentBytes | undefined {
    return this.v3Entry(path);
  }
}
