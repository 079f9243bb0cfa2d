// The request log, as the reference's httplog: at --v=3 and up, one line per request once its
// answer has gone out (or its connection closed): verb, URI, latency, user agent, user, source and
// status, in klog's format. Below 3 the filter is not in the chain at all.
import type { RequestInfo } from '../../api/request-info.js';
import type { Filter, RequestContext } from './context.js';

/** The reference logs requests at this verbosity (httplog.WithLogging: klog.V(3)). */
export const REQUEST_LOG_LEVEL = 3;

export type LogWriter = (line: string) => void;

const toStderr: LogWriter = (line) => process.stderr.write(`${line}\n`);

/** klog's header: severity, MMDD hh:mm:ss.uuuuuu, thread (here the pid), source. */
export function klogHeader(severity: 'I' | 'W' | 'E', epochMs: number, source: string): string {
  const at = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  const micros = String(Math.floor((epochMs % 1000) * 1000)).padStart(6, '0');
  return `${severity}${two(at.getMonth() + 1)}${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${micros} ${String(process.pid).padStart(7)} ${source}]`;
}

/** A duration as Go prints one: "834.5µs", "12.3456ms", "1.5s". */
export function goDuration(ms: number): string {
  const trim = (n: number, digits: number) => n.toFixed(digits).replace(/\.?0+$/, '');
  if (ms < 1) return `${trim(ms * 1000, 3)}µs`;
  if (ms < 1000) return `${trim(ms, 6)}ms`;
  return `${trim(ms / 1000, 9)}s`;
}

/** The verb as the reference's log names it: LIST and WATCH for collection reads, APPLY for server-side apply. */
function loggedVerb(method: string, info: RequestInfo | undefined, contentType: string | undefined): string {
  if (info?.isResourceRequest) {
    if (info.verb === 'list') return 'LIST';
    if (info.verb === 'watch') return 'WATCH';
    if (method === 'PATCH' && contentType?.split(';')[0]?.trim() === 'application/apply-patch+yaml') return 'APPLY';
  }
  return method;
}

export function requestLog(verbosity: number, write: LogWriter = toStderr): Filter {
  if (verbosity < REQUEST_LOG_LEVEL) return (_ctx, next) => next();
  return (ctx, next) => {
    const started = performance.now();
    // Read now: an HTTP/2 stream no longer knows its peer once it has closed.
    const source = `${ctx.req.socket?.remoteAddress ?? ''}:${ctx.req.socket?.remotePort ?? ''}`;
    ctx.res.once('close', () => write(logLine(ctx, performance.now() - started, source)));
    return next();
  };
}

function logLine(ctx: RequestContext, latencyMs: number, source: string): string {
  const { req, res } = ctx;
  const { info, user } = ctx.known;
  const method = req.method ?? 'GET';
  const fields: Array<[string, string | number]> = [
    ['verb', loggedVerb(method, info, req.headers['content-type'])],
    ['URI', req.url ?? '/'],
    ['latency', goDuration(latencyMs)],
    ['userAgent', req.headers['user-agent'] ?? ''],
    ['user', user?.name ?? ''],
    ['srcIP', source],
    // 0 when the connection closed before an answer went out.
    ['resp', res.headersSent ? res.statusCode : 0],
  ];
  const text = fields.map(([k, v]) => `${k}=${typeof v === 'number' ? v : JSON.stringify(v)}`).join(' ');
  return `${klogHeader('I', performance.timeOrigin + performance.now(), 'httplog.go')} "HTTP" ${text}`;
}
