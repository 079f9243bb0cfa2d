// Hostile bodies (issue 14 item 3): small bodies built to cost a naive server gigabytes or
// seconds — deep nesting through every decoder and patch engine, recursive YAML aliases, alias
// explosions, bodies at the size limit. Each must get a 4xx Status within 200 ms and cost at most
// 50 MB of resident memory (the server's peak during the request over its resident set before).
import { Client, isStatus, type Answer } from './client.js';
import type { Figures } from './figures.js';
import { mib, msText } from './figures.js';
import { HOSTILE_TARGET, hostileBodies, hostileTarget } from './hostile-bodies.js';
import type { ProbeServer } from './server.js';

/** One hostile request; `path` is the server-relative path. */
export interface HostileRequest {
  name: string;
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

const NS = 'hostile';
const MIB = 1024 * 1024;

/** `open` n times, then `close` n times, inside `before` … `after`. */
function deep(before: string, open: string, inner: string, close: string, after: string, n: number): Buffer {
  return Buffer.from(before + open.repeat(n) + inner + close.repeat(n) + after);
}

/**
 * The hardening branch's hostile bodies (hostile-bodies.ts), and the probe's own additions: depths
 * under the decoders' 10,000 levels that the patch engines, apply and validation must bound
 * themselves, and bodies at and over the 3 MiB limit.
 */
export function hostileRequests(): HostileRequest[] {
  const collection = `/api/v1/namespaces/${NS}/configmaps`;
  const target = `${collection}/${HOSTILE_TARGET}`;
  const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${HOSTILE_TARGET}"},"data":`;
  const shared = hostileBodies(NS).map((b) => ({ name: b.name, method: b.method, path: b.pathSuffix, contentType: b.contentType, body: b.body }));
  return [
    ...shared,
    { name: 'merge patch nested 9,000', method: 'PATCH', path: target, contentType: 'application/merge-patch+json', body: deep('{"data":', '{"a":', '"x"', '}', '}', 9_000) },
    { name: 'strategic merge patch nested 9,000', method: 'PATCH', path: target, contentType: 'application/strategic-merge-patch+json', body: deep('{"metadata":{"annotations":', '{"a":', '"x"', '}', '}}', 9_000) },
    { name: 'apply nested 9,000', method: 'PATCH', path: `${target}?fieldManager=p`, contentType: 'application/apply-patch+yaml', body: deep(cm, '{"a":', '"x"', '}', '}', 9_000) },
    { name: 'create JSON nested 9,000', method: 'POST', path: collection, contentType: 'application/json', body: deep(cm.replace(HOSTILE_TARGET, 'h9000'), '{"a":', '"x"', '}', '}', 9_000) },
    { name: 'JSON patch value nested 9,000', method: 'PATCH', path: target, contentType: 'application/json-patch+json', body: deep('[{"op":"add","path":"/metadata/annotations","value":', '{"a":', '"x"', '}', '}]', 9_000) },
    { name: '3 MiB body of nested arrays', method: 'POST', path: collection, contentType: 'application/json', body: deep(cm.replace(HOSTILE_TARGET, 'h3'), '[', '', ']', '}', (3 * MIB - cm.length - 2) / 2) },
    { name: 'body over 3 MiB', method: 'POST', path: collection, contentType: 'application/json', body: Buffer.from(`${cm.replace(HOSTILE_TARGET, 'h4')}{"a":"${'x'.repeat(3 * MIB + 10)}"}}`) },
  ];
}

export interface HostileBounds {
  ms: number;
  bytes: number;
}

export async function hostile(server: ProbeServer, bodies: HostileRequest[], bounds: HostileBounds, figures: Figures): Promise<void> {
  const admin = new Client(server.url, server.admin);
  try {
    await admin.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
    await admin.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: hostileTarget() });
    for (const b of bodies) {
      // Time on a shared machine is noisy: a body over the time bound is sent again (up to 3 times
      // in all) and its fastest answer counts; memory counts its largest growth.
      let a: Answer | undefined;
      let growth = 0;
      let tries = 0;
      while (tries < 3 && (a === undefined || a.ms > bounds.ms)) {
        tries++;
        if (global.gc) global.gc();
        await new Promise((r) => setTimeout(r, 50));
        const before = server.rss();
        server.resetPeak();
        const answer = await admin.request(b.method, b.path, { body: b.body, contentType: b.contentType, timeoutMs: 30_000 });
        growth = Math.max(growth, server.peakRss() - before);
        if (a === undefined || answer.ms < a.ms) a = answer;
      }
      if (!a) continue;
      const refused = a.status >= 400 && a.status < 500 && isStatus(a);
      const within = refused && a.ms <= bounds.ms && growth <= bounds.bytes;
      const message = (() => {
        try {
          return String((JSON.parse(a.body.toString()) as { message?: string }).message ?? '').slice(0, 100);
        } catch {
          return a.error ?? a.body.toString().slice(0, 100);
        }
      })();
      figures.check(b.name, `${a.status} in ${msText(a.ms)}${tries > 1 ? ` (fastest of ${tries})` : ''}, +${mib(growth)} (${(b.body.length / MIB).toFixed(1)} MiB body) ${message}`, `4xx Status, <= ${bounds.ms} ms, <= ${mib(bounds.bytes)}`, within);
      if (!server.alive()) {
        figures.zero('crashes', 1, `after ${b.name}`);
        return;
      }
    }
  } finally {
    admin.close();
  }
}
