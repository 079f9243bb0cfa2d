// The files the flags name (serving certificate and key, client CA, token file), read and checked
// before anything starts, so that a wrong path or a bad file fails the start with one line naming
// the flag and the file.
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Options } from './options.js';

export interface ProvidedFiles {
  /** --tls-cert-file and --tls-private-key-file, PEM. */
  serving?: { cert: string; key: string };
  /** --client-ca-file, PEM. */
  clientCa?: string;
  /** --service-account-signing-key-file (PEM private key) and its public key (SPKI PEM) found in --service-account-key-file. */
  serviceAccount?: { key: string; publicKey: string; otherVerificationKeys: number };
}

const REASONS: Record<string, string> = {
  ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'is a folder', ENOTDIR: 'no such file',
};

function read(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    throw new Error(`--${flag} ${path}: ${REASONS[code] ?? (err as Error).message}`);
  }
}

function certificate(flag: string, path: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new Error(`--${flag} ${path}: not a PEM certificate`);
  }
}

/** The public keys in a PEM file of public keys, certificates and private keys (as the reference's --service-account-key-file). */
function publicKeysIn(flag: string, path: string, pem: string): KeyObject[] {
  const blocks = pem.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  const keys: KeyObject[] = [];
  for (const block of blocks) {
    try {
      if (block.includes('CERTIFICATE-----')) keys.push(new X509Certificate(block).publicKey);
      else if (block.includes('PRIVATE KEY-----')) keys.push(createPublicKey(createPrivateKey(block)));
      else if (block.includes('PUBLIC KEY-----')) keys.push(createPublicKey(block));
    } catch {
      throw new Error(`--${flag} ${path}: a PEM block could not be read`);
    }
  }
  if (keys.length === 0) throw new Error(`--${flag} ${path}: no public key, certificate or private key in it`);
  return keys;
}

function serviceAccountKeys(signingFile: string, keyFiles: string[]): NonNullable<ProvidedFiles['serviceAccount']> {
  const key = read('service-account-signing-key-file', signingFile);
  let signing: KeyObject;
  try {
    signing = createPublicKey(createPrivateKey(key));
  } catch {
    throw new Error(`--service-account-signing-key-file ${signingFile}: not a PEM private key`);
  }
  const verifying = keyFiles.flatMap((file) => publicKeysIn('service-account-key-file', file, read('service-account-key-file', file)));
  if (keyFiles.length > 0 && !verifying.some((k) => k.equals(signing))) {
    throw new Error(`--service-account-key-file: none of its keys is the public key of --service-account-signing-key-file ${signingFile}`);
  }
  const publicKey = signing.export({ type: 'spki', format: 'pem' }) as string;
  return { key, publicKey, otherVerificationKeys: verifying.filter((k) => !k.equals(signing)).length };
}

export function readProvidedFiles(options: Pick<Options, 'tlsCertFile' | 'tlsPrivateKeyFile' | 'clientCaFile' | 'tokenAuthFile' | 'serviceAccountSigningKeyFile' | 'serviceAccountKeyFiles'>): ProvidedFiles {
  const files: ProvidedFiles = {};
  if (options.tlsCertFile && options.tlsPrivateKeyFile) {
    const cert = read('tls-cert-file', options.tlsCertFile);
    const key = read('tls-private-key-file', options.tlsPrivateKeyFile);
    const parsed = certificate('tls-cert-file', options.tlsCertFile, cert);
    let privateKey;
    try {
      privateKey = createPrivateKey(key);
    } catch {
      throw new Error(`--tls-private-key-file ${options.tlsPrivateKeyFile}: not a PEM private key`);
    }
    if (!parsed.checkPrivateKey(privateKey)) throw new Error(`--tls-private-key-file ${options.tlsPrivateKeyFile} is not the key of --tls-cert-file ${options.tlsCertFile}`);
    files.serving = { cert, key };
  }
  if (options.clientCaFile) {
    files.clientCa = read('client-ca-file', options.clientCaFile);
    certificate('client-ca-file', options.clientCaFile, files.clientCa);
  }
  if (options.serviceAccountSigningKeyFile) {
    files.serviceAccount = serviceAccountKeys(options.serviceAccountSigningKeyFile, options.serviceAccountKeyFiles);
  } else if (options.serviceAccountKeyFiles.length > 0) {
    throw new Error('--service-account-key-file: capstan signs with its own key unless --service-account-signing-key-file is given too');
  }
  // Read again (and parsed) by the authenticator; here only whether it can be.
  if (options.tokenAuthFile) read('token-auth-file', options.tokenAuthFile);
  return files;
}
