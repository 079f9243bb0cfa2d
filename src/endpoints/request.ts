// Reading request bodies (bounded) and writing responses in the negotiated representation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringify as toYaml } from 'yaml';
import { MAX_BODY_BYTES } from '../encoding/decode.js';
import { requestEntityTooLarge, StatusError, internalError } from '../errors.js';
import { CONTENT_TYPES, type Representation } from './negotiation.js';

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    throw requestEntityTooLarge(`Request entity too large: limit is ${MAX_BODY_BYTES}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      throw requestEntityTooLarge(`Request entity too large: limit is ${MAX_BODY_BYTES}`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The reference indents JSON for ?pretty=true and for command-line user agents. */
export function wantsPretty(req: IncomingMessage, query: URLSearchParams): boolean {
  const pretty = query.get('pretty');
  if (pretty !== null) return pretty === '' || pretty === 'true' || pretty === '1';
  const ua = req.headers['user-agent'] ?? '';
  return ua.includes('curl') || ua.includes('Wget') || ua.startsWith('Mozilla/');
}

export interface Output {
  representation: Representation;
  pretty: boolean;
}

export function sendBytes(res: ServerResponse, status: number, body: Buffer, out: Output, headers: Record<string, string> = {}): void {
  let payload = body;
  if (out.representation === 'yaml') payload = Buffer.from(toYaml(JSON.parse(body.toString('utf8'))));
  else if (out.pretty) payload = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2) + '\n');
  res.writeHead(status, { ...headers, 'Content-Type': CONTENT_TYPES[out.representation], 'Content-Length': payload.length });
  res.end(payload);
}

export function sendStatusError(res: ServerResponse, err: unknown, out: Output = { representation: 'json', pretty: false }): void {
  const status = err instanceof StatusError ? err : internalError(err instanceof Error ? err.message : String(err));
  if (!(err instanceof StatusError)) console.error('internal error:', err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = Buffer.from(JSON.stringify(status.toStatus()));
  // The reference indents its 406 answer (it cannot negotiate a serializer for it).
  const pretty = status.code === 406 ? true : out.pretty;
  sendBytes(res, status.code, body, { representation: status.code === 406 ? 'json' : out.representation, pretty }, status.headers);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}
