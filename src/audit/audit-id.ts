// New audit IDs: random (version 4) UUIDs, as crypto.randomUUID makes them, but made 256 at a
// time: one fill of random bytes, their text written as bytes and read back as one string, each ID
// a slice of it. randomUUID builds each ID from 20 small strings joined (~700 bytes of garbage,
// and a flattening when the ID is first read character by character: the header, the log line).
// Each batch's text stays as bytes too, for an auditing server's log lines to copy
// (newMadeAuditId, copyMadeId): writing the string into a line was a call into Node's C++ per line,
// about a tenth of the audit work of a GET.
import { randomFillSync } from 'node:crypto';

const BATCH = 256;
const UUID_CHARS = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const random = Buffer.allocUnsafeSlow(BATCH * 16);
/** The batch's text as bytes: a new buffer each batch, as the IDs given out keep theirs. */
let text = Buffer.alloc(0);
let textView: DataView = new DataView(text.buffer, text.byteOffset, 0);
let batch = '';
let next = BATCH;

/** An ID the server made: its text, and its ASCII bytes at `at` of `bytes` (never written again). */
export interface MadeAuditId {
  readonly text: string;
  readonly bytes: DataView;
  readonly at: number;
}

/**
 * The ID's 36 bytes written at `to` of `view`, as nine 32-bit words: a byte at a time (with a
 * bounds check each) took four times as long, a copy through a subarray or Buffer.copy three.
 */
export function copyMadeId(made: MadeAuditId, view: DataView, to: number): void {
  const bytes = made.bytes;
  const at = made.at;
  for (let i = 0; i < UUID_CHARS; i += 4) view.setUint32(to + i, bytes.getUint32(at + i, true), true);
}

/** A new random UUID (RFC 4122 version 4), lowercase: what crypto.randomUUID() gives. */
export function newAuditId(): string {
  const at = take();
  return batch.slice(at, at + UUID_CHARS);
}

/** newAuditId()'s, with its bytes: for a server that audits (its lines copy them). */
export function newMadeAuditId(): MadeAuditId {
  const at = take();
  return { text: batch.slice(at, at + UUID_CHARS), bytes: textView, at };
}

/** Where the next ID starts in the batch. */
function take(): number {
  if (next === BATCH) refill();
  return next++ * UUID_CHARS;
}

function refill(): void {
  text = Buffer.allocUnsafeSlow(BATCH * UUID_CHARS);
  randomFillSync(random);
  let o = 0;
  for (let i = 0; i < BATCH; i++) {
    const r = i * 16;
    // The version (4) and the variant (10xx), as RFC 4122 section 4.4 sets them.
    random[r + 6] = (random[r + 6]! & 0x0f) | 0x40;
    random[r + 8] = (random[r + 8]! & 0x3f) | 0x80;
    for (let j = 0; j < 16; j++) {
      if (j === 4 || j === 6 || j === 8 || j === 10) text[o++] = 0x2d; // -
      const b = random[r + j]!;
      text[o++] = HEX[b >> 4]!;
      text[o++] = HEX[b & 0x0f]!;
    }
  }
  batch = text.toString('latin1', 0, BATCH * UUID_CHARS);
  textView = new DataView(text.buffer, text.byteOffset, text.length);
  next = 0;
}
