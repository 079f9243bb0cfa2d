// A Service's node ports (one per port of a NodePort or LoadBalancer Service, shared by ports of
// the same number) and its health check node port (LoadBalancer with externalTrafficPolicy Local).
import { internalError, invalid } from '../../errors.js';
import type { AllocationClaim } from './claim.js';
import { RangeFullError } from './cluster-ip.js';
import { invalidRendered } from './go-values.js';
import { NodePortRange, PortAllocatedError, PortNotInRangeError } from './node-port.js';
import {
  allocatesNodePorts, healthCheckNodePortOf, needsHealthCheckNodePort, needsNodePorts, nodePortOf, nodePortsOf, portsOf,
  readSpec, serviceName, serviceSpec, typeOf,
} from './service-fields.js';
import { type JsonObject } from '../../json.js';

/** The first port a dry run makes up, as the reference's (which looks nothing up). */
const DRY_RUN_PORT_BASE = 32768;

/** The node ports one write takes and gives back (a dry run only pretends). */
class NodePortOperation {
  private readonly mine: number[] = [];

  constructor(private readonly range: NodePortRange, private readonly claim: AllocationClaim) {}

  allocate(port: number): void {
    if (this.claim.dryRun) {
      if (this.range.has(port) || this.mine.includes(port)) throw new PortAllocatedError();
      this.mine.push(port);
      return;
    }
    this.range.allocate(port);
    this.mine.push(port);
    this.claim.taken(() => this.range.release(port));
  }

  allocateNext(): number {
    if (this.claim.dryRun) {
      const port = (this.mine.length ? Math.max(...this.mine) : DRY_RUN_PORT_BASE) + 1;
      this.mine.push(port);
      return port;
    }
    const port = this.range.allocateNext();
    this.mine.push(port);
    this.claim.taken(() => this.range.release(port));
    return port;
  }

  releaseOnCommit(port: number): void {
    this.claim.releaseOnCommit(() => this.range.release(port));
  }
}

function nodePortError(svc: JsonObject, index: number, port: number, err: unknown): unknown {
  if (err instanceof PortNotInRangeError || err instanceof PortAllocatedError) {
    return invalid('Service', '', serviceName(svc), [invalidRendered(`spec.ports[${index}].nodePort`, String(port), err.message)]);
  }
  if (err instanceof RangeFullError) return internalError(`failed to allocate a nodePort: ${err.message}`);
  return err;
}

export class ServiceNodePorts {
  constructor(readonly range: NodePortRange) {}

  /** Node ports of a new Service: those asked for, any free one for the others. */
  allocate(svc: JsonObject, claim: AllocationClaim): void {
    const spec = serviceSpec(svc);
    const op = new NodePortOperation(this.range, claim);
    if (needsNodePorts(spec)) {
      // Ports of the same number (TCP and UDP, say) share one node port.
      const byPort = new Map<number, number>();
      const ports = portsOf(spec);
      ports.forEach((p, i) => {
        if (nodePortOf(p) === 0 && !allocatesNodePorts(spec)) return;
        const number = p.port ?? 0;
        const shared = byPort.get(number) ?? 0;
        if (shared === 0) {
          const asked = ports.find((q) => (q.port ?? 0) === number && nodePortOf(q) !== 0);
          const wanted = asked ? nodePortOf(asked) : 0;
          try {
            const got = wanted !== 0 ? (op.allocate(wanted), wanted) : op.allocateNext();
            p.nodePort = got;
            byPort.set(number, got);
          } catch (err) {
            throw nodePortError(svc, i, wanted, err);
          }
        } else if (nodePortOf(p) !== shared) {
          if (nodePortOf(p) === 0) {
            p.nodePort = shared;
          } else {
            try {
              op.allocate(nodePortOf(p));
            } catch (err) {
              throw nodePortError(svc, i, nodePortOf(p), err);
            }
          }
        }
      });
    }
    if (needsHealthCheckNodePort(spec)) this.allocateHealthCheck(svc, op);
  }

  private allocateHealthCheck(svc: JsonObject, op: NodePortOperation): void {
    const spec = serviceSpec(svc);
    const wanted = healthCheckNodePortOf(spec);
    if (wanted !== 0) {
      try {
        op.allocate(wanted);
      } catch (err) {
        throw internalError(`failed to allocate requested HealthCheck NodePort ${wanted}: ${(err as Error).message}`);
      }
      return;
    }
    try {
      spec.healthCheckNodePort = op.allocateNext();
    } catch (err) {
      throw internalError(`failed to allocate a HealthCheck NodePort 0: ${(err as Error).message}`);
    }
  }

  /** What an update changes: node ports added, kept or dropped, the health check port with its need. */
  update(svc: JsonObject, oldSvc: JsonObject, claim: AllocationClaim): void {
    const spec = serviceSpec(svc);
    const old = readSpec(oldSvc);
    const op = new NodePortOperation(this.range, claim);
    const type = typeOf(spec);
    if (needsNodePorts(old) && (type === 'ExternalName' || type === 'ClusterIP')) {
      for (const port of nodePortsOf(old)) op.releaseOnCommit(port);
    }
    if (needsNodePorts(spec)) this.updateNodePorts(svc, oldSvc, op);
    const needed = needsHealthCheckNodePort(old);
    const needs = needsHealthCheckNodePort(spec);
    if (!needed && needs) this.allocateHealthCheck(svc, op);
    else if (needed && !needs) op.releaseOnCommit(healthCheckNodePortOf(old));
  }

  private updateNodePorts(svc: JsonObject, oldSvc: JsonObject, op: NodePortOperation): void {
    const spec = serviceSpec(svc);
    const before = nodePortsOf(readSpec(oldSvc));
    const taken = new Set<number>();
    const seen = new Set<string>();
    portsOf(spec).forEach((p, i) => {
      if (nodePortOf(p) === 0 && !allocatesNodePorts(spec)) return;
      let nodePort = nodePortOf(p);
      try {
        if (nodePort !== 0) {
          if (!before.includes(nodePort) && !taken.has(nodePort)) {
            op.allocate(nodePort);
            taken.add(nodePort);
          }
        } else {
          nodePort = op.allocateNext();
          p.nodePort = nodePort;
        }
      } catch (err) {
        throw nodePortError(svc, i, nodePort, err);
      }
      const key = `${p.protocol ?? ''} ${nodePort}`;
      if (seen.has(key)) throw internalError(`duplicate nodePort: {${p.protocol ?? ''} ${nodePort}}`);
      seen.add(key);
    });
    const after = new Set(nodePortsOf(spec));
    for (const port of before) if (!after.has(port)) op.releaseOnCommit(port);
  }

  release(svc: JsonObject): void {
    const spec = readSpec(svc);
    for (const port of nodePortsOf(spec)) this.range.release(port);
    if (needsHealthCheckNodePort(spec) && healthCheckNodePortOf(spec) > 0) this.range.release(healthCheckNodePortOf(spec));
  }

  /** Marks what a stored Service holds as taken (at start). */
  restore(svc: JsonObject): void {
    const spec = readSpec(svc);
    const held = [...nodePortsOf(spec), ...(healthCheckNodePortOf(spec) > 0 ? [healthCheckNodePortOf(spec)] : [])];
    for (const port of held) {
      try {
        this.range.allocate(port);
      } catch {
        // Out of the current range, or shared by ports of one Service.
      }
    }
  }
}
