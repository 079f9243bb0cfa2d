// A GET timed every `everyMs` from a process of its own (forked, IPC), so that the latency measured
// is the server's and not the probe's own busy event loop's: started with a SamplerStart message,
// it opens its connection with a first GET, not timed (a TLS handshake is no GET's latency), says
// 'ready', and answers a 'stop' message with the latencies (ms).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ClientTls } from '../helpers.js';
import { Client } from './client.js';

interface SamplerStart {
  base: string;
  path: string;
  tls: ClientTls;
  everyMs: number;
}

/** Starts timing GETs of `path` in a child process, once its connection is open; `stop()` gives the latencies. */
export async function startGetSampler(base: string, path: string, tls: ClientTls, everyMs = 20): Promise<{ stop(): Promise<number[]> }> {
  const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`GET sampler exited ${code}`));
    child.once('exit', exited);
    child.once('message', () => {
      child.off('exit', exited);
      resolve();
    });
    child.send({ base, path, tls, everyMs } satisfies SamplerStart);
  });
  return {
    stop: () => new Promise((resolve, reject) => {
      child.once('message', (latencies) => resolve(latencies as number[]));
      child.once('exit', (code) => reject(new Error(`GET sampler exited ${code}`)));
      child.send('stop');
    }),
  };
}

function runSampler(): void {
  process.once('message', (start: SamplerStart) => {
    const client = new Client(start.base, start.tls, undefined, 1);
    const latencies: number[] = [];
    let running = true;
    void (async () => {
      await client.request('GET', start.path, { timeoutMs: 10_000 });
      process.once('message', () => (running = false));
      process.send!('ready');
      while (running) {
        latencies.push((await client.request('GET', start.path, { timeoutMs: 10_000 })).ms);
        await new Promise((r) => setTimeout(r, start.everyMs));
      }
      client.close();
      process.send!(latencies, () => process.exit(0));
    })();
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runSampler();
