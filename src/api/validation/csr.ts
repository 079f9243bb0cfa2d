// PKCS#10 certificate requests, as far as validation needs them: the PEM block, the DER
// structure, and the signature (checked with the request's own public key), synchronously.
import { createPublicKey, verify } from 'node:crypto';

interface Tlv {
  tag: number;
  /** The whole element (header and content) and its content. */
  raw: Buffer;
  content: Buffer;
}

/** One DER element at the start of `buf`, or undefined when malformed. */
function readTlv(buf: Buffer): Tlv | undefined {
  if (buf.length < 2) return undefined;
  const tag = buf[0]!;
  let len = buf[1]!;
  let header = 2;
  if (len & 0x80) {
    const bytes = len & 0x7f;
    if (bytes === 0 || bytes > 4 || buf.length < 2 + bytes) return undefined;
    len = 0;
    for (let i = 0; i < bytes; i++) len = len * 256 + buf[2 + i]!;
    header += bytes;
  }
  if (buf.length < header + len) return undefined;
  return { tag, raw: buf.subarray(0, header + len), content: buf.subarray(header, header + len) };
}

function children(content: Buffer): Tlv[] | undefined {
  const out: Tlv[] = [];
  let rest = content;
  while (rest.length > 0) {
    const t = readTlv(rest);
    if (!t) return undefined;
    out.push(t);
    rest = rest.subarray(t.raw.length);
  }
  return out;
}

/** An OBJECT IDENTIFIER's dotted form. */
function oid(content: Buffer): string {
  const parts = [Math.floor(content[0]! / 40), content[0]! % 40];
  let n = 0;
  for (const b of content.subarray(1)) {
    n = n * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

const HASHES: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** What the reference's ParseCSR and CheckSignature report for a request, or undefined when valid. */
export function csrProblem(pem: Buffer): string | undefined {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem.toString('latin1'));
  if (!m || m[1] !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const der = Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64');
  const outer = readTlv(der);
  const parts = outer && outer.tag === 0x30 ? children(outer.content) : undefined;
  if (!parts || parts.length !== 3 || parts[0]!.tag !== 0x30 || parts[1]!.tag !== 0x30 || parts[2]!.tag !== 0x03) return 'asn1: structure error: tags don\'t match';
  const [info, algorithm, signature] = parts as [Tlv, Tlv, Tlv];
  const infoParts = children(info.content);
  const algParts = children(algorithm.content);
  if (!infoParts || infoParts.length < 3 || !algParts || algParts.length < 1 || algParts[0]!.tag !== 0x06) return 'asn1: structure error: tags don\'t match';
  const hash = HASHES[oid(algParts[0]!.content)];
  if (hash === undefined) return 'x509: cannot verify signature: algorithm unimplemented';
  try {
    const key = createPublicKey({ key: infoParts[2]!.raw, format: 'der', type: 'spki' });
    const ok = verify(hash, info.raw, { key, dsaEncoding: 'der' }, signature.content.subarray(1));
    if (ok) return undefined;
    return key.asymmetricKeyType === 'ec' ? 'x509: ECDSA verification failure' : key.asymmetricKeyType === 'ed25519' ? 'x509: Ed25519 verification failure' : 'crypto/rsa: verification error';
  } catch {
    return 'x509: failed to parse public key';
  }
}
