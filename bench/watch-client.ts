// A watch client process for bench/watchers.ts (forked, IPC): opens `count` watches of one
// collection from one resourceVersion over node:http keep-alive streams, reads them line by line,
// and when told the writes that were made, checks each stream got each exactly once, in order, and
// sends back the delivery latencies. Times are CLOCK_MONOTONIC milliseconds, the same in every
// process of the machine, so the writer's send time (in each object's data.sentAt) and this
// process's receive time compare directly.
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

export interface ClientStart {
  url: string;
  count: number;
  /** A bare TCP socket and a minimal HTTP/1.1 reader instead of node:http. */
  raw: boolean;
}

export interface WriteRecord {
  rv: number;
  type: string;
}

export interface ClientResult {
  exact: number;
  problems: Record<string, number>;
  /** receive − send per delivery (ms). */
  latencies: Float64Array;
  /** Receive time of event j on stream i at [i * writes + j] (NaN when not received in place). */
  arrivals: Float64Array;
  cpuMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

interface Stream {
  close(): void;
  buffer: string;
  rvs: number[];
  types: string[];
  at: number[];
  sent: number[];
  errors: number;
}

/** One chunk of a watch stream's body: complete lines are parsed, the rest waits for more. */
function onText(stream: Stream, chunk: string): void {
  const at = monotonicMs();
  let text = stream.buffer + chunk;
  let nl: number;
  while ((nl = text.indexOf('\n')) >= 0) {
    const line = text.slice(0, nl);
    text = text.slice(nl + 1);
    if (!line) continue;
    try {
      const e = JSON.parse(line) as { type: string; object: { metadata?: { resourceVersion?: string }; data?: { sentAt?: string } } };
      stream.types.push(e.type);
      stream.rvs.push(Number(e.object.metadata?.resourceVersion));
      stream.sent.push(Number(e.object.data?.sentAt));
      stream.at.push(at);
    } catch {
      stream.errors++;
    }
  }
  stream.buffer = text;
}

function newStream(): Stream {
  return { close: () => undefined, buffer: '', rvs: [], types: [], at: [], sent: [], errors: 0 };
}

/** A watch over node:http (keep-alive Agent), the body read as UTF-8 text. */
function openHttp(agent: Agent, u: URL, streams: Stream[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = newStream();
    let res: IncomingMessage | undefined;
    const req: ClientRequest = request({ agent, host: u.hostname, port: u.port, path: u.pathname + u.search, headers: { Accept: 'application/json' } }, (r) => {
      res = r;
      if (r.statusCode !== 200) reject(new Error(`watch: ${r.statusCode}`));
      r.setEncoding('utf8');
      r.on('data', (chunk: string) => onText(stream, chunk));
      r.on('error', () => undefined);
      resolve();
    });
    req.on('error', (err) => {
      if (!res) reject(err);
    });
    req.end();
    stream.close = () => req.destroy();
    streams.push(stream);
  });
}

/**
 * A watch over a bare TCP socket with a minimal HTTP/1.1 reader (status line, headers, chunked
 * body): the same stream at a fraction of node:http's client cost, to tell the server's share of
 * the latency from the client's (BENCH_WATCH_RAW=1).
 */
function openRaw(u: URL, streams: Stream[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = newStream();
    const socket = connect({ host: u.hostname, port: Number(u.port) });
    socket.setNoDelay(true);
    let head = '';
    let inBody = false;
    let pending: Buffer = Buffer.alloc(0);
    let remaining = -1; // bytes left of the current chunk's data (+2 for its CRLF); -1: at a size line
    const decoder = new StringDecoder('utf8');
    socket.on('connect', () => socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: application/json\r\n\r\n`));
    socket.on('error', (err) => {
      if (!inBody) reject(err);
    });
    socket.on('data', (data: Buffer) => {
      let buf: Buffer = data;
      if (!inBody) {
        head += buf.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(`watch: ${head.split('\r\n')[0]}`));
        if (!/^transfer-encoding:\s*chunked/im.test(head.slice(0, end))) return reject(new Error('watch: not chunked'));
        inBody = true;
        buf = Buffer.from(head.slice(end + 4), 'latin1');
        head = '';
        resolve();
      }
      if (pending.length) buf = Buffer.concat([pending, buf]);
      pending = Buffer.alloc(0);
      let text = '';
      let at = 0;
      while (at < buf.length) {
        if (remaining < 0) {
          const eol = buf.indexOf('\r\n', at);
          if (eol < 0) {
            pending = buf.subarray(at);
            break;
          }
          remaining = parseInt(buf.toString('latin1', at, eol), 16) + 2;
          at = eol + 2;
          continue;
        }
        const take = Math.min(remaining, buf.length - at);
        // The chunk's data without its trailing CRLF.
        const dataEnd = at + Math.max(0, Math.min(take, remaining - 2));
        if (dataEnd > at) text += decoder.write(buf.subarray(at, dataEnd));
        remaining -= take;
        at += take;
        if (remaining === 0) remaining = -1;
      }
      if (text) onText(stream, text);
    });
    stream.close = () => socket.destroy();
    streams.push(stream);
  });
}

async function main(): Promise<void> {
  const start = await new Promise<ClientStart>((resolve) => process.once('message', (m) => resolve(m as ClientStart)));
  const u = new URL(start.url);
  if (u.hostname !== '127.0.0.1') throw new Error('only 127.0.0.1');
  const agent = new Agent({ keepAlive: true, maxSockets: start.count + 16 });
  const streams: Stream[] = [];
  const open = (): Promise<void> => (start.raw ? openRaw(u, streams) : openHttp(agent, u, streams));
  for (let i = 0; i < start.count; i += 100) await Promise.all(Array.from({ length: Math.min(100, start.count - i) }, open));
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  process.send!('ready');

  const writes = await new Promise<WriteRecord[]>((resolve) => process.once('message', (m) => resolve(m as WriteRecord[])));
  const deadline = monotonicMs() + 10_000;
  while (monotonicMs() < deadline && streams.some((s) => s.rvs.length < writes.length)) await new Promise((r) => setTimeout(r, 20));
  const cpu = process.cpuUsage(cpu0);
  loop.disable();

  const problems: Record<string, number> = {};
  const note = (p: string) => (problems[p] = (problems[p] ?? 0) + 1);
  let exact = 0;
  let samples = 0;
  const latencies = new Float64Array(streams.reduce((n, s) => n + s.at.length, 0));
  const arrivals = new Float64Array(streams.length * writes.length).fill(NaN);
  streams.forEach((s, i) => {
    let good = s.errors === 0 && s.rvs.length === writes.length;
    if (s.errors) note('unparsable lines');
    if (s.rvs.length < writes.length) note('missing events');
    if (s.rvs.length > writes.length) note('extra events');
    const seen = new Set<number>();
    let duplicate = false;
    let disorder = false;
    let mismatch = false;
    for (let j = 0; j < s.rvs.length; j++) {
      const rv = s.rvs[j]!;
      if (seen.has(rv)) duplicate = true;
      seen.add(rv);
      if (j > 0 && rv <= s.rvs[j - 1]!) disorder = true;
      if (j >= writes.length || rv !== writes[j]!.rv || s.types[j] !== writes[j]!.type) mismatch = true;
      else arrivals[i * writes.length + j] = s.at[j]!;
      if (Number.isFinite(s.sent[j])) latencies[samples++] = s.at[j]! - s.sent[j]!;
    }
    if (duplicate) note('duplicate events');
    if (disorder) note('out of order');
    if (mismatch) note('events other than the writes made (or of the wrong type)');
    if (good && !duplicate && !disorder && !mismatch) exact++;
  });
  const result: ClientResult = {
    exact, problems, latencies: latencies.subarray(0, samples), arrivals,
    cpuMs: (cpu.user + cpu.system) / 1000, loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6,
  };
  process.send!(result, () => {
    for (const s of streams) s.close();
    agent.destroy();
    process.disconnect();
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
