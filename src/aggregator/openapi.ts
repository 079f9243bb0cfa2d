// The extension servers' OpenAPI in /openapi/v2 and the /openapi/v3 root, as the reference's
// OpenAPI aggregation controllers: each Available remote APIService's server is asked for its
// /openapi/v2 and its /openapi/v3 root (as system:kube-aggregator, through the front proxy) when
// the APIServices are checked. Of v2, its paths under the APIService's group-version, and its
// definitions the served document does not already have, go into the served document; of the v3
// root, the entry of the APIService's group-version (with the server's own serverRelativeURL,
// whose hash is the server's) goes into the served root. The reference takes every entry of the
// extension's root; only the APIService's own is taken here, so that an extension server cannot
// stand in for another group's documents.
import { createHash } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { swaggerDefinitions } from '../api/openapi-documents.js';
import type { ExtensionOpenApi } from '../endpoints/openapi.js';
import { jsonMembers } from '../endpoints/openapi-generated.js';
import { isObject } from '../json.js';
import type { APIServiceView } from './apiservice-objects.js';
import { identityHeaders, type FrontProxyConfig } from './front-proxy.js';
import { tlsFor } from './proxy.js';
import type { Resolved } from './service-resolver.js';

const DOWNLOAD_TIMEOUT_MS = 5_000;
const CHECKER = { name: 'system:kube-aggregator', groups: ['system:masters'] };

export class OpenApiDownloads {
  private readonly parts = new Map<string, ExtensionOpenApi>();
  private listener: ((parts: readonly ExtensionOpenApi[]) => void) | undefined;

  constructor(private readonly config: FrontProxyConfig) {}

  /** Called with every part whenever the set changes. */
  onChange(listener: (parts: readonly ExtensionOpenApi[]) => void): void {
    this.listener = listener;
    listener([...this.parts.values()]);
  }

  /** Downloads again the documents of the Available remote APIServices (and forgets the others'). */
  async refresh(available: ReadonlyArray<{ view: APIServiceView; target: Resolved }>): Promise<void> {
    let changed = false;
    const names = new Set(available.map((a) => a.view.name));
    for (const name of [...this.parts.keys()]) {
      if (!names.has(name)) {
        this.parts.delete(name);
        changed = true;
      }
    }
    await Promise.all(available.map(async ({ view, target }) => {
      const [v2, v3Root] = await Promise.all(['/openapi/v2', '/openapi/v3'].map((path) => this.download(view, target, path).catch(() => undefined)));
      if (!v2 && !v3Root) return;
      const part = partOf(v2, v3Root, view);
      if (this.parts.get(view.name)?.digest.equals(part.digest)) return;
      this.parts.set(view.name, part);
      changed = true;
    }));
    if (changed) this.listener?.([...this.parts.values()].sort((a, b) => Buffer.compare(a.digest, b.digest)));
  }

  private download(view: APIServiceView, target: Resolved, path: string): Promise<Record<string, unknown> | undefined> {
    const host = target.host.includes(':') ? `[${target.host}]` : target.host;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(`https://${host}:${target.port}${path}`, {
        method: 'GET', agent: false, headers: { Accept: 'application/json', ...identityHeaders(CHECKER, this.config) }, ...tlsFor(view, this.config),
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          if ((res.statusCode ?? 0) !== 200) return resolve(undefined);
          try {
            const doc: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            resolve(isObject(doc) ? doc : undefined);
          } catch {
            resolve(undefined);
          }
        });
        res.on('error', reject);
      });
      const timer = setTimeout(() => req.destroy(new Error('timed out')), DOWNLOAD_TIMEOUT_MS);
      timer.unref();
      req.on('error', reject);
      req.end();
    });
  }
}

/**
 * Of the v2 document, the APIService's paths and the definitions the served document lacks, as JSON
 * members; of the v3 root, the APIService's group-version's entry.
 */
function partOf(v2: Record<string, unknown> | undefined, v3Root: Record<string, unknown> | undefined, view: APIServiceView): ExtensionOpenApi {
  const prefix = `/apis/${view.group}/${view.version}`;
  const paths = Object.entries(v2 && isObject(v2.paths) ? v2.paths : {}).filter(([p]) => p === prefix || p.startsWith(`${prefix}/`));
  const builtin = swaggerDefinitions();
  const definitions = Object.entries(v2 && isObject(v2.definitions) ? v2.definitions : {}).filter(([name]) => !(name in builtin));
  const pathText = Buffer.from(jsonMembers(paths));
  const definitionText = Buffer.from(jsonMembers(definitions));
  const key = prefix.slice(1);
  const entry = v3Root && isObject(v3Root.paths) ? v3Root.paths[key] : undefined;
  const url = isObject(entry) && typeof entry.serverRelativeURL === 'string' ? entry.serverRelativeURL : undefined;
  const v3 = url !== undefined && url.startsWith(`/openapi/v3/${key}`) ? { path: key, serverRelativeURL: url } : undefined;
  const digest = createHash('sha512').update(pathText).update('\0').update(definitionText).update('\0').update(url ?? '').digest();
  return { paths: pathText, definitions: definitionText, ...(v3 ? { v3 } : {}), digest };
}
