// Watch: the registry's watch events (see registry/watch.ts) over a chunked response, as
// newline-delimited JSON documents {"type","object"} or length-prefixed Protobuf WatchEvent
// frames. This handler only validates the request and encodes the events; watch-output.ts writes
// them as the client takes them, and cuts off a client that stops reading.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ListOptions } from '../api/options.js';
import type { ResourceInfo } from '../registry/definitions.js';
import type { Registry } from '../registry/store.js';
import type { Watch, WatchEvent } from '../registry/watch.js';
import { jsonWatchFrame, protobufWatchFrame } from '../encoding/derived.js';
import type { Negotiated } from './negotiation.js';
import { renderEventObject } from './representations.js';
import type { JsonObject } from '../json.js';
import { WatchOutput } from './watch-output.js';
import type { WatchEventMetrics } from '../metrics/server-metrics.js';

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
  /** Counts each event sent, and its object's size (apiserver_watch_events_total and _sizes). */
  sent?: WatchEventMetrics,
): Promise<void> {
  const resourceVersion = options.resourceVersion;
  // Without timeoutSeconds (the watch handler gives it from --min-request-timeout) a random 30–60 minutes.
  const timeoutMs = options.timeoutSeconds !== undefined ? options.timeoutSeconds * 1000 : (30 + Math.random() * 30) * 60_000;
  const bookmarks = options.allowWatchBookmarks ?? false;
  // Protobuf watches stream length-prefixed WatchEvent frames; JSON ones newline-delimited documents.
  // Frames are made once per object version and type, and shared by every watcher sent them.
  const frame = n.format === 'protobuf' ? protobufWatchFrame : jsonWatchFrame;
  const objectOf = (e: WatchEvent): Buffer => {
    switch (e.type) {
      case 'BOOKMARK': return bookmarkObject(info, n, e.revision);
      case 'ERROR': return Buffer.from(JSON.stringify(e.status.toStatus()));
      // Events go out in the registry's bytes unless a transformation asks otherwise.
      default: return n.transform ? renderEventObject(info, e.object, n, query) : e.object;
    }
  };

  let watch: Watch | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    watch?.stop();
  };
  // The head goes out with the first event, or once the watch is open: a watch that cannot start is an error response.
  const open = () => {
    if (res.headersSent) return;
    res.writeHead(200, { 'Content-Type': n.format === 'protobuf' ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json' });
    res.flushHeaders();
  };
  // Frames are made as the client takes them (never for a client cut off before).
  const encode = sent
    ? (e: WatchEvent): Buffer => {
      const object = objectOf(e);
      sent.sent(object.length);
      return frame(e.type, object);
    }
    : (e: WatchEvent): Buffer => frame(e.type, objectOf(e));
  const output = new WatchOutput<WatchEvent>(res, encode, stop, undefined, open);
  const clientGone = () => {
    stop();
    output.stop();
  };
  req.on('close', clientGone);
  res.on('close', clientGone);
  watch = await registry.watch(info, namespace, { resourceVersion, filter, bookmarks, timeoutMs }, {
    event: (e) => output.push(e),
    end: () => {
      stop();
      output.end();
    },
  });
  if (stopped) watch.stop();
  else open();
}

/** A BOOKMARK's object: only kind, apiVersion and metadata.resourceVersion (and a null creationTimestamp), as the reference's. */
function bookmarkObject(info: ResourceInfo, n: Negotiated, revision: number): Buffer {
  const metadataOnly = n.transform === 'PartialObjectMetadata';
  const kind = metadataOnly ? 'PartialObjectMetadata' : info.kind;
  const apiVersion = metadataOnly ? n.transformVersion! : info.apiVersion;
  return Buffer.from(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{"resourceVersion":"${revision}","creationTimestamp":null}}`);
}
