// etcd's own write rate, measured the way capstan writes: `clients` concurrent create-if-absent
// transactions of ~2 KiB values through our client, for `ms`. The ceiling capstan's creates are
// compared with in the same run (etcd batches concurrent transactions into one fsync).
import { EtcdClient, compareCreate } from '../src/storage/etcd/client.js';

export async function rawPutRate(url: string, clients: number, ms: number): Promise<{ perSecond: number; p99Ms: number }> {
  const client = new EtcdClient({ endpoints: [url] });
  const value = Buffer.alloc(2048, 'v');
  const latencies: number[] = [];
  let n = 0;
  const run = `${process.pid}-${Date.now()}`;
  const until = performance.now() + ms;
  const worker = async (w: number): Promise<void> => {
    while (performance.now() < until) {
      const key = Buffer.from(`/bench-raw/${run}/${w}/${n++}`);
      const t = performance.now();
      const res = await client.txn({ compare: [compareCreate(key, 'EQUAL', 0)], success: [{ put: { key, value } }], failure: [{ range: { key } }] });
      if (!res.succeeded) throw new Error(`raw put of ${key.toString()} failed`);
      latencies.push(performance.now() - t);
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: clients }, (_, w) => worker(w)));
  } finally {
    client.close();
  }
  latencies.sort((a, b) => a - b);
  const p99Ms = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0;
  return { perSecond: (latencies.length * 1000) / (performance.now() - started), p99Ms };
}
