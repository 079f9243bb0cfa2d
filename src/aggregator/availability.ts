// The Available condition of every APIService, as the reference's availability controller sets it:
// a local one is always available; a remote one is when its Service exists, listens on the port,
// has a ready endpoint for it, and its discovery document (GET /apis/<group>/<version>, as
// system:kube-aggregator) answers 2xx within 5 s. Checked on every change to APIServices, Services
// and Endpoints, and again every `recheckMs` (30 s).
import { SerialRun } from '../registry/serial-run.js';
import { request as httpsRequest } from 'node:https';
import type { JsonObject } from '../json.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Informer, Subscription } from '../registry/informers.js';
import type { Registry } from '../registry/store.js';
import { apiServiceInfo, setAvailable, viewOf, type APIServiceView, type AvailableCondition } from './apiservice-objects.js';
import { identityHeaders, type FrontProxyConfig } from './front-proxy.js';
import type { AggregatorMetrics } from '../metrics/aggregator.js';
import type { OpenApiDownloads } from './openapi.js';
import { tlsFor } from './proxy.js';
import { isResolved, type Resolved, type ServiceResolver } from './service-resolver.js';

const DISCOVERY_TIMEOUT_MS = 5_000;
const CHECKER = { name: 'system:kube-aggregator', groups: ['system:masters'] };

export const LOCAL: AvailableCondition = { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
const PASSED: AvailableCondition = { status: 'True', reason: 'Passed', message: 'all checks passed' };

export interface AvailabilityOptions {
  readonly recheckMs: number;
}

export class AvailabilityController {
  private informer: Informer | undefined;
  private info: ResourceInfo | undefined;
  private subscription: Subscription | undefined;
  private unsubscribeServices: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly runs = new SerialRun(() => this.checkAll(), 'apiservice availability');

  constructor(
    private readonly registry: Registry,
    private readonly resolver: ServiceResolver,
    private readonly config: FrontProxyConfig | undefined,
    private readonly options: AvailabilityOptions,
    private readonly openApi?: OpenApiDownloads,
    private readonly metrics?: AggregatorMetrics,
  ) {}

  async start(): Promise<void> {
    this.info = apiServiceInfo(this.registry);
    if (!this.info) return;
    this.informer = await this.registry.informer(this.info);
    const changed = () => this.runs.request();
    this.subscription = this.informer.subscribe({ added: changed, updated: changed, deleted: changed }, { replay: false });
    this.unsubscribeServices = this.resolver.subscribe(changed);
    this.timer = setInterval(changed, this.options.recheckMs);
    this.timer.unref();
    this.runs.request();
    await this.runs.current();
  }

  async stop(): Promise<void> {
    this.subscription?.stop();
    this.unsubscribeServices?.();
    clearInterval(this.timer);
    await this.runs.stop();
  }

  /** Checks every APIService again now (the proxy could not reach one). */
  recheck(): void {
    if (this.informer) this.runs.request();
  }

  private async checkAll(): Promise<void> {
    const objects = this.informer!.list();
    const passed: Array<{ view: APIServiceView; target: Resolved }> = [];
    await Promise.all(objects.map(async (obj: JsonObject) => {
      const view = viewOf(obj);
      const wanted = view.service ? await this.check(view, passed) : LOCAL;
      if (this.runs.stopped) return;
      // The informer's newest copy: the check took a while.
      const current = this.informer!.get(undefined, view.name);
      if (current && await setAvailable(this.registry, this.info!, current, wanted) && wanted.status !== 'True') this.metrics?.markedUnavailable(view.name, wanted.reason);
    }));
    if (!this.runs.stopped) await this.openApi?.refresh(passed);
  }

  private async check(view: APIServiceView, passed: Array<{ view: APIServiceView; target: Resolved }>): Promise<AvailableCondition> {
    const target = this.resolver.resolve(view.service!);
    if (!isResolved(target)) return { status: 'False', reason: target.reason, message: target.message };
    if (!this.config) return { status: 'False', reason: 'FailedDiscoveryCheck', message: 'no front-proxy client certificate to call the service with' };
    const failure = await this.discoveryFailure(view, target);
    if (failure === undefined) passed.push({ view, target });
    return failure === undefined ? PASSED : { status: 'False', reason: 'FailedDiscoveryCheck', message: failure };
  }

  /** Why GET /apis/<group>/<version> failed; undefined when it answered 2xx in time. */
  private discoveryFailure(view: APIServiceView, target: Resolved): Promise<string | undefined> {
    const host = target.host.includes(':') ? `[${target.host}]` : target.host;
    const url = `https://${host}:${target.port}/apis/${view.group}/${view.version}`;
    return new Promise((resolve) => {
      const req = httpsRequest(url, {
        method: 'GET', agent: false, headers: { Accept: 'application/json', ...identityHeaders(CHECKER, this.config!) },
        ...tlsFor(view, this.config!),
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve(`failing or missing response from ${url}: Get "${url}": context deadline exceeded`);
      }, DISCOVERY_TIMEOUT_MS);
      timer.unref();
      req.on('response', (res) => {
        res.resume();
        clearTimeout(timer);
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 300 ? undefined : `failing or missing response from ${url}: bad status from ${url}: ${code}`);
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        const reason = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED' ? `dial tcp ${target.host}:${target.port}: connect: connection refused` : err.message;
        resolve(`failing or missing response from ${url}: Get "${url}": ${reason}`);
      });
      req.end();
    });
  }
}
