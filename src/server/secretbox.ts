// NaCl's secretbox (XSalsa20 and Poly1305), which the reference's `secretbox` encryption provider
// uses and Node's crypto does not have: seal gives the 16-byte tag then the ciphertext, open checks
// the tag first. Written from the algorithms' specifications (Salsa20, HSalsa20, Poly1305);
// checked against NaCl's output in test/server/etcd-layout.test.ts. Values are small (Secrets), so
// Poly1305 runs on BigInt.
import { timingSafeEqual } from 'node:crypto';

const rotl = (v: number, n: number): number => (v << n) | (v >>> (32 - n));

/** Salsa20's 20 rounds over the state, in place. */
function rounds(x: Uint32Array): void {
  const qr = (a: number, b: number, c: number, d: number): void => {
    x[b]! ^= rotl((x[a]! + x[d]!) | 0, 7);
    x[c]! ^= rotl((x[b]! + x[a]!) | 0, 9);
    x[d]! ^= rotl((x[c]! + x[b]!) | 0, 13);
    x[a]! ^= rotl((x[d]! + x[c]!) | 0, 18);
  };
  for (let i = 0; i < 10; i++) {
    qr(0, 4, 8, 12); qr(5, 9, 13, 1); qr(10, 14, 2, 6); qr(15, 3, 7, 11);
    qr(0, 1, 2, 3); qr(5, 6, 7, 4); qr(10, 11, 8, 9); qr(15, 12, 13, 14);
  }
}

/** The state: "expand 32-byte k", the key, and 16 bytes of input (nonce and counter). */
function state(key: Buffer, input: Buffer): Uint32Array {
  const s = new Uint32Array(16);
  s[0] = 0x61707865; s[5] = 0x3320646e; s[10] = 0x79622d32; s[15] = 0x6b206574;
  for (let i = 0; i < 4; i++) {
    s[1 + i] = key.readUInt32LE(4 * i);
    s[11 + i] = key.readUInt32LE(16 + 4 * i);
    s[6 + i] = input.readUInt32LE(4 * i);
  }
  return s;
}

/** HSalsa20: a subkey from the key and the nonce's first 16 bytes. */
function hsalsa20(key: Buffer, nonce16: Buffer): Buffer {
  const x = state(key, nonce16);
  rounds(x);
  const out = Buffer.alloc(32);
  [0, 5, 10, 15, 6, 7, 8, 9].forEach((w, i) => out.writeUInt32LE(x[w]!, 4 * i));
  return out;
}

/** `length` bytes of XSalsa20's key stream for a 24-byte nonce. */
function keyStream(key: Buffer, nonce: Buffer, length: number): Buffer {
  const subkey = hsalsa20(key, nonce.subarray(0, 16));
  const input = Buffer.alloc(16);
  nonce.copy(input, 0, 16, 24);
  const out = Buffer.alloc(Math.ceil(length / 64) * 64);
  for (let block = 0; block * 64 < length; block++) {
    input.writeUInt32LE(block >>> 0, 8);
    input.writeUInt32LE(Math.floor(block / 2 ** 32), 12);
    const s = state(subkey, input);
    const x = Uint32Array.from(s);
    rounds(x);
    for (let i = 0; i < 16; i++) out.writeUInt32LE((x[i]! + s[i]!) >>> 0, block * 64 + 4 * i);
  }
  return out.subarray(0, length);
}

const P1305 = (1n << 130n) - 5n;

function littleEndian(bytes: Buffer): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

function poly1305(message: Buffer, key: Buffer): Buffer {
  const r = littleEndian(key.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  const s = littleEndian(key.subarray(16, 32));
  let acc = 0n;
  for (let i = 0; i < message.length; i += 16) {
    const chunk = message.subarray(i, i + 16);
    acc = ((acc + littleEndian(chunk) + (1n << BigInt(8 * chunk.length))) * r) % P1305;
  }
  let tag = (acc + s) & ((1n << 128n) - 1n);
  const out = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) {
    out[i] = Number(tag & 0xffn);
    tag >>= 8n;
  }
  return out;
}

/** tag (16 bytes) + message XOR key stream (after the 32 bytes that key Poly1305). */
export function secretboxSeal(message: Buffer, nonce: Buffer, key: Buffer): Buffer {
  const stream = keyStream(key, nonce, 32 + message.length);
  const cipher = Buffer.alloc(message.length);
  for (let i = 0; i < message.length; i++) cipher[i] = message[i]! ^ stream[32 + i]!;
  return Buffer.concat([poly1305(cipher, stream.subarray(0, 32)), cipher]);
}

/** The message, or undefined when the tag does not match. */
export function secretboxOpen(box: Buffer, nonce: Buffer, key: Buffer): Buffer | undefined {
  if (box.length < 16) return undefined;
  const cipher = box.subarray(16);
  const stream = keyStream(key, nonce, 32 + cipher.length);
  if (!timingSafeEqual(poly1305(cipher, stream.subarray(0, 32)), box.subarray(0, 16))) return undefined;
  const message = Buffer.alloc(cipher.length);
  for (let i = 0; i < cipher.length; i++) message[i] = cipher[i]! ^ stream[32 + i]!;
  return message;
}
