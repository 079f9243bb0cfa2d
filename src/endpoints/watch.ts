// Watch: newline-delimited JSON events {"type","object"} over a chunked response, served from the
// watch cache. resourceVersion unset or "0": synthetic ADDED for the current state, then changes;
// another version: only the changes after it (an ERROR event with 410 when that history is gone).
// With selectors, an object that stops matching is DELETED and one that starts matching ADDED.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ListOptions } from '../api/options.js';
import type { ResourceInfo } from '../registry/definitions.js';

import { collectionPrefix } from '../registry/keys.js';
import { tooOldResourceVersion } from '../registry/readoptions.js';
import type { Registry } from '../registry/store.js';
import type { CacheEvent } from '../storage/cacher.js';
import { jsonWatchFrame, parsedObject, protobufWatchFrame } from '../encoding/derived.js';
import type { Negotiated } from './negotiation.js';
import { renderEventObject } from './representations.js';
import { StorageError, type Watcher } from '../storage/types.js';
import { type JsonObject, decodeJson } from '../json.js';

/** A watcher whose unsent output passes this is closed (the client re-lists), never buffered on. */
export const MAX_WATCH_BACKLOG_BYTES = 16 * 1024 * 1024;
const BOOKMARK_INTERVAL_MS = 60_000;

export async function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  registry: Registry,
  info: ResourceInfo,
  namespace: string | undefined,
  /** The request's ListOptions, decoded and validated. */
  options: ListOptions,
  filter: ((obj: JsonObject) => boolean) | undefined,
  n: Negotiated,
  /** The request's query, for the representation's own parameters (a Table's includeObject). */
  query: URLSearchParams,
): Promise<void> {
  const requested = options.resourceVersion;
  // Without timeoutSeconds the server closes a watch after a random 30–60 minutes, as the reference.
  const timeoutMs = options.timeoutSeconds !== undefined ? options.timeoutSeconds * 1000 : (30 + Math.random() * 30) * 60_000;
  const bookmarks = options.allowWatchBookmarks ?? false;
  const cacher = await registry.cacher(info);
  const prefix = collectionPrefix(info, namespace);
  const sameVersion = registry.storageInfo(info).version === info.version;
  // Protobuf watches stream length-prefixed WatchEvent frames; JSON ones newline-delimited documents.
  const protobuf = n.format === 'protobuf';
  // Frames are made once per object version and type, and shared by every watcher sent them.
  const out = (type: string, object: Buffer): Buffer => (protobuf ? protobufWatchFrame(type, object) : jsonWatchFrame(type, object));
  // Events go out in stored bytes unless a version or a transformation asks otherwise.
  const plain = sameVersion && !n.transform;
  const render = (value: Buffer) => renderEventObject(info, sameVersion ? value : registry.servedBytes(info, value), n, query);
  // Filters only read the object: every watcher of an event shares one parse.
  const matches = (value: Buffer | undefined): boolean => value !== undefined && (!filter || filter(parsedObject(value)));

  let from: number;
  const initial: Buffer[] = [];
  if (requested === undefined || requested === 0) {
    const snapshot = cacher.list({ prefix });
    from = snapshot.revision;
    for (const value of snapshot.items) if (matches(value)) initial.push(out('ADDED', plain ? value : render(value)));
  } else {
    from = requested;
  }

  res.writeHead(200, { 'Content-Type': protobuf ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json' });
  res.flushHeaders();
  let watcher: Watcher | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let lastRevision = from;
  const end = () => {
    watcher?.stop();
    clearTimeout(deadline);
    clearTimeout(bookmarkTimer);
    if (!res.writableEnded) res.end();
  };
  const deadline = setTimeout(end, timeoutMs);
  req.on('close', end);
  res.on('close', end);
  const send = (bytes: Buffer) => {
    if (res.writableEnded) return;
    res.write(bytes);
    if (res.writableLength > MAX_WATCH_BACKLOG_BYTES) end();
  };
  for (const bytes of initial) send(bytes);

  try {
    watcher = cacher.watch(from, (e: CacheEvent) => {
      if (!e.key.startsWith(prefix)) return;
      lastRevision = e.rev;
      const now = e.type !== 'delete' && matches(e.value);
      const before = e.type === 'create' ? false : filter ? matches(e.prevValue) : true;
      let type: string | undefined;
      if (e.type === 'delete') type = before ? 'DELETED' : undefined;
      else if (now && before) type = 'MODIFIED';
      else if (now) type = 'ADDED';
      else if (before) type = 'DELETED';
      if (!type) return;
      if (type === 'DELETED' && e.type === 'update') {
        // It left the selection: the reference sends its previous content at the new version.
        send(out(type, render(withResourceVersion(e.prevValue!, e.rev))));
        return;
      }
      send(out(type, plain ? e.value : render(e.value)));
    }, end);
  } catch (err) {
    if (err instanceof StorageError && err.code === 'Compacted') {
      const status = tooOldResourceVersion(from, err.revision ?? 0).toStatus();
      send(out('ERROR', Buffer.from(JSON.stringify(status))));
      end();
      return;
    }
    end();
    throw err;
  }

  if (bookmarks) {
    // One bookmark ahead of the deadline (as the reference: about 2 s before it), else every minute.
    const schedule = (delay: number) => {
      bookmarkTimer = setTimeout(() => {
        const rv = Math.max(lastRevision, cacher.revision());
        const kind = n.transform === 'PartialObjectMetadata' ? 'PartialObjectMetadata' : info.kind;
        const apiVersion = n.transform === 'PartialObjectMetadata' ? n.transformVersion! : info.apiVersion;
        send(out('BOOKMARK', Buffer.from(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${rv}","creationTimestamp":null}}`)));
        schedule(BOOKMARK_INTERVAL_MS);
      }, delay);
    };
    schedule(Math.min(BOOKMARK_INTERVAL_MS, Math.max(timeoutMs - 2000, timeoutMs / 2)));
  }
}

function withResourceVersion(bytes: Buffer, revision: number): Buffer {
  const obj = decodeJson(bytes);
  const meta = (obj['metadata'] ?? {}) as JsonObject;
  meta['resourceVersion'] = String(revision);
  obj['metadata'] = meta;
  return Buffer.from(JSON.stringify(obj));
}
