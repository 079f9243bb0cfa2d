// Service-account issuer discovery (GA in 1.21): /.well-known/openid-configuration and
// /openid/v1/jwks, so that relying parties (cloud workload identity, Vault, …) can verify the
// tokens capstan signs. Both are made once, as the reference pre-renders them; read by anyone
// RBAC allows (the bootstrap policy's system:service-account-issuer-discovery binds every service
// account).
import type { KeyObject } from 'node:crypto';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

export interface IssuerDiscovery {
  /** The OIDC provider configuration (application/json). */
  configuration: Buffer;
  /** The JSON Web Key Set (application/jwk-set+json). */
  keySet: Buffer;
}

export interface SigningKey {
  alg: string;
  kid: string;
  publicKey: KeyObject;
}

/** The key as a public JWK, its members in the reference's order (go-jose's). */
function publicJwk(key: SigningKey): Record<string, string> {
  const jwk = key.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const out: Record<string, string> = { use: 'sig', kty: jwk['kty']!, kid: key.kid };
  if (jwk['crv']) out['crv'] = jwk['crv'];
  out['alg'] = key.alg;
  for (const member of ['x', 'y', 'n', 'e']) if (jwk[member]) out[member] = jwk[member];
  return out;
}

/**
 * The two documents, or why they cannot be served (the reference then serves neither and logs
 * why): the issuer must be an https URL without query or fragment; the JWKS URI defaults to
 * https://<external address>/openid/v1/jwks.
 */
export function issuerDiscovery(issuer: string, jwksUri: string | undefined, externalAddress: string, key: SigningKey): IssuerDiscovery | { unavailable: string } {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return { unavailable: `issuer URL must use https scheme, got: ${issuer}` };
  }
  if (url.protocol !== 'https:') return { unavailable: `issuer URL must use https scheme, got: ${issuer}` };
  if (url.search) return { unavailable: `issuer URL may not include a query, got: ${issuer}` };
  if (url.hash) return { unavailable: `issuer URL may not include a fragment, got: ${issuer}` };
  const configuration = {
    issuer,
    jwks_uri: jwksUri ?? `https://${externalAddress}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [key.alg],
  };
  return {
    configuration: Buffer.from(JSON.stringify(configuration)),
    keySet: Buffer.from(JSON.stringify({ keys: [publicJwk(key)] })),
  };
}
