// Encryption at rest (--encryption-provider-config), as kube-apiserver 1.25: an
// apiserver.config.k8s.io/v1 EncryptionConfiguration names resources and, for each, providers in
// order — identity, aescbc, aesgcm, secretbox (kms is refused: capstan has no plugin client). The first
// provider encrypts what is written; every provider may read. An encrypted value is
// `k8s:enc:<provider>:v1:<key name>:` + the provider's bytes:
//   aescbc: a random 16-byte IV, then AES-CBC of the value with PKCS#7 padding;
//   aesgcm: a random 12-byte nonce, then AES-GCM of the value and its 16-byte tag, with the value's
//           etcd key as additional data (so a value moved to another key does not read);
//   secretbox: a random 24-byte nonce, then NaCl's secretbox of the value (secretbox.ts).
// Only the etcd store uses it, as in the reference (its transformers sit in the etcd3 store).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseYaml } from '../encoding/yaml-decode.js';
import { isObject, type JsonObject } from '../json.js';
import { secretboxOpen, secretboxSeal } from './secretbox.js';

/** Turns stored bytes into etcd's and back, for one resource. */
export interface ValueTransformer {
  toStorage(value: Buffer, etcdKey: string): Buffer;
  /** Throws with the reference's reason when no provider can read the bytes. */
  fromStorage(bytes: Buffer, etcdKey: string): Buffer;
}

/** One provider: the prefix it writes and recognises, and what it does after the prefix. */
interface PrefixedProvider {
  prefix: Buffer;
  encrypt(value: Buffer, etcdKey: string): Buffer;
  decrypt(data: Buffer, etcdKey: string): Buffer;
}

const ENCRYPTED = Buffer.from('k8s:enc:');

/** Tries the providers whose prefix the bytes have, in order, as the reference's prefix transformers. */
function prefixChoice(providers: PrefixedProvider[], noMatch: string): PrefixedProvider {
  const first = providers[0]!;
  return {
    prefix: Buffer.alloc(0),
    encrypt: (value, etcdKey) => Buffer.concat([first.prefix, first.encrypt(value, etcdKey)]),
    decrypt: (data, etcdKey) => {
      const errors: string[] = [];
      for (const p of providers) {
        if (!data.subarray(0, p.prefix.length).equals(p.prefix)) continue;
        try {
          return p.decrypt(data.subarray(p.prefix.length), etcdKey);
        } catch (err) {
          // identity (no prefix) reading encrypted bytes is not an error of its own: the next one may read them.
          if (p.prefix.length === 0) continue;
          errors.push(err instanceof Error ? err.message : String(err));
        }
      }
      if (errors.length === 1) throw new Error(errors[0]);
      if (errors.length > 1) throw new Error(`[${errors.join(', ')}]`);
      throw new Error(noMatch);
    },
  };
}

const identity: PrefixedProvider = {
  prefix: Buffer.alloc(0),
  encrypt: (value) => value,
  decrypt: (data) => {
    if (data.subarray(0, ENCRYPTED.length).equals(ENCRYPTED)) throw new Error('identity transformer tried to read encrypted data');
    return data;
  },
};

function aesCbc(key: Buffer): Pick<PrefixedProvider, 'encrypt' | 'decrypt'> {
  const algorithm = `aes-${key.length * 8}-cbc`;
  return {
    encrypt(value) {
      const iv = randomBytes(16);
      const cipher = createCipheriv(algorithm, key, iv); // PKCS#7 padding is Node's default
      return Buffer.concat([iv, cipher.update(value), cipher.final()]);
    },
    decrypt(data) {
      if (data.length < 16) throw new Error('the stored data was shorter than the required size');
      const body = data.subarray(16);
      if (body.length % 16 !== 0) throw new Error('the stored data is not a multiple of the block size');
      const decipher = createDecipheriv(algorithm, key, data.subarray(0, 16));
      decipher.setAutoPadding(false);
      const plain = Buffer.concat([decipher.update(body), decipher.final()]);
      // The padding checked as the reference checks it, for its messages.
      const pad = plain[plain.length - 1] ?? 0;
      if (pad === 0 || pad > plain.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = plain.length - pad; i < plain.length; i++) if (plain[i] !== pad) throw new Error('invalid padding on input');
      return plain.subarray(0, plain.length - pad);
    },
  };
}

function aesGcm(key: Buffer): Pick<PrefixedProvider, 'encrypt' | 'decrypt'> {
  const algorithm = `aes-${key.length * 8}-gcm` as 'aes-256-gcm';
  return {
    encrypt(value, etcdKey) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv(algorithm, key, nonce);
      cipher.setAAD(Buffer.from(etcdKey));
      return Buffer.concat([nonce, cipher.update(value), cipher.final(), cipher.getAuthTag()]);
    },
    decrypt(data, etcdKey) {
      if (data.length < 12) throw new Error('the stored data was shorter than the required size');
      if (data.length < 28) throw new Error('cipher: message authentication failed');
      const decipher = createDecipheriv(algorithm, key, data.subarray(0, 12));
      decipher.setAAD(Buffer.from(etcdKey));
      decipher.setAuthTag(data.subarray(data.length - 16));
      try {
        return Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
  };
}

function secretbox(key: Buffer): Pick<PrefixedProvider, 'encrypt' | 'decrypt'> {
  return {
    encrypt(value) {
      const nonce = randomBytes(24);
      return Buffer.concat([nonce, secretboxSeal(value, nonce, key)]);
    },
    decrypt(data) {
      if (data.length < 24 + 16) throw new Error('the stored data was shorter than the required size');
      const opened = secretboxOpen(data.subarray(24), data.subarray(0, 24), key);
      if (!opened) throw new Error('output array was not large enough for encryption');
      return opened;
    },
  };
}

class ConfigError extends Error {}

function fail(message: string): never {
  throw new ConfigError(message);
}

const PROVIDERS = ['identity', 'aescbc', 'aesgcm', 'secretbox', 'kms'] as const;

function provider(config: JsonObject, path: string): PrefixedProvider {
  const named = PROVIDERS.filter((p) => config[p] !== undefined && config[p] !== null);
  if (named.length === 0) fail(`${path}: Invalid value: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity`);
  if (named.length > 1) fail(`${path}: Invalid value: more than one provider specified in a single element, should split into different list elements`);
  const name = named[0]!;
  if (name === 'identity') return identity;
  if (name === 'kms') fail(`${path}.kms: Unsupported value: capstan has no KMS plugin client; use aescbc, aesgcm or identity`);
  const body = config[name];
  const keys = isObject(body) && Array.isArray(body['keys']) ? body['keys'] : [];
  if (keys.length === 0) fail(`${path}.${name}.keys: Required value: at least one keys is required`);
  const make = name === 'aescbc' ? aesCbc : name === 'aesgcm' ? aesGcm : secretbox;
  const lengths = name === 'secretbox' ? [32] : [16, 24, 32];
  const keyed: PrefixedProvider[] = keys.map((k: unknown, i) => {
    const at = `${path}.${name}.keys[${i}]`;
    const key = isObject(k) ? k : {};
    const keyName = typeof key['name'] === 'string' ? key['name'] : '';
    const secret = typeof key['secret'] === 'string' ? key['secret'] : '';
    if (!keyName) fail(`${at}.name: Required value: name is a mandatory field for a key`);
    if (!secret) fail(`${at}.secret: Required value: secret is a mandatory field for a key`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(secret) || secret.length % 4 !== 0) fail(`${at}.secret: Invalid value: "REDACTED": secrets must be base64 encoded`);
    const bytes = Buffer.from(secret, 'base64');
    if (!lengths.includes(bytes.length)) fail(`${at}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${bytes.length}, expected one of [${lengths.join(' ')}]`);
    return { prefix: Buffer.from(`${keyName}:`), ...make(bytes) };
  });
  const byKey = prefixChoice(keyed, `no matching key was found for the provided ${name === 'secretbox' ? 'Secretbox' : 'AES'} transformer`);
  return { prefix: Buffer.from(`k8s:enc:${name}:v1:`), encrypt: byKey.encrypt, decrypt: byKey.decrypt };
}

function transformerOf(providers: PrefixedProvider[]): ValueTransformer {
  const chosen = prefixChoice(providers, 'no matching prefix found');
  return {
    toStorage: (value, etcdKey) => chosen.encrypt(value, etcdKey),
    fromStorage: (bytes, etcdKey) => chosen.decrypt(bytes, etcdKey),
  };
}

/** The transformers of an EncryptionConfiguration by group-resource (`secrets`, `deployments.apps`). */
export type EncryptionTransformers = ReadonlyMap<string, ValueTransformer>;

/** Parses and checks a configuration's text (YAML or JSON); throws one line naming what is wrong. */
export function parseEncryptionConfig(text: string): EncryptionTransformers {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    fail(`error while parsing file: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isObject(doc)) fail('error while parsing file: not an object');
  if (doc['kind'] !== 'EncryptionConfiguration' || doc['apiVersion'] !== 'apiserver.config.k8s.io/v1') {
    fail(`got unexpected config type: ${String(doc['apiVersion'] ?? '')}, Kind=${String(doc['kind'] ?? '')} (want apiserver.config.k8s.io/v1, Kind=EncryptionConfiguration)`);
  }
  const resources = Array.isArray(doc['resources']) ? doc['resources'] : [];
  if (resources.length === 0) fail('resources: Required value: at least one resources is required');
  const out = new Map<string, ValueTransformer>();
  resources.forEach((r: unknown, i) => {
    const path = `resources[${i}]`;
    const entry = isObject(r) ? r : {};
    const names = Array.isArray(entry['resources']) ? entry['resources'].filter((n): n is string => typeof n === 'string') : [];
    const list = Array.isArray(entry['providers']) ? entry['providers'] : [];
    if (names.length === 0) fail(`${path}.resources: Required value: at least one ${path}.resources is required`);
    if (list.length === 0) fail(`${path}.providers: Required value: at least one ${path}.providers is required`);
    const providers = list.map((p: unknown, j) => provider(isObject(p) ? p : {}, `${path}.providers[${j}]`));
    const transformer = transformerOf(providers);
    // As the reference: a resource named twice keeps its first entry's providers first.
    for (const name of names) {
      const existing = out.get(name);
      out.set(name, existing ? combine(existing, transformer) : transformer);
    }
  });
  return out;
}

function combine(first: ValueTransformer, then: ValueTransformer): ValueTransformer {
  return {
    toStorage: first.toStorage,
    fromStorage: (bytes, key) => {
      try {
        return first.fromStorage(bytes, key);
      } catch {
        return then.fromStorage(bytes, key);
      }
    },
  };
}

/** Reads --encryption-provider-config; throws one line for the server's refusal to start. */
export function readEncryptionConfig(path: string): EncryptionTransformers {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`--encryption-provider-config: error opening encryption provider configuration file "${path}": ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return parseEncryptionConfig(text);
  } catch (err) {
    if (err instanceof ConfigError) throw new Error(`--encryption-provider-config ${path}: ${err.message}`);
    throw err;
  }
}
