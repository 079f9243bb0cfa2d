// API Priority and Fairness, in place of the max-in-flight filter (one or the other, as the
// reference): every request but the long-running ones that are not watches is classified to a
// FlowSchema and priority level (server/flowcontrol/controller.ts), answered with their UIDs in
// X-Kubernetes-PF-FlowSchema-UID and X-Kubernetes-PF-PriorityLevel-UID, and runs when its level
// gives it its seats: at once on the Exempt level, else within the level's share of the server's
// concurrency, after waiting in its flow's queue if need be — as many seats as the work estimator
// says (a LIST by the objects it goes through, a write by the watches it reaches), which also
// weigh in fair queuing. The watches it lets through are counted for those estimates. A request refused (the level
// rejects, its queue is full, or it waited too long) is answered the reference's plain-text 429
// with Retry-After: 1. As in 1.25, a watch holds its seat only while it starts (until it answers
// its headers), then streams without one.
import type { ServerResponse } from 'node:http';
import type { RequestMetrics } from '../../metrics/requests.js';
import type { FlowMetrics } from '../../metrics/flowcontrol.js';
import { isLongRunningRequest } from '../../api/long-running.js';
import { addAnswerHeader } from '../../endpoints/response.js';
import type { FlowControl } from '../flowcontrol/controller.js';
import type { QueueObserver, RejectReason, Seat } from '../flowcontrol/queue-set.js';
import { maxSeats } from '../flowcontrol/work-estimate.js';
import type { Filter } from './context.js';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);
const NO_QUEUE_METRICS: QueueObserver = { queued() {} };

export function priorityAndFairness(flowControl: FlowControl, requestMetrics?: RequestMetrics): Filter {
  return async (ctx, next) => {
    const info = ctx.info;
    const watch = info.isResourceRequest && info.verb === 'watch';
    if (!watch && isLongRunningRequest(info)) return next();
    const c = flowControl.classify(ctx.user, info);
    const res = ctx.res;
    addAnswerHeader(res, 'X-Kubernetes-PF-FlowSchema-UID', c.schemaUid);
    addAnswerHeader(res, 'X-Kubernetes-PF-PriorityLevel-UID', c.level.uid);
    const m = c.metrics;
    const queues = c.level.queues;
    let seat: Seat | undefined;
    let started: number | undefined;
    // A watch counts for the writes' estimates from when it is classified until it ends (as the reference's tracker).
    let forgetWatch: (() => void) | undefined;
    if (watch && info.isResourceRequest) {
      forgetWatch = flowControl.watches.register(info, ctx.query);
      res.once('close', forgetWatch);
    }
    const mutating = !READ_ONLY_VERBS.has(info.verb);
    if (queues) {
      const waitStart = performance.now();
      const estimate = flowControl.estimate(c, info, ctx.query);
      m?.estimated(maxSeats(estimate));
      // The clock read once: a request dispatched at once starts when it arrived.
      const admitted = queues.admit(c.hand, m ?? NO_QUEUE_METRICS, res, estimate, waitStart);
      const queued = admitted instanceof Promise;
      if (queued) m?.kindWaiting(mutating, 1, waitStart);
      const outcome: Seat | RejectReason = queued ? await admitted : admitted;
      // The end of the wait is the start of the execution: when the seats were taken.
      started = typeof outcome === 'string' ? performance.now() : outcome.startedMs;
      if (queued) m?.kindWaiting(mutating, -1, started);
      // As the reference labels it: `execute` is false only for a request refused without queuing.
      m?.waited((started - waitStart) / 1000, queued || typeof outcome !== 'string');
      if (typeof outcome === 'string') {
        forgetWatch?.();
        m?.rejected(outcome);
        if (outcome !== 'cancelled') tooManyRequests(res);
        return;
      }
      seat = outcome;
    }
    m?.dispatched();
    if (seat && m) m.executing++;
    requestMetrics?.enter(mutating);
    started ??= performance.now();
    m?.kindExecuting(mutating, 1, started);
    const execution = new Execution(started, seat, m, requestMetrics, mutating, watch);
    if (watch) releaseOnHeaders(res, () => execution.end());
    try {
      await next();
    } finally {
      execution.end();
    }
  };
}

/** A request from when it got its seat until it ends (a watch: until it has started). */
class Execution {
  private ended = false;

  constructor(private readonly started: number, private readonly seat: Seat | undefined, private readonly m: FlowMetrics | undefined, private readonly requestMetrics: RequestMetrics | undefined, private readonly mutating: boolean, private readonly watch: boolean) {}

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const m = this.m;
    // One clock read for the execution's end and the queue set's charge.
    const now = performance.now();
    if (this.seat) {
      this.seat.release(now);
      if (m) m.executing--;
    }
    this.requestMetrics?.leave(this.mutating);
    m?.kindExecuting(this.mutating, -1, now);
    m?.ran((now - this.started) / 1000, this.watch);
  }
}

/** The reference's answer to a refused request. */
function tooManyRequests(res: ServerResponse): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('Too many requests, please try again later.\n');
}

/** A watch is initialized once it answers its headers: its seat is freed then. */
function releaseOnHeaders(res: ServerResponse, release: () => void): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    release();
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}
