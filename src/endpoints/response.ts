// Headers every answer to a request carries whoever writes it (Audit-Id, the X-Kubernetes-PF-*
// UIDs), kept as a list on the response and added when its status line is written — also when it
// is written implicitly (a bare end()) — instead of by `setHeader`: once any header is set that way,
// Node's HTTP/1 response takes its slow path for the whole answer (a headers object, each header
// validated as set, then those given to writeHead merged in one by one), which cost more than
// everything else APF does to a GET. HTTP/1 responses of the server are `AnswerResponse`s
// (server/server.ts and upgrade.ts make them); on any other response (HTTP/2's, a test's) the
// headers are set with `setHeader`, which is no slower there.
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { RECORD } from '../audit/record.js';

type Given = OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;

export class AnswerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The request's own headers: name, value, name, value… */
  readonly answerHeaders: string[] = [];
  /** The request's audit event (audit/record.ts auditOf), a slot from the start. */
  [RECORD]: unknown = undefined;

  override writeHead(statusCode: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    const own = this.answerHeaders;
    if (own.length === 0) return super.writeHead(statusCode, reason as string, headers);
    if (typeof reason === 'string') return super.writeHead(statusCode, reason, withOwn(own, headers));
    return super.writeHead(statusCode, withOwn(own, reason ?? headers));
  }
}

/** Adds a header every answer to the request carries, however and wherever it is written. Before the answer is begun. */
export function addAnswerHeader(res: ServerResponse, name: string, value: string): void {
  if (res instanceof AnswerResponse) res.answerHeaders.push(name, value);
  else res.setHeader(name, value);
}

/**
 * The request's own headers and those given to writeHead, as one flat list. A header given by
 * name there replaces the request's own of that name (as writeHead replaces what setHeader set:
 * an extension server's Audit-Id, for one, proxied back as it answered it).
 */
function withOwn(own: string[], given: Given): OutgoingHttpHeader[] {
  if (given === undefined) return own;
  if (Array.isArray(given)) {
    const list: OutgoingHttpHeader[] = [];
    // A flat list, or [name, value] pairs (which Node takes too).
    const pairs = given.length > 0 && Array.isArray(given[0]);
    const names: string[] = [];
    const values: OutgoingHttpHeader[] = [];
    if (pairs) {
      for (const pair of given as unknown as [string, OutgoingHttpHeader][]) {
        names.push(pair[0]);
        values.push(pair[1]);
      }
    } else {
      for (let i = 0; i < given.length; i += 2) {
        names.push(given[i] as string);
        values.push(given[i + 1]!);
      }
    }
    addOwn(list, own, names);
    for (let i = 0; i < names.length; i++) list.push(names[i]!, values[i]!);
    return list;
  }
  // An object (as handlers give them): the request's own headers copied at once, then the given
  // ones, unless one is named as an own one (rare: the slower merge then).
  const names = Object.keys(given);
  const merged: OutgoingHttpHeader[] = own.slice();
  for (const name of names) {
    if (ownNamed(own, name)) {
      const list: OutgoingHttpHeader[] = [];
      addOwn(list, own, names);
      for (const n of names) list.push(n, given[n] as OutgoingHttpHeader);
      return list;
    }
    merged.push(name, given[name] as OutgoingHttpHeader);
  }
  return merged;
}

/** Whether `name` is one of the request's own headers' (name, value, … list). */
function ownNamed(own: string[], name: string): boolean {
  for (let i = 0; i < own.length; i += 2) {
    const n = own[i]!;
    if (n.length === name.length && n.toLowerCase() === name.toLowerCase()) return true;
  }
  return false;
}

function addOwn(list: OutgoingHttpHeader[], own: string[], given: string[]): void {
  for (let i = 0; i < own.length; i += 2) {
    const name = own[i]!;
    if (!mentions(given, name)) list.push(name, own[i + 1]!);
  }
}

function mentions(names: string[], name: string): boolean {
  for (const n of names) {
    if (n.length === name.length && n.toLowerCase() === name.toLowerCase()) return true;
  }
  return false;
}
