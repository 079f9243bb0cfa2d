// /openapi/v2 and /openapi/v3 from the vendored 1.25 documents, limited to the served group-versions.
import { createHash } from 'node:crypto';
import { openApiV3Bytes, openApiV3Paths, swaggerDocument } from '../api/openapi-documents.js';
import type { GroupVersionFilter } from '../api/catalog.js';

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

export class OpenApi {
  private v2?: OpenApiDocumentBytes;
  private v3Root?: Buffer;
  private readonly v3 = new Map<string, { file: string; doc?: OpenApiDocumentBytes; hash?: string }>();

  constructor(private readonly enabled: GroupVersionFilter) {
    for (const [path, file] of openApiV3Paths()) if (v3Served(path, enabled)) this.v3.set(path, { file });
  }

  v2Document(): OpenApiDocumentBytes {
    if (!this.v2) {
      const doc = swaggerDocument();
      const paths: Record<string, unknown> = {};
      for (const [path, item] of Object.entries(doc.paths)) {
        const m = GROUP_PATH.exec(path);
        if (!m || this.enabled(m[1]!, m[2]!)) paths[path] = item;
      }
      this.v2 = withEtag(Buffer.from(JSON.stringify({ ...doc, paths })));
    }
    return this.v2;
  }

  private v3Entry(path: string): OpenApiDocumentBytes | undefined {
    const entry = this.v3.get(path);
    if (!entry) return undefined;
    entry.doc ??= withEtag(openApiV3Bytes(entry.file));
    return entry.doc;
  }

  v3RootDocument(): Buffer {
    if (!this.v3Root) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const path of [...this.v3.keys()].sort()) {
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
