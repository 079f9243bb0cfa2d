// The aggregation layer as the routes see it: which paths belong to a remote APIService, the
// answer for them (proxied, or 503 while the APIService is not Available), and the remote groups
// for discovery.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../api/user.js';
import type { Output } from '../endpoints/request.js';
import { sendBytes, sendText } from '../endpoints/request.js';
import type { Informer } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { apiServiceInfo, isAvailable, viewOf, type APIServiceView } from './apiservice-objects.js';
import { AvailabilityController } from './availability.js';
import { apiGroupDocument, mergedGroupList, remoteGroups, type RemoteGroup } from './discovery.js';
import type { FrontProxyConfig } from './front-proxy.js';
import { ExtensionProxy } from './proxy.js';
import { OpenApiDownloads } from './openapi.js';
import type { ExtensionOpenApi } from '../endpoints/openapi.js';
import type { AggregatorMetrics } from '../metrics/aggregator.js';
import { ServiceResolver } from './service-resolver.js';

export interface AggregatorOptions {
  /** How long an extension server has to start answering (the request timeout). */
  readonly responseTimeoutMs: number;
  /** How often every remote APIService is checked again besides on changes (the reference: 30 s). */
  readonly recheckMs: number;
}

export class Aggregator {
  private cachedAt = -1;
  private cached: RemoteGroup[] = [];

  private constructor(
    private readonly informer: Informer,
    private readonly proxy: ExtensionProxy | undefined,
    readonly availability: AvailabilityController,
    private readonly openApi: OpenApiDownloads | undefined,
  ) {}

  /** Whether the extension servers' OpenAPI documents are fetched (with a front proxy to ask them through). */
  get downloadsOpenApi(): boolean {
    return this.openApi !== undefined;
  }

  /** Hands the extension servers' OpenAPI v2 parts to `listener`, now and whenever they change. */
  onOpenApiChange(listener: (parts: readonly ExtensionOpenApi[]) => void): void {
    this.openApi?.onChange(listener);
  }

  /** Undefined when APIServices are not served. */
  static async create(registry: Registry, config: FrontProxyConfig | undefined, options: AggregatorOptions, metrics?: AggregatorMetrics): Promise<Aggregator | undefined> {
    const info = apiServiceInfo(registry);
    if (!info) return undefined;
    const informer = await registry.informer(info);
    const resolver = await ServiceResolver.of(registry);
    const openApi = config ? new OpenApiDownloads(config) : undefined;
    const availability = new AvailabilityController(registry, resolver, config, { recheckMs: options.recheckMs }, openApi, metrics);
    metrics?.followApiServices(() => informer.list().map((o) => [viewOf(o).name, isAvailable(o)] as const));
    const proxy = config ? new ExtensionProxy(resolver, config, { responseTimeoutMs: options.responseTimeoutMs, unreachable: () => availability.recheck() }) : undefined;
    return new Aggregator(informer, proxy, availability, openApi);
  }

  /** The remote APIService serving /apis/<group>/<version>, if one does. */
  private remote(group: string, version: string): { view: APIServiceView; available: boolean } | undefined {
    const obj = this.informer.get(undefined, `${version}.${group}`);
    if (!obj) return undefined;
    const view = viewOf(obj);
    return view.service && view.group === group && view.version === version ? { view, available: isAvailable(obj) } : undefined;
  }

  /** The groups of the Available remote APIServices (recomputed when APIServices change). */
  groups(): RemoteGroup[] {
    const at = this.informer.changeNumber();
    if (at !== this.cachedAt) {
      const views = this.informer.list().filter((o) => isAvailable(o)).map(viewOf).filter((v) => v.service !== undefined);
      this.cached = remoteGroups(views);
      this.cachedAt = at;
    }
    return this.cached;
  }

  /** /apis with the remote groups in it. */
  groupList(served: Buffer): Buffer {
    return mergedGroupList(served, this.groups());
  }

  /**
   * Answers a request that belongs to a remote APIService: /apis/<group> of a group only they
   * serve, and everything under /apis/<group>/<version>. False when the path is not theirs.
   */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, user: UserInfo, out: Output): Promise<boolean> {
    if (path.startsWith('/openapi/v3/apis/')) return this.openApiV3(req, res, path, user, out);
    if (!path.startsWith('/apis/')) return false;
    const [group, version] = path.slice('/apis/'.length).split('/');
    if (!group) return false;
    if (version === undefined || version === '') {
      const remoteGroup = this.groups().find((g) => g.name === group);
      if (!remoteGroup || req.method !== 'GET') return false;
      sendBytes(res, 200, apiGroupDocument(remoteGroup), out);
      return true;
    }
    const remote = this.remote(group, version);
    if (!remote) return false;
    // As the reference's proxy: plain text, before anything is dialed.
    if (!remote.available || !this.proxy) {
      sendText(res, 503, 'service unavailable\n');
      return true;
    }
    await this.proxy.forward(req, res, user, remote.view, out);
    return true;
  }

  /** /openapi/v3/apis/<group>/<version> of a remote APIService: its server's own document. */
  private async openApiV3(req: IncomingMessage, res: ServerResponse, path: string, user: UserInfo, out: Output): Promise<boolean> {
    const [group, version, rest] = path.slice('/openapi/v3/apis/'.length).split('/');
    if (!group || !version || rest !== undefined) return false;
    const remote = this.remote(group, version);
    if (!remote) return false;
    if (!remote.available || !this.proxy) {
      sendText(res, 503, 'service unavailable\n');
      return true;
    }
    await this.proxy.forward(req, res, user, remote.view, out, `/openapi/v3/apis/${group}/${version}`);
    return true;
  }
}
