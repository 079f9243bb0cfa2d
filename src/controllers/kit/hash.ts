// The hashes controllers put in names and labels: FNV-32a, written with the reference's
// vowel-free alphabet (so that no word is spelled) as its SafeEncodeString does.
import { encodeJson, type JsonObject } from '../../json.js';

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

/** A 32-bit hash with a collision count folded in (little-endian, as the reference writes it), safely encoded. */
export function encodedHash(bytes: Uint8Array, collisionCount?: number): string {
  let h = fnv32a(bytes);
  if (collisionCount !== undefined) {
    const c = Buffer.alloc(4);
    c.writeUInt32LE(collisionCount >>> 0);
    h = fnv32a(c, h);
  }
  return safeEncode(String(h));
}

/**
 * The `pod-template-hash` of a Deployment's template.
 * TODO(pod-template-hash): the reference hashes a printout of the Go value; until that printout is
 * reproduced, the hash is of the template's JSON, so names are stable but differ from the reference's.
 */
export function podTemplateHash(template: JsonObject, collisionCount?: number): string {
  return encodedHash(encodeJson(template), collisionCount);
}
