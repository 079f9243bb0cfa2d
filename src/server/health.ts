// /healthz, /livez and /readyz: plain text, one line per check with ?verbose, ?exclude=NAME,
// and /{endpoint}/{check} for one check. A machine reads only the status code.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface HealthCheck {
  name: string;
  /** Resolves to an error message when unhealthy, undefined when healthy. */
  check(): Promise<string | undefined> | string | undefined;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export class Health {
  constructor(private readonly checks: Record<HealthEndpoint, HealthCheck[]>) {}

  /** Every path served: /healthz, /livez, /readyz and one per check under each. */
  paths(): string[] {
    return (Object.entries(this.checks) as Array<[HealthEndpoint, HealthCheck[]]>)
      .flatMap(([endpoint, checks]) => [`/${endpoint}`, ...checks.map((c) => `/${endpoint}/${c.name}`)]);
  }

  /** Handles the request when its path is a health path; returns false otherwise. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
    const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
    if (!m) return false;
    const endpoint = m[1] as HealthEndpoint;
    const checks = this.checks[endpoint];
    if (m[2] !== undefined) {
      const one = checks.find((c) => c.name === m[2]);
      if (!one) {
        send(res, 404, '404 page not found\n');
        return true;
      }
      const failure = await one.check();
      send(res, failure ? 500 : 200, failure ? `internal server error: ${failure}\n` : 'ok');
      return true;
    }
    const verbose = query.has('verbose');
    const excluded = new Set(query.getAll('exclude'));
    const lines: string[] = [];
    let failed = false;
    for (const c of checks) {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        lines.push(`[+]${c.name} excluded: ok`);
        continue;
      }
      const failure = await c.check();
      if (failure) {
        failed = true;
        lines.push(`[-]${c.name} failed: reason withheld`);
      } else lines.push(`[+]${c.name} ok`);
    }
    for (const name of excluded) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
    if (failed) {
      send(res, 500, `${lines.join('\n')}\n${endpoint} check failed\n`);
    } else if (verbose) {
      send(res, 200, `${lines.join('\n')}\n${endpoint} check passed\n`);
    } else {
      send(res, 200, 'ok');
    }
    void req;
    return true;
  }
}

function send(res: ServerResponse, status: number, text: string): void {
  // Go's server says the length of a body this small; set apart, so that /metrics can read it back as the response's size.
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}
