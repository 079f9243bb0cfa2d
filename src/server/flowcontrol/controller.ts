// API Priority and Fairness's configuration, as the reference's config consumer keeps it: the
// FlowSchemas and PriorityLevelConfigurations read from their informers, the server's
// concurrency limit (--max-requests-inflight + --max-mutating-requests-inflight) shared among the
// Limited levels by their assuredConcurrencyShares (rounded up), the schemas in matching order
// (matchingPrecedence, then name), the mandatory ones imagined while their objects are missing,
// and each FlowSchema's Dangling condition written as the reference's consumer writes it. Requests
// are classified here (the filter is server/filters/priority-and-fairness.ts); a classification is
// remembered per user and request shape until the configuration changes.
import type { RequestInfo } from '../../api/request-info.js';
import type { UserInfo } from '../../api/user.js';
import { PreparedHeader } from '../../endpoints/response.js';
import { StatusError } from '../../errors.js';
import { isObject, now, type JsonObject } from '../../json.js';
import type { FlowControlMetrics, FlowMetrics } from '../../metrics/flowcontrol.js';
import type { ResourceInfo } from '../../registry/definitions.js';
import { InformerChanges, type Informer, type Subscription } from '../../registry/informers.js';
import { SerialRun } from '../../registry/serial-run.js';
import type { Registry } from '../../registry/store.js';
import { CATCH_ALL, EXEMPT, mandatoryLevel, mandatorySchema } from './bootstrap.js';
import { storedObjectCounts } from '../storage-objects.js';
import { dealHand, flowHash, QueueSet, type QueueSetConfig } from './queue-set.js';
import { schemaMatches } from './rules.js';
import { estimateWork, levelMaxSeats, WatchTracker, type WorkCounts, type WorkEstimate } from './work-estimate.js';
import { innerMap } from '../../maps.js';

/** The field manager of the Dangling conditions, as the reference's. */
export const CONSUMER_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

/** How many classifications are remembered before the memory starts over. */
const CACHE_LIMIT = 10_000;

/** How long start() waits for the statuses it wrote to come back through the informer. */
const SETTLE_LIMIT_MS = 3_000;

/** How often the stored objects are counted for the LIST estimates (the reference's --etcd-count-metric-poll-period). */
const COUNT_POLL_MS = 60_000;

export interface Level {
  readonly name: string;
  readonly uid: string;
  /** X-Kubernetes-PF-PriorityLevel-UID, as answers carry it. */
  readonly header: PreparedHeader;
  /** Undefined for the Exempt level: never limited. */
  readonly queues: QueueSet | undefined;
  readonly queueCount: number;
  readonly handSize: number;
  /** The most seats one request takes here (work-estimate.ts); 0: the estimator's own limit (a Reject level, as the reference). */
  readonly maxSeats: number;
}

interface Schema {
  readonly name: string;
  readonly uid: string;
  /** X-Kubernetes-PF-FlowSchema-UID, as answers carry it. */
  readonly header: PreparedHeader;
  readonly spec: JsonObject;
  readonly level: Level;
  readonly distinguisher: string;
}

/** Where a request goes. */
export interface Classification {
  /** X-Kubernetes-PF-FlowSchema-UID, as answers carry it. */
  readonly schemaHeader: PreparedHeader;
  readonly level: Level;
  /** The flow's queues (shuffle sharding), when its level has several. */
  readonly hand: readonly number[];
  readonly metrics: FlowMetrics | undefined;
}

export interface FlowControlOptions {
  serverConcurrencyLimit: number;
  /** How long a request may wait in a queue (the reference: a quarter of --request-timeout). */
  waitLimitMs: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const schemaHeader = (uid: string) => new PreparedHeader('X-Kubernetes-PF-FlowSchema-UID', uid);
const levelHeader = (uid: string) => new PreparedHeader('X-Kubernetes-PF-PriorityLevel-UID', uid);
const obj = (v: unknown): JsonObject => (isObject(v) ? v : {});

/** Request shapes: verb, then API group, resource, subresource and namespace (or, for a non-resource request, its path). */
type Shapes = Map<string, Shapes | Classification>;

/** Marks the non-resource requests' branch (no API group is spelt so) and a request without a namespace. */
const NON_RESOURCE = '\x04';
const NO_NAMESPACE = '\x03';

function branch(shapes: Shapes, key: string): Shapes {
  return innerMap(shapes as Map<string, Shapes>, key);
}

export class FlowControl {
  private schemas: Schema[] = [];
  private levels = new Map<string, Level>();
  /** Classifications by user name (for one set of groups), then by request shape (see classify). */
  private cache = new Map<string, { groups: string[]; shapes: Shapes }>();
  private cached = 0;
  /** The last request classified (see classify). */
  private last: LastRequest | undefined;
  private subscriptions: Subscription[] = [];
  /** Per FlowSchema, the last status write: while the informer shows the version it was made from, no other is made. */
  private readonly written = new Map<string, { resourceVersion: string; stale(): boolean }>();
  private readonly runs = new SerialRun(() => this.digest(), 'priority and fairness configuration');
  /** The watches let through, whose events make writes wider. */
  readonly watches = new WatchTracker();
  /** Objects stored per resource, as last counted. */
  private objectCounts = new Map<string, number>();
  private countTimer: NodeJS.Timeout | undefined;
  private readonly counts: WorkCounts = {
    objects: (groupResource) => this.objectCounts.get(groupResource),
    watches: (info) => this.watches.interested(info),
  };

  constructor(private readonly registry: Registry, private readonly options: FlowControlOptions, private readonly metrics?: FlowControlMetrics) {
    // Until the first digest, the mandatory levels and schemas alone.
    this.configure([], []);
  }

  /** Reads the configuration (and writes the statuses it calls for) before resolving. */
  async start(): Promise<void> {
    const fs = this.info('flowschemas');
    const pl = this.info('prioritylevelconfigurations');
    if (!fs || !pl) return;
    const request = () => this.runs.request();
    const informers = [await this.registry.informer(fs), await this.registry.informer(pl)];
    for (const informer of informers) {
      this.subscriptions.push(informer.subscribe({ added: request, updated: request, deleted: request }, { replay: false }));
    }
    const changes = new InformerChanges(informers);
    request();
    await this.countObjects();
    this.countTimer = setInterval(() => void this.countObjects(), COUNT_POLL_MS);
    this.countTimer.unref();
    await this.runs.current();
    // Settled before the server answers: the statuses written, the informers showing them.
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    try {
      while (this.pendingWrites() && Date.now() < deadline) {
        await changes.next(10);
        await this.runs.current();
      }
    } finally {
      changes.stop();
    }
  }

  /** Whether a status written is not yet in the informer's copy. */
  private pendingWrites(): boolean {
    return [...this.written.values()].some((w) => w.stale());
  }

  async stop(): Promise<void> {
    clearInterval(this.countTimer);
    for (const s of this.subscriptions) s.stop();
    await this.runs.stop();
  }

  /** The schema and level of a request by `user`, and its flow. */
  classify(user: UserInfo, info: RequestInfo): Classification {
    // The last request's again (a client's requests come in runs of one shape): its parts compared
    // as they are, where the maps below would hash each of the request's freshly parsed strings
    // (~1,300 instructions of a GET in a server, where a bench that reuses one request's strings
    // sees ~25 ns).
    const last = this.last;
    if (last !== undefined && last.matches(user, info)) return last.classification;
    const c = this.lookup(user, info);
    this.last = new LastRequest(user, info, c);
    return c;
  }

  private lookup(user: UserInfo, info: RequestInfo): Classification {
    // Per user (name and groups), then per request shape: two short keys.
    let byUser = this.cache.get(user.name);
    if (!byUser || !sameGroups(byUser.groups, user.groups)) {
      if (this.cached >= CACHE_LIMIT) this.forget();
      byUser = { groups: [...user.groups], shapes: new Map() };
      this.cache.set(user.name, byUser);
    }
    // The shape's parts one map within another: no key string made per request.
    const byVerb = branch(byUser.shapes, info.verb);
    const shape = info.isResourceRequest
      ? branch(branch(branch(byVerb, info.apiGroup), info.resource), info.subresource ?? '')
      : branch(byVerb, NON_RESOURCE);
    const key = info.isResourceRequest ? info.namespace ?? NO_NAMESPACE : info.path;
    let c = shape.get(key) as Classification | undefined;
    if (!c) {
      if (this.cached >= CACHE_LIMIT) this.forget();
      c = this.classifyNow(user, info);
      shape.set(key, c);
      this.cached++;
    }
    return c;
  }

  /** The seats a classified request takes (and its watch count noted, for a write). */
  estimate(c: Classification, info: RequestInfo, query: URLSearchParams): WorkEstimate {
    return estimateWork(info, query, this.counts, c.level.maxSeats, c.metrics);
  }

  private async countObjects(): Promise<void> {
    try {
      this.objectCounts = new Map(await storedObjectCounts(this.registry.definitions, this.registry.storage));
    } catch {
      // Counted again at the next poll; meanwhile the last counts (or none: one seat) stand.
    }
  }

  private forget(): void {
    this.cache = new Map();
    this.cached = 0;
    this.last = undefined;
  }

  private classifyNow(user: UserInfo, info: RequestInfo): Classification {
    // The catch-all schema matches everyone authenticated or not, and is the fallback for a user who is neither.
    const schema = this.schemas.find((s) => schemaMatches(s.spec, user, info)) ?? this.schemas.find((s) => s.name === CATCH_ALL)!;
    const level = schema.level;
    let hand: number[] = [];
    if (level.queueCount > 1) {
      const distinguisher = schema.distinguisher === 'ByUser' ? user.name : schema.distinguisher === 'ByNamespace' ? (info.isResourceRequest ? info.namespace ?? '' : '') : '';
      hand = dealHand(flowHash(schema.name, distinguisher), level.queueCount, level.handSize);
    } else if (level.queueCount === 1) {
      hand = [0];
    }
    return { schemaHeader: schema.header, level, hand, metrics: this.metrics?.of(level.name, schema.name, level.queues === undefined) };
  }

  private info(resource: string): ResourceInfo | undefined {
    const defs = this.registry.definitions;
    return defs.lookup('flowcontrol.apiserver.k8s.io', 'v1beta2', resource) ?? defs.lookup('flowcontrol.apiserver.k8s.io', 'v1beta1', resource);
  }

  private async digest(): Promise<void> {
    const fsInfo = this.info('flowschemas')!;
    const plInfo = this.info('prioritylevelconfigurations')!;
    const schemas: Informer = await this.registry.informer(fsInfo);
    const levels: Informer = await this.registry.informer(plInfo);
    const dangling = this.configure(schemas.list(), levels.list());
    for (const [fs, condition] of dangling) {
      const before = str(obj(schemas.get(undefined, fs)?.['metadata'])['resourceVersion']);
      if (this.written.get(fs)?.resourceVersion === before) continue;
      const stale = () => str(obj(schemas.get(undefined, fs)?.['metadata'])['resourceVersion']) === before;
      this.written.set(fs, { resourceVersion: before, stale });
      await this.writeCondition(fsInfo, fs, condition);
    }
  }

  /** Takes the objects (as the informers hold them) as the new configuration; returns the Dangling conditions to write. */
  configure(fsObjects: JsonObject[], plObjects: JsonObject[]): Array<[string, JsonObject]> {
    const specs = new Map<string, { uid: string; spec: JsonObject }>();
    for (const pl of plObjects) {
      const meta = obj(pl['metadata']);
      const name = str(meta['name']);
      if (usableLevelSpec(name, obj(pl['spec']))) specs.set(name, { uid: str(meta['uid']), spec: obj(pl['spec']) });
    }
    for (const name of [EXEMPT, CATCH_ALL] as const) if (!specs.has(name)) specs.set(name, { uid: '', spec: obj(mandatoryLevel(name)['spec']) });
    let shareSum = 0;
    for (const { spec } of specs.values()) shareSum += limitedShares(spec);
    const levels = new Map<string, Level>();
    // The limits of the read-only and mutating ratios (the reference's maxExecutingRequests and maxWaitingRequests).
    let executingLimit = 0;
    let waitingLimit = 0;
    for (const [name, { uid, spec }] of specs) {
      const shares = limitedShares(spec);
      const ratios = this.metrics?.ratiosOf(name);
      if (spec['type'] === 'Exempt') {
        levels.set(name, { name, uid, header: levelHeader(uid), queues: undefined, queueCount: 0, handSize: 0, maxSeats: 1 });
        continue;
      }
      const queuing = obj(obj(obj(spec['limited'])['limitResponse'])['queuing']);
      const config: QueueSetConfig = {
        concurrencyLimit: Math.ceil(this.options.serverConcurrencyLimit * shares / shareSum),
        queues: Number(queuing['queues'] ?? 0),
        handSize: Number(queuing['handSize'] ?? 0),
        queueLengthLimit: Number(queuing['queueLengthLimit'] ?? 0),
        waitLimitMs: this.options.waitLimitMs,
      };
      const old = this.levels.get(name)?.queues;
      if (old) old.reconfigure(config);
      const queues = old ?? new QueueSet(config, ratios);
      levels.set(name, { name, uid, header: levelHeader(uid), queues, queueCount: config.queues, handSize: config.handSize, maxSeats: config.queues > 0 ? levelMaxSeats(config.concurrencyLimit, config.handSize) : 0 });
      this.metrics?.setLimit(name, config.concurrencyLimit, queues);
      executingLimit += config.concurrencyLimit;
      waitingLimit += config.queues * config.queueLengthLimit;
    }
    this.metrics?.setServerLimits(executingLimit, waitingLimit);
    for (const name of this.levels.keys()) if (!levels.has(name)) this.metrics?.setLimit(name, undefined);

    const conditions: Array<[string, JsonObject]> = [];
    const schemas: Schema[] = [];
    for (const fs of fsObjects) {
      const meta = obj(fs['metadata']);
      const name = str(meta['name']);
      const spec = obj(fs['spec']);
      const levelName = str(obj(spec['priorityLevelConfiguration'])['name']);
      const level = levels.get(levelName);
      const wanted = danglingCondition(levelName, level === undefined);
      const current = (Array.isArray(obj(fs['status'])['conditions']) ? (obj(fs['status'])['conditions'] as unknown[]) : []).map(obj).find((c) => c['type'] === 'Dangling');
      if (!current || current['status'] !== wanted['status'] || current['reason'] !== wanted['reason'] || current['message'] !== wanted['message']) conditions.push([name, wanted]);
      if (level) schemas.push({ name, uid: str(meta['uid']), header: schemaHeader(str(meta['uid'])), spec, level, distinguisher: str(obj(spec['distinguisherMethod'])['type']) });
    }
    schemas.sort((a, b) => precedence(a.spec) - precedence(b.spec) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const imagined = (name: typeof EXEMPT | typeof CATCH_ALL): Schema => {
      const spec = obj(mandatorySchema(name)['spec']);
      return { name, uid: '', header: schemaHeader(''), spec, level: levels.get(name)!, distinguisher: str(obj(spec['distinguisherMethod'])['type']) };
    };
    if (!schemas.some((s) => s.name === EXEMPT)) schemas.unshift(imagined(EXEMPT));
    if (!schemas.some((s) => s.name === CATCH_ALL)) schemas.push(imagined(CATCH_ALL));
    this.schemas = schemas;
    this.levels = levels;
    this.forget();
    return conditions;
  }

  private async writeCondition(info: ResourceInfo, name: string, condition: JsonObject): Promise<void> {
    try {
      await this.registry.patch(info, undefined, name, (current) => {
        const status = obj(current['status']);
        const others = (Array.isArray(status['conditions']) ? status['conditions'] : []).filter((c) => obj(c)['type'] !== 'Dangling');
        return { ...current, status: { ...status, conditions: [...others, condition] } };
      }, 'status', { manager: CONSUMER_MANAGER });
    } catch (err) {
      // Deleted or changed meanwhile: the informer brings another digest.
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}

/** A request's user and shape, as far as classification goes, and where it went. */
class LastRequest {
  private readonly user: string;
  private readonly groups: readonly string[];
  private readonly verb: string;
  /** For a non-resource request: NON_RESOURCE, and its path as `namespace`. */
  private readonly apiGroup: string;
  private readonly resource: string;
  private readonly subresource: string;
  private readonly namespace: string;

  constructor(user: UserInfo, info: RequestInfo, readonly classification: Classification) {
    this.user = user.name;
    this.groups = [...user.groups];
    this.verb = info.verb;
    if (info.isResourceRequest) {
      this.apiGroup = info.apiGroup;
      this.resource = info.resource;
      this.subresource = info.subresource ?? '';
      this.namespace = info.namespace ?? NO_NAMESPACE;
    } else {
      this.apiGroup = NON_RESOURCE;
      this.resource = '';
      this.subresource = '';
      this.namespace = info.path;
    }
  }

  matches(user: UserInfo, info: RequestInfo): boolean {
    if (user.name !== this.user || info.verb !== this.verb || !sameGroups(this.groups, user.groups)) return false;
    if (!info.isResourceRequest) return this.apiGroup === NON_RESOURCE && info.path === this.namespace;
    return info.apiGroup === this.apiGroup && info.resource === this.resource && (info.subresource ?? '') === this.subresource && (info.namespace ?? NO_NAMESPACE) === this.namespace;
  }
}

function sameGroups(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function limitedShares(spec: JsonObject): number {
  return spec['type'] === 'Limited' ? Number(obj(spec['limited'])['assuredConcurrencyShares'] ?? 0) : 0;
}

function precedence(spec: JsonObject): number {
  return typeof spec['matchingPrecedence'] === 'number' ? spec['matchingPrecedence'] : 1000;
}

/** What the reference's consumer refuses to use: exempt in name and type together, a sound union. */
function usableLevelSpec(name: string, spec: JsonObject): boolean {
  const exempt = spec['type'] === 'Exempt';
  if (exempt !== (name === EXEMPT)) return false;
  if (exempt) return spec['limited'] === undefined || spec['limited'] === null;
  const response = obj(obj(spec['limited'])['limitResponse']);
  return (response['type'] === 'Reject') === !isObject(response['queuing']);
}

function danglingCondition(levelName: string, dangling: boolean): JsonObject {
  return dangling
    ? { type: 'Dangling', status: 'True', lastTransitionTime: now(), reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" but there is no such object` }
    : { type: 'Dangling', status: 'False', lastTransitionTime: now(), reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${levelName}" and it exists` };
}
