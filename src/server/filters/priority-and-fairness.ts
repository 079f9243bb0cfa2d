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
// performance from its module, not the global: the global is an accessor, called at each use.
import { performance } from 'node:perf_hooks';
import type { RequestMetrics } from '../../metrics/requests.js';
import type { FlowMetrics } from '../../metrics/flowcontrol.js';
import { isLongRunningRequest } from '../../api/long-running.js';
import { addPreparedAnswerHeader } from '../../endpoints/response.js';
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
    addPreparedAnswerHeader(res, c.schemaHeader);
    addPreparedAnswerHeader(res, c.level.header);
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
      if (admitted instanceof Promise) {
        m?.kindWaiting(mutating, 1, waitStart);
        const outcome = await admitted;
        // The end of the wait is the start of the execution: when the seats were taken.
        started = typeof outcome === 'string' ? performance.now() : outcome.startedMs;
        m?.kindWaiting(mutating, -1, started);
        m?.waited((started - waitStart) / 1000, true);
        if (typeof outcome === 'string') return refused(res, outcome, m, forgetWatch);
        seat = outcome;
      } else if (typeof admitted === 'string') {
        // As the reference labels it: `execute` is false only for a request refused without queuing.
        m?.waited((performance.now() - waitStart) / 1000, false);
        return refused(res, admitted, m, forgetWatch);
      } else {
        // Dispatched as it came: its wait is none.
        m?.waitedNone();
        seat = admitted;
        started = waitStart;
      }
    }
    m?.dispatched();
    if (seat && m) m.executing++;
    requestMetrics?.enter(mutating);
    started ??= performance.now();
    m?.kindExecuting(mutating, 1, started);
    if (watch) {
      const execution = new Execution(started, seat, m, requestMetrics, mutating);
      releaseOnHeaders(res, () => execution.end());
      try {
        await next();
      } finally {
        execution.end();
      }
      return;
    }
    try {
      await next();
    } finally {
      ended(started, seat, m, requestMetrics, mutating, false);
    }
  };
}

/** A request refused (its level rejects, its queue is full, it waited too long, its client went). */
function refused(res: ServerResponse, reason: RejectReason, m: FlowMetrics | undefined, forgetWatch: (() => void) | undefined): void {
  forgetWatch?.();
  m?.rejected(reason);
  if (reason !== 'cancelled') tooManyRequests(res);
}

/** A request that got its seat at `started` has ended (a watch: has started): its seats freed, its execution counted. */
function ended(started: number, seat: Seat | undefined, m: FlowMetrics | undefined, requestMetrics: RequestMetrics | undefined, mutating: boolean, watch: boolean): void {
  // One clock read for the execution's end and the queue set's charge.
  const now = performance.now();
  if (seat) {
    seat.release(now);
    if (m) m.executing--;
  }
  requestMetrics?.leave(mutating);
  m?.kindExecuting(mutating, -1, now);
  m?.ran((now - started) / 1000, watch);
}

/** A watch from when it got its seat until it has started (answered its headers) or ended, whichever comes first. */
class Execution {
  private ended = false;

  constructor(private readonly started: number, private readonly seat: Seat | undefined, private readonly m: FlowMetrics | undefined, private readonly requestMetrics: RequestMetrics | undefined, private readonly mutating: boolean) {}

  end(): void {
    if (this.ended) return;
    this.ended = true;
    ended(this.started, this.seat, this.m, this.requestMetrics, this.mutating, true);
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
