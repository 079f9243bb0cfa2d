// Watch: newline-delimited JSON events {"type","object"} over a chunked response.
// Starting state: resourceVersion unset or "0" → synthetic ADDED for what exists, then changes;
// another version → only the changes after it (410 in an ERROR event when that history is gone).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceInfo } from '../api/catalog.js';
import { StatusError } from '../errors.js';
import { collectionPrefix } from '../registry/keys.js';
import { decode, type JsonObject } from '../registry/objects.js';
import type { Registry } from '../registry/store.js';
import { StorageError, type StorageEvent } from '../storage/types.js';
import { CONTENT_TYPES, type Representation } from './negotiation.js';

const DEFAULT_TIMEOUT_SECONDS = 30 * 60;

export async function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  registry: Registry,
  info: ResourceInfo,
  namespace: string | undefined,
  query: URLSearchParams,
  filter: ((obj: JsonObject) => boolean) | undefined,
  out: { representation: Representation },
): Promise<void> {
  const rvParam = query.get('resourceVersion') ?? '';
  const timeout = Number(query.get('timeoutSeconds') ?? DEFAULT_TIMEOUT_SECONDS * (1 + Math.random()));
  const prefix = collectionPrefix(info, namespace);
  const storage = registry.storage;
  let from: number;
  const initial: Buffer[] = [];
  if (rvParam === '' || rvParam === '0') {
    const page = await storage.list(prefix);
    from = page.revision;
    for (const item of page.items) {
      const obj = decode(item.value);
      if (!filter || filter(obj)) initial.push(event('ADDED', item.value));
    }
  } else {
    from = Number(rvParam);
    if (!Number.isInteger(from) || from < 0) throw new StatusError(400, 'BadRequest', `invalid resource version: ${rvParam}`);
  }
  res.writeHead(200, { 'Content-Type': CONTENT_TYPES[out.representation === 'yaml' ? 'json' : out.representation], 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  for (const line of initial) res.write(line);
  let watcher: { stop(): void } | undefined;
  const end = () => {
    watcher?.stop();
    clearTimeout(timer);
    if (!res.writableEnded) res.end();
  };
  const timer = setTimeout(end, Math.max(0, timeout) * 1000);
  req.on('close', end);
  try {
    watcher = storage.watch(prefix, from, (e: StorageEvent) => {
      const obj = decode(e.value);
      const matches = !filter || filter(obj);
      const before = e.prevValue && filter ? filter(decode(e.prevValue)) : e.type !== 'create';
      let type: string | undefined;
      if (e.type === 'create') type = matches ? 'ADDED' : undefined;
      else if (e.type === 'delete') type = before || !filter ? 'DELETED' : undefined;
      else if (matches && before) type = 'MODIFIED';
      else if (matches) type = 'ADDED';
      else if (before) type = 'DELETED';
      if (type) res.write(event(type, e.value));
    });
  } catch (err) {
    if (err instanceof StorageError && err.code === 'Compacted') {
      const status = new StatusError(410, 'Expired', `too old resource version: ${from} (${err.revision ?? 0})`).toStatus();
      res.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      end();
      return;
    }
    end();
    throw err;
  }
}

function event(type: string, object: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`{"type":"${type}","object":`), object, Buffer.from('}\n')]);
}

