// The files the flags name (serving certificate and key, client CA, token file), read and checked
// before anything starts, so that a wrong path or a bad file fails the start with one line naming
// the flag and the file.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Options } from './options.js';

export interface ProvidedFiles {
  /** --tls-cert-file and --tls-private-key-file, PEM. */
  serving?: { cert: string; key: string };
  /** --client-ca-file, PEM. */
  clientCa?: string;
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

export function readProvidedFiles(options: Pick<Options, 'tlsCertFile' | 'tlsPrivateKeyFile' | 'clientCaFile' | 'tokenAuthFile'>): ProvidedFiles {
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
  // Read again (and parsed) by the authenticator; here only whether it can be.
  if (options.tokenAuthFile) read('token-auth-file', options.tokenAuthFile);
  return files;
}
