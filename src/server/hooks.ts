// Post-start hooks: the server's own first-start objects and the in-process controllers, each
// started at its stage of the server's start, stopped at close, and checked for readiness. Those
// doing the work of one of the reference's post-start hooks show as poststarthook/<name> in
// /healthz, /livez and /readyz, as the reference's do. With leader election on (servers sharing
// one store), the hooks that are kube-controller-manager's work run only while this server holds
// the kube-controller-manager Lease, and stop when it loses it.
import { controllerEnabled } from '../controllers/kit/selection.js';
import { LeaderElector, type LeaderElectionConfig } from '../controllers/kit/leader-election.js';
import type { FeatureGates } from '../api/feature-gates.js';
import type { AdmissionChain } from '../admission/chain.js';
import type { AdmissionServices } from '../admission/types.js';
import type { Authorizer } from '../auth/types.js';
import type { TokenIssuer } from '../auth/tokens.js';
import type { ServiceAllocators } from '../registry/allocators/service-allocation.js';
import type { Registry } from '../registry/store.js';
import type { Aggregator } from '../aggregator/aggregator.js';
import type { ServingMaterial } from './certs.js';
import type { HealthCheck } from './health.js';
import type { Options } from './options.js';
import type { FlowControl } from './flowcontrol/controller.js';

/**
 * The stages of the server's start, in order. What runs at each is given what is known by then.
 * - storage: the registry is open; no watch caches yet, no admission.
 * - caches: the watch caches run; admission is not installed yet. The server's own first-start
 *   objects are written before admission, since no plugin changes them and a chain that refuses
 *   every write (AlwaysDeny) must not keep the server from starting.
 * - admission: every write passes admission; TLS material and the token issuer are known.
 * - serving: the listener is up and its port known.
 */
export type HookStage = 'storage' | 'caches' | 'admission' | 'serving';

/** What a hook is built from. */
export interface HookContext {
  readonly options: Options;
  /** The server's feature gates, made once from options.featureGates. */
  readonly featureGates: FeatureGates;
  /**
   * The server's own registry, writing without admission: for the hooks of the stages before
   * `admission` (first-start objects must pass no plugin; AlwaysDeny must not stop the start).
   */
  readonly serverRegistry: Registry;
  /** The registry the controllers write through: admitted as the server's own user. */
  readonly registry: Registry;
  readonly admission: AdmissionChain;
  /** What the admission plugins use; the admission initializer completes it. */
  readonly admissionServices: AdmissionServices;
  readonly serviceAllocators: ServiceAllocators;
  /** The request authorizer. Known from the `admission` stage on. */
  authorizer?: Authorizer;
  /** The cluster CA and serving certificates; none on plain HTTP. Known from the `admission` stage on. */
  material?: ServingMaterial;
  /** Issues service-account tokens; none on plain HTTP. Known from the `admission` stage on. */
  issuer?: TokenIssuer;
  /** The port served; from the `serving` stage on. */
  port(): number;
  /** API Priority and Fairness's configuration, when it is on (the gate and --enable-priority-and-fairness). */
  flowControl?: FlowControl;
  /** The aggregation layer (none when APIServices are not served) and what the extension-apiserver-authentication ConfigMap publishes. Known from the `admission` stage on. */
  aggregation?: { aggregator: Aggregator; authenticationInfo?: Record<string, string> };
}

/** A controller as the server runs it. */
export interface Controller {
  /** Resolves once its initial list or sync is done: it is ready from then on. */
  start(): Promise<void>;
  stop(): Promise<void> | void;
}

export interface PostStartHook {
  readonly name: string;
  readonly stage: HookStage;
  /**
   * The reference's post-start hook this one does (part of) the work of: listed as
   * poststarthook/<reportsAs> in the health checks, passing once every hook reporting as it is
   * ready. Controllers the reference runs in kube-controller-manager report as nothing.
   */
  readonly reportsAs?: string;
  /** The kube-controller-manager controller this hook is (a --controllers name); runs only when selected. */
  readonly controller?: string;
  /**
   * Work kube-controller-manager does that has no --controllers name of its own here (or a node
   * agent's): like a named controller, it runs only on the elected server when servers share a store.
   */
  readonly managerWork?: true;
  /** The controller, or undefined when this server does not run it (options, plain HTTP). */
  create(ctx: HookContext): Controller | undefined;
}

/** A one-shot task as a hook's controller: ready once it is done; nothing to stop. */
export function task(run: () => Promise<void>): Controller {
  return { start: run, stop() {} };
}

/** A controller started by a function that returns its handle. */
export function started(start: () => Promise<{ stop(): void }>): Controller {
  let handle: { stop(): void } | undefined;
  return {
    async start() {
      handle = await start();
    },
    stop: () => handle?.stop(),
  };
}

interface Running {
  hook: PostStartHook;
  /** Undefined until its stage has run, then the controller (null when it does not run here). */
  controller?: Controller | null;
  ready: boolean;
  /** Waits for this server to lead (leader election on, and a manager hook). */
  elected?: boolean;
}

/** Whether a hook is kube-controller-manager's work (elected when servers share a store). */
function isManagerWork(hook: PostStartHook): boolean {
  return hook.controller !== undefined || hook.managerWork === true;
}

/** The hooks of one server: started stage by stage, stopped together, checked for health. */
export class PostStartHooks {
  private readonly hooks: Running[];
  private elector: LeaderElector | undefined;

  /** `election`: how this server competes for the controllers (none: it runs them itself). */
  constructor(hooks: readonly PostStartHook[], private readonly ctx: HookContext, private readonly election?: LeaderElectionConfig) {
    const names = new Set<string>();
    for (const h of hooks) {
      if (names.has(h.name)) throw new Error(`post-start hook "${h.name}" is declared twice`);
      names.add(h.name);
    }
    this.hooks = hooks.map((hook) => ({ hook, ready: false }));
  }

  /** Creates and starts, in their declared order, the hooks of `stage`. */
  async run(stage: HookStage): Promise<void> {
    for (const running of this.hooks) {
      if (running.hook.stage !== stage) continue;
      if (this.election && isManagerWork(running.hook)) {
        running.elected = true;
        continue;
      }
      await this.startHook(running);
    }
  }

  /**
   * With leader election: competes for the Lease from now on, running the manager's hooks while
   * this server leads; resolves after the first try. Called once the writes it makes are admitted.
   */
  async elect(): Promise<void> {
    if (!this.election) return;
    const info = this.ctx.registry.definitions.lookup('coordination.k8s.io', 'v1', 'leases');
    if (!info) throw new Error('leader election needs coordination.k8s.io/v1 leases to be served');
    const elected = this.hooks.filter((r) => r.elected);
    this.elector = new LeaderElector(this.ctx.registry, info, this.election, {
      started: async () => {
        for (const running of elected) await this.startHook(running);
      },
      stopped: async () => {
        for (const running of [...elected].reverse()) {
          await running.controller?.stop();
          running.controller = undefined;
          running.ready = false;
        }
      },
    });
    await this.elector.start();
  }

  /** Whether this server runs the manager's hooks now (always, without leader election). */
  leads(): boolean {
    return !this.election || (this.elector?.isLeader() ?? false);
  }

  /** Creates and starts one hook's controller (none when it is not selected or does not run here). */
  private async startHook(running: Running): Promise<void> {
    const selected = running.hook.controller === undefined || controllerEnabled(running.hook.controller, this.ctx.options.controllers);
    const controller = selected ? running.hook.create(this.ctx) ?? null : null;
    running.controller = controller;
    await controller?.start();
    running.ready = true;
  }

  /** Stops every started hook, in their declared order (the elected ones first, releasing the Lease). */
  async stop(): Promise<void> {
    await this.elector?.stop();
    for (const running of this.hooks) await running.controller?.stop();
  }

  /**
   * One check per reference hook reported as, in the order first declared: failing ("not
   * finished") while a hook reporting as it is not ready. A name whose every hook turned out not to
   * run on this server is left out, as the reference leaves out hooks it does not install.
   */
  healthChecks(): HealthCheck[] {
    const byName = new Map<string, Running[]>();
    for (const r of this.hooks) {
      if (r.hook.reportsAs === undefined) continue;
      const group = byName.get(r.hook.reportsAs) ?? [];
      group.push(r);
      byName.set(r.hook.reportsAs, group);
    }
    return [...byName]
      .filter(([, group]) => group.some((r) => r.controller !== null))
      .map(([name, group]) => ({
        name: `poststarthook/${name}`,
        check: () => (group.every((r) => this.isReady(r)) ? undefined : 'not finished'),
      }));
  }

  /**
   * A check named `name` (not a post-start hook's) that passes once hook `hookName` is ready;
   * undefined when that hook does not run on this server.
   */
  readiness(name: string, hookName: string): HealthCheck | undefined {
    const running = this.hooks.find((r) => r.hook.name === hookName);
    if (!running || running.controller === null) return undefined;
    return { name, check: () => (this.isReady(running) ? undefined : 'not finished') };
  }

  /**
   * Whether every controller that runs here and that the reference runs in kube-controller-manager
   * (a hook reporting as nothing) has started: what ComponentStatus says of the controller manager.
   */
  controllersReady(): boolean {
    return this.hooks.filter((r) => r.hook.reportsAs === undefined).every((r) => this.isReady(r));
  }

  /** Ready once started; a hook that does not run here (or, elected, runs on the leader) has nothing to wait for. */
  private isReady(r: Running): boolean {
    return r.controller === null || r.ready || (r.elected === true && !this.leads());
  }
}
