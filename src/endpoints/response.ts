// Headers every answer to a request carries whoever writes it (Audit-Id, the X-Kubernetes-PF-*
// UIDs), kept as a list on the response and added when its status line is written — also when it
// is written implicitly (a bare end()) — instead of by `setHeader`: once any header is set that way,
// Node's HTTP/1 response takes its slow path for the whole answer (a headers object, each header
// validated as set, then those given to writeHead merged in one by one), which cost more than
// everything else APF does to a GET. HTTP/1 responses of the server are `AnswerResponse`s
// (server/server.ts and upgrade.ts make them); on any other response (HTTP/2's, a test's) the
// headers are set with `setHeader`, which is no slower there.
//
// A header many answers carry with the same value (the PF UIDs: one per flow schema and level) can
// be a `PreparedHeader`: checked as Node checks headers once, when made, and its line written after
// the status line as it is. Node checks every header of every answer with two regular expressions,
// which cost a GET more than the rest of APF's work. The line goes in through node:http's writer of
// the head (`_storeHeader`, given the status line), the one way to write a head line unchecked.
import { ServerResponse, validateHeaderName, validateHeaderValue, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { RECORD } from '../audit/record.js';

type Given = OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;

/** A header line made, and checked as Node checks a header, once: for a value many answers carry. */
export class PreparedHeader {
  /** `name: value` and its line end; undefined when Node would refuse the header (it then goes the checked way, and is refused there). */
  readonly line: string | undefined;

  constructor(
    readonly name: string,
    readonly value: string,
  ) {
    let line: string | undefined;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
      line = `${name}: ${value}\r\n`;
    } catch {
      line = undefined;
    }
    this.line = line;
  }
}

/**
 * The body's length of each answer sendBytes wrote (for apiserver_response_sizes: headers given to
 * writeHead are not kept to be read back), on the response itself: a WeakMap entry per response
 * costs the garbage collector more than the lookup saves. A slot of AnswerResponse from the start,
 * so that setting it does not change the response's shape.
 */
export const SENT_LENGTH = Symbol('sent body length');

/** node:http's writer of a head's header lines, given the status line (see above); checked for at load. */
type StoreHeader = (this: ServerResponse, firstLine: string, headers: unknown) => void;
const storeHeader = (ServerResponse.prototype as unknown as { _storeHeader?: StoreHeader })._storeHeader;

export class AnswerResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The request's own headers: name, value, name, value… */
  readonly answerHeaders: string[] = [];
  /** The request's own prepared headers (see PreparedHeader). */
  readonly preparedHeaders: PreparedHeader[] = [];
  /** The prepared headers' lines, for the head being written. */
  private preparedLines = '';
  /** The request's audit event (audit/record.ts auditOf), a slot from the start. */
  [RECORD]: unknown = undefined;
  /** See SENT_LENGTH. */
  [SENT_LENGTH]: number | undefined = undefined;

  override writeHead(statusCode: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    let own = this.answerHeaders;
    this.preparedLines = '';
    if (own.length === 0 && this.preparedHeaders.length === 0) return super.writeHead(statusCode, reason as string, headers);
    const given = typeof reason === 'string' ? headers : (reason ?? headers);
    // The given headers' names, read once for both merges.
    const names = given === undefined ? NO_NAMES : Array.isArray(given) ? pairsOf(given).names : Object.keys(given);
    if (this.preparedHeaders.length > 0) {
      const lines = this.linesOf(names);
      if (lines !== undefined) this.preparedLines = lines;
      else own = [...own, ...this.preparedHeaders.flatMap((h) => [h.name, h.value])];
    }
    if (own.length === 0) return super.writeHead(statusCode, reason as string, headers);
    const merged = withOwn(own, given, names);
    return typeof reason === 'string' ? super.writeHead(statusCode, reason, merged) : super.writeHead(statusCode, merged);
  }

  /** Node's writer of the head, with the prepared headers' lines after the status line. */
  _storeHeader(firstLine: string, headers: unknown): void {
    storeHeader!.call(this, this.preparedLines === '' ? firstLine : firstLine + this.preparedLines, headers);
  }

  /**
   * The prepared headers' lines, unless one must go the checked way: Node without the head writer,
   * a line Node would refuse, or a header of the same name given to writeHead (`given`: their
   * names) or set with setHeader (which replaces the request's own).
   */
  private linesOf(given: readonly string[]): string | undefined {
    if (storeHeader === undefined) return undefined;
    let lines = '';
    for (const h of this.preparedHeaders) {
      if (h.line === undefined || this.hasHeader(h.name) || mentions(given, h.name)) return undefined;
      lines += h.line;
    }
    return lines;
  }
}

const NO_NAMES: readonly string[] = [];

/** Adds a header every answer to the request carries, however and wherever it is written. Before the answer is begun. */
export function addAnswerHeader(res: ServerResponse, name: string, value: string): void {
  if (res instanceof AnswerResponse) res.answerHeaders.push(name, value);
  else res.setHeader(name, value);
}

/** addAnswerHeader of a prepared header. */
export function addPreparedAnswerHeader(res: ServerResponse, header: PreparedHeader): void {
  if (res instanceof AnswerResponse) res.preparedHeaders.push(header);
  else res.setHeader(header.name, header.value);
}

/** Headers given as a list: a flat one, or [name, value] pairs (which Node takes too). */
function pairsOf(given: OutgoingHttpHeader[]): { names: string[]; values: OutgoingHttpHeader[] } {
  const names: string[] = [];
  const values: OutgoingHttpHeader[] = [];
  if (given.length > 0 && Array.isArray(given[0])) {
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
  return { names, values };
}

/**
 * The request's own headers and those given to writeHead (`names`: theirs), as one flat list. A
 * header given by name there replaces the request's own of that name (as writeHead replaces what
 * setHeader set: an extension server's Audit-Id, for one, proxied back as it answered it).
 */
function withOwn(own: string[], given: Given, names: readonly string[]): OutgoingHttpHeader[] {
  if (given === undefined) return own;
  if (Array.isArray(given)) {
    const { values } = pairsOf(given);
    const list: OutgoingHttpHeader[] = [];
    addOwn(list, own, names);
    for (let i = 0; i < names.length; i++) list.push(names[i]!, values[i]!);
    return list;
  }
  // An object (as handlers give them): the request's own headers copied at once, then the given
  // ones, unless one is named as an own one (rare: the slower merge then).
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
  for (let i = 0; i < own.length; i += 2) if (sameName(own[i]!, name)) return true;
  return false;
}

function addOwn(list: OutgoingHttpHeader[], own: string[], given: readonly string[]): void {
  for (let i = 0; i < own.length; i += 2) {
    const name = own[i]!;
    if (!mentions(given, name)) list.push(name, own[i + 1]!);
  }
}

function mentions(names: readonly string[], name: string): boolean {
  for (const n of names) if (sameName(n, name)) return true;
  return false;
}

function sameName(a: string, b: string): boolean {
  return a.length === b.length && a.toLowerCase() === b.toLowerCase();
}
