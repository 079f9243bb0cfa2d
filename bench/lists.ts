// A list of 10,000 ConfigMaps of about 2 KiB each: the full list (no limit) timed from outside
// over loopback (first byte: the server has built the body; last byte: it has all been sent), the
// server's CPU time per list, a paged walk with limit=500, and the server's peak RSS.
import { cpuMsOf, createMany, profiled, createNamespace, figure, http, keepAliveAgent, memoryOf, mib, ms, ok, quantile, startCapstan, status, type Capstan } from './common.js';

const COUNT = Number(process.env['BENCH_LIST_COUNT'] ?? 10_000);
const LISTS = 20;
const PAGE = 500;
const TARGET_MS = 50;

/** A ConfigMap of about `size` bytes as served (the server adds ~500 bytes of metadata: uid, managedFields…). */
export function configMap(name: string, size: number): unknown {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench', tier: 'lists' } }, data: { payload: 'x'.repeat(Math.max(0, size - 500)) } };
}

export async function lists(): Promise<void> {
  const server: Capstan = await startCapstan();
  const agent = keepAliveAgent(64);
  const ns = 'bench-lists';
  const url = `${server.url}/api/v1/namespaces/${ns}/configmaps`;
  try {
    await createNamespace(agent, server.url, ns);
    // Start the watch cache first, as a server with informers has it running already.
    await ok(agent, url);
    const created = await profiled('lists.create', () => createMany(agent, url, COUNT, 32, (i) => configMap(`cm-${String(i).padStart(5, '0')}`, 2048)));
    console.log(`\n== lists: ${COUNT} ConfigMaps of ~${(created.bytes / COUNT).toFixed(0)} bytes created in ${(created.ms / 1000).toFixed(1)} s (${(COUNT / (created.ms / 1000)).toFixed(0)}/s, 32 in flight)`);

    // Validate one full list, then time LISTS more on one keep-alive connection, one at a time.
    const one = keepAliveAgent(1);
    const first = await ok(one, url);
    const parsed = JSON.parse(first.body.toString()) as { items: unknown[]; metadata: { continue?: string } };
    if (parsed.items.length !== COUNT || parsed.metadata.continue) throw new Error(`full list has ${parsed.items.length} items, continue=${parsed.metadata.continue}`);
    const bytes = first.body.length;
    const ttfb: number[] = [];
    const ttlb: number[] = [];
    const cpuBefore = cpuMsOf(server.pid);
    await profiled('lists.full', async () => {
      for (let i = 0; i < LISTS; i++) {
        const r = await http(one, url, 'GET', undefined, false);
        if (r.status !== 200 || Number(r.body.toString()) !== bytes) throw new Error(`list ${i}: ${r.status}, ${r.body.toString()} bytes`);
        ttfb.push(r.firstByteAt - r.sentAt);
        ttlb.push(r.endAt - r.sentAt);
      }
    });
    const cpuPerList = (cpuMsOf(server.pid) - cpuBefore) / LISTS;
    ttfb.sort((a, b) => a - b);
    ttlb.sort((a, b) => a - b);
    const p50 = quantile(ttlb, 0.5);

    // resourceVersion=0 (any state the cache has: what informers ask first) against a consistent
    // list (the latest state), taking turns on the same connection so that other load skews both alike.
    const consistent: number[] = [];
    const anyVersion: number[] = [];
    const cpuOf = { consistent: 0, anyVersion: 0 };
    await profiled('lists.rv0', async () => {
      for (let i = 0; i < LISTS; i++) {
        const pair = [[consistent, '', 'consistent'], [anyVersion, '?resourceVersion=0', 'anyVersion']] as const;
        // Which goes first alternates: the second of a pair may find the machine as the first left it.
        for (const [times, query, key] of i % 2 === 0 ? pair : [pair[1], pair[0]]) {
          const cpu = cpuMsOf(server.pid);
          const r = await http(one, url + query, 'GET', undefined, false);
          cpuOf[key] += cpuMsOf(server.pid) - cpu;
          if (r.status !== 200 || Number(r.body.toString()) < bytes * 0.99) throw new Error(`list${query} ${i}: ${r.status}, ${r.body.toString()} bytes`);
          times.push(r.endAt - r.sentAt);
        }
      }
    });
    // The median of each pair's ratio: a pair, taken together, sees about the same load from elsewhere.
    const rv0Ratio = quantile(anyVersion.map((t, i) => t / consistent[i]!).sort((a, b) => a - b), 0.5);
    consistent.sort((a, b) => a - b);
    anyVersion.sort((a, b) => a - b);
    const rv0Met = rv0Ratio <= 1.05; // "at least as fast": the same within the noise of one shared machine

    // Paged: every page of the collection, limit=500, following continue tokens; three walks.
    const pages: number[] = [];
    const walks: number[] = [];
    await profiled('lists.paged', async () => {
    for (let walk = 0; walk < 3; walk++) {
      let token: string | undefined;
      let items = 0;
      const started = performance.now();
      do {
        const r = await ok(one, `${url}?limit=${PAGE}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
        pages.push(r.endAt - r.sentAt);
        const page = JSON.parse(r.body.toString()) as { items: unknown[]; metadata: { continue?: string } };
        items += page.items.length;
        token = page.metadata.continue || undefined;
      } while (token);
      walks.push(performance.now() - started);
      if (items !== COUNT) throw new Error(`paged walk saw ${items} items`);
    }
    });
    pages.sort((a, b) => a - b);
    const memory = memoryOf(server.pid);
    one.destroy();

    const met = p50 <= TARGET_MS;
    console.log(`full list: ${mib(bytes)} (${bytes} bytes) per list, ${LISTS} sequential lists on one keep-alive connection`);
    console.log(`  time to last byte   min ${ms(ttlb[0]!)}  p50 ${ms(p50)}  max ${ms(ttlb[ttlb.length - 1]!)}   target p50 <= ${TARGET_MS} ms: ${status(met)}`);
    console.log(`  time to first byte  min ${ms(ttfb[0]!)}  p50 ${ms(quantile(ttfb, 0.5))}  max ${ms(ttfb[ttfb.length - 1]!)}`);
    console.log(`  server CPU per list ${ms(cpuPerList)} (from /proc/<pid>/stat, user+system)`);
    console.log(`resourceVersion=0 list p50 ${ms(quantile(anyVersion, 0.5))} (CPU ${ms(cpuOf.anyVersion / LISTS)}) against consistent p50 ${ms(quantile(consistent, 0.5))} (CPU ${ms(cpuOf.consistent / LISTS)}): ${rv0Ratio.toFixed(2)}× (median of pairs)   target <= 1× (within 5%): ${status(rv0Met)}`);
    console.log(`paged list limit=${PAGE}: ${pages.length / 3} pages per walk; per page min ${ms(pages[0]!)}  p50 ${ms(quantile(pages, 0.5))}  max ${ms(pages[pages.length - 1]!)}; whole walk p50 ${ms(walks.sort((a, b) => a - b)[1]!)}`);
    console.log(`server memory: RSS ${mib(memory.rss)}, peak RSS (VmHWM) ${mib(memory.hwm)}`);
    figure('lists', `full list of ${COUNT} (${mib(bytes)}) last byte`, `min ${ms(ttlb[0]!)} p50 ${ms(p50)} max ${ms(ttlb[ttlb.length - 1]!)}`, { text: `p50 <= ${TARGET_MS} ms`, met });
    figure('lists', 'full list first byte', `min ${ms(ttfb[0]!)} p50 ${ms(quantile(ttfb, 0.5))} max ${ms(ttfb[ttfb.length - 1]!)}`);
    figure('lists', 'full list server CPU', `${ms(cpuPerList)} per list`);
    figure('lists', 'resourceVersion=0 / consistent list', `p50 ${ms(quantile(anyVersion, 0.5))} / ${ms(quantile(consistent, 0.5))} = ${rv0Ratio.toFixed(2)}×`, { text: '<= 1× (within 5%)', met: rv0Met });
    figure('lists', `paged list limit=${PAGE} per page`, `min ${ms(pages[0]!)} p50 ${ms(quantile(pages, 0.5))} max ${ms(pages[pages.length - 1]!)}`);
    figure('lists', 'creates (2 KiB, 32 in flight)', `${(COUNT / (created.ms / 1000)).toFixed(0)}/s`);
    figure('lists', 'server peak RSS (VmHWM)', mib(memory.hwm));
  } finally {
    agent.destroy();
    await server.stop();
  }
}
