// Hostile bodies (issue 14 item 3): small bodies built to cost a naive server gigabytes or
// seconds — deep nesting through every decoder and patch engine, recursive YAML aliases, alias
// explosions, bodies at the size limit. Each must get a 4xx Status within 200 ms and cost at most
// 50 MB of resident memory (the server's peak during the request over its resident set before).
import { Client, isStatus } from './client.js';
import type { Figures } from './figures.js';
import { mib, msText } from './figures.js';
import type { ProbeServer } from './server.js';

export interface HostileBody {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH';
  /** Relative to the probe's namespace's ConfigMaps: '' for the collection, '/<name>' for one. */
  target: string;
  contentType: string;
  body: Buffer;
}

const NS = 'hostile';
const MIB = 1024 * 1024;

/** `open` n times, then `close` n times, inside `before` … `after`. */
function deep(before: string, open: string, inner: string, close: string, after: string, n: number): Buffer {
  return Buffer.from(before + open.repeat(n) + inner + close.repeat(n) + after);
}

/** A YAML document whose aliases expand to `width`^`levels` strings. */
function aliasExplosion(levels: number, width: number): string {
  const lines = [`apiVersion: v1`, `kind: ConfigMap`, `metadata: {name: boom}`, `l0: &l0 [${Array(width).fill('"lol"').join(', ')}]`];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array(width).fill(`*l${i - 1}`).join(', ')}]`);
  lines.push(`data: {a: *l${levels - 1}}`);
  return lines.join('\n');
}

/** The probe's own list (the hardening branch's generators, when merged, cover the same ground). */
export function hostileBodies(): HostileBody[] {
  const cm = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h"},"data":';
  return [
    { name: 'apply JSON nested 10^6 (2 MB)', method: 'PATCH', target: '/h?fieldManager=p', contentType: 'application/apply-patch+yaml', body: deep(cm, '[', '1', ']', '}', 1_000_000) },
    { name: 'create JSON nested 10^6 objects', method: 'POST', target: '', contentType: 'application/json', body: deep(cm, '{"a":', '1', '}', '}', 500_000) },
    { name: 'create YAML flow nested 10^6', method: 'POST', target: '', contentType: 'application/yaml', body: deep('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata: ', '[', '1', ']', '\n', 1_000_000) },
    { name: 'apply YAML nested 10^6', method: 'PATCH', target: '/h?fieldManager=p', contentType: 'application/apply-patch+yaml', body: deep('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata: ', '[', '1', ']', '\n', 1_000_000) },
    { name: 'merge patch nested 10^4', method: 'PATCH', target: '/h', contentType: 'application/merge-patch+json', body: deep('{"data":', '{"a":', '"x"', '}', '}', 10_000) },
    { name: 'strategic merge patch nested 10^4', method: 'PATCH', target: '/h', contentType: 'application/strategic-merge-patch+json', body: deep('{"data":', '{"a":', '"x"', '}', '}', 10_000) },
    // Under the decoders' 10,000 levels: the patch engines and validation must bound their own depth.
    { name: 'merge patch nested 9,000', method: 'PATCH', target: '/h', contentType: 'application/merge-patch+json', body: deep('{"data":', '{"a":', '"x"', '}', '}', 9_000) },
    { name: 'strategic merge patch nested 9,000', method: 'PATCH', target: '/h', contentType: 'application/strategic-merge-patch+json', body: deep('{"metadata":{"annotations":', '{"a":', '"x"', '}', '}}', 9_000) },
    { name: 'apply nested 9,000', method: 'PATCH', target: '/h?fieldManager=p', contentType: 'application/apply-patch+yaml', body: deep(cm, '{"a":', '"x"', '}', '}', 9_000) },
    { name: 'create JSON nested 9,000', method: 'POST', target: '', contentType: 'application/json', body: deep(cm, '{"a":', '"x"', '}', '}', 9_000) },
    { name: 'JSON patch value nested 10^4', method: 'PATCH', target: '/h', contentType: 'application/json-patch+json', body: deep('[{"op":"add","path":"/metadata/annotations","value":', '{"a":', '"x"', '}', '}]', 10_000) },
    { name: 'update JSON nested 10^5', method: 'PUT', target: '/h', contentType: 'application/json', body: deep(cm, '[', '1', ']', '}', 100_000) },
    { name: 'recursive YAML alias', method: 'POST', target: '', contentType: 'application/yaml', body: Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loop}\ndata: &a {a: *a}\n') },
    { name: 'recursive YAML alias in apply', method: 'PATCH', target: '/h?fieldManager=p', contentType: 'application/apply-patch+yaml', body: Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: h}\ndata: &a [*a]\n') },
    { name: 'alias explosion 10^9', method: 'POST', target: '', contentType: 'application/yaml', body: Buffer.from(aliasExplosion(9, 10)) },
    { name: 'alias explosion in apply', method: 'PATCH', target: '/h?fieldManager=p', contentType: 'application/apply-patch+yaml', body: Buffer.from(aliasExplosion(9, 10).replace('name: boom', 'name: h')) },
    { name: '3 MiB body nested arrays', method: 'POST', target: '', contentType: 'application/json', body: deep(cm, '[', '', ']', '}', (3 * MIB - cm.length - 2) / 2) },
    { name: 'body over 3 MiB', method: 'POST', target: '', contentType: 'application/json', body: Buffer.from(`${cm}{"a":"${'x'.repeat(3 * MIB + 10)}"}}`) },
  ];
}

export interface HostileBounds {
  ms: number;
  bytes: number;
}

export async function hostile(server: ProbeServer, bodies: HostileBody[], bounds: HostileBounds, figures: Figures): Promise<void> {
  const admin = new Client(server.url, server.admin);
  try {
    await admin.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
    await admin.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: 'h' }, data: { a: '1' } } });
    for (const b of bodies) {
      if (global.gc) global.gc();
      await new Promise((r) => setTimeout(r, 50));
      const before = server.rss();
      server.resetPeak();
      const a = await admin.request(b.method, `/api/v1/namespaces/${NS}/configmaps${b.target}`, { body: b.body, contentType: b.contentType, timeoutMs: 30_000 });
      const growth = Math.max(0, server.peakRss() - before);
      const refused = a.status >= 400 && a.status < 500 && isStatus(a);
      const within = refused && a.ms <= bounds.ms && growth <= bounds.bytes;
      const message = (() => {
        try {
          return String((JSON.parse(a.body.toString()) as { message?: string }).message ?? '').slice(0, 100);
        } catch {
          return a.error ?? a.body.toString().slice(0, 100);
        }
      })();
      figures.check(b.name, `${a.status} in ${msText(a.ms)}, +${mib(growth)} (${(b.body.length / MIB).toFixed(1)} MiB body) ${message}`, `4xx Status, <= ${bounds.ms} ms, <= ${mib(bounds.bytes)}`, within);
      if (!server.alive()) {
        figures.zero('crashes', 1, `after ${b.name}`);
        return;
      }
    }
  } finally {
    admin.close();
  }
}
