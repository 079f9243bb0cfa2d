// The hashes controllers put in names and labels: FNV-32a, written with the reference's
// vowel-free alphabet (so that no word is spelled) as its SafeEncodeString does.
import { encodeJson, type JsonObject } from '../../json.js';
import { spewPodTemplate, UnprintableValue } from './go-spew.js';

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1a, 32 bits. */
export function fnv32a(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** FNV-1, 32 bits (multiply, then xor): Go's fnv.New32, which the reference's ControllerRevision names use. */
export function fnv32(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h;
}

/** Every character of the decimal text mapped into the alphabet, as the reference's rand.SafeEncodeString. */
export function safeEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += ALPHABET[text.charCodeAt(i) % ALPHABET.length];
  return out;
}

/**
 * The `pod-template-hash` of a Deployment's template (as stored, i.e. defaulted), as the reference
 * computes it: FNV-32a over go-spew's printout of the Go PodTemplateSpec, then, when the Deployment
 * has a collision count, that count as 8 bytes (4 little-endian, 4 zero: the reference fills an
 * 8-byte buffer with a uint32), the decimal sum safely encoded. A template the printer cannot
 * reproduce (see UnprintableValue) is hashed from its JSON instead: stable, but not the reference's.
 */
export function podTemplateHash(template: JsonObject, collisionCount?: number): string {
  let printed: Uint8Array;
  try {
    printed = Buffer.from(spewPodTemplate(template), 'utf8');
  } catch (err) {
    if (!(err instanceof UnprintableValue)) throw err;
    printed = encodeJson(template);
  }
  let h = fnv32a(printed);
  if (collisionCount !== undefined) {
    const count = Buffer.alloc(8);
    count.writeUInt32LE(collisionCount >>> 0);
    h = fnv32a(count, h);
  }
  return safeEncode(String(h));
}
