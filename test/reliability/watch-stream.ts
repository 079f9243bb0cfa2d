// A watch over HTTPS/1.1 as the admin: its events as they arrive, one JSON object per line.
import { request } from 'node:https';
import type { ClientTls } from '../helpers.js';

export interface WatchEvent {
  type: string;
  object: unknown;
}

export interface WatchStream {
  /** The HTTP status (0 until the answer's head arrives). */
  readonly status: number;
  /** The events until the stream ends (server gone, closed, or an ERROR event passed on). */
  events(): AsyncIterable<WatchEvent>;
  close(): void;
}

export function watchStream(base: string, tls: ClientTls, path: string): WatchStream {
  const queue: WatchEvent[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  let status = 0;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const finish = () => {
    ended = true;
    notify();
  };
  const req = request(new URL(path, base), { method: 'GET', headers: { Accept: 'application/json' }, ...tls, agent: false }, (res) => {
    status = res.statusCode ?? 0;
    let buffered = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!line) continue;
        try {
          queue.push(JSON.parse(line) as WatchEvent);
        } catch {
          queue.push({ type: 'ERROR', object: { code: 0, message: `not JSON: ${line.slice(0, 100)}` } });
        }
      }
      notify();
    });
    res.on('end', finish);
    res.on('error', finish);
    res.on('close', finish);
    if (status !== 200) {
      res.resume();
    }
  });
  req.on('error', finish);
  req.end();
  return {
    get status() {
      return status;
    },
    async *events() {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (ended || (status !== 0 && status !== 200)) return;
        await new Promise<void>((r) => (wake = r));
      }
    },
    close() {
      req.destroy();
      finish();
    },
  };
}
