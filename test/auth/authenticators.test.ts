// Authentication: the token file, service-account JWTs, and the authenticator's order and groups.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  ANONYMOUS,
  INVALID_BEARER_TOKEN,
  authenticator,
  bearerToken,
  loadTokenFile,
  parseCsv,
  parseTokenFile,
  tokenAuthenticator,
  type PeerCredentials,
} from '../../src/auth/authenticators.js';
import {
  DEFAULT_ISSUER,
  TokenIssuer,
  keyIdFor,
  parseServiceAccountUsername,
  type BoundObjectRef,
  type ServiceAccountRef,
} from '../../src/auth/tokens.js';
import type { UserInfo } from '../../src/api/user.js';
import { referenceDir } from '../helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'capstan-auth-test-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function ecKeys(): { priv: string; pub: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    priv: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    pub: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

const keys = ecKeys();
const issuer = new TokenIssuer(keys.priv, keys.pub, DEFAULT_ISSUER);
const API = [DEFAULT_ISSUER];
const sa: ServiceAccountRef = { namespace: 'ref-create', name: 'builder', uid: '6f1c9c1e-0c4b-4a64-9d3c-7a3f3b1d0a11' };
const pod: BoundObjectRef = { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: 'a1b2c3d4-0000-4000-8000-000000000001' };

// ---------------------------------------------------------------------------------------

describe('token file', () => {
  it('reads token,user,uid and quoted groups', () => {
    const tokens = parseTokenFile('t1,alice,1001,"dev,ops"\nt2,bob,1002\nt3,carol,1003,admins\n');
    assert.deepEqual(tokens.get('t1'), { name: 'alice', uid: '1001', groups: ['dev', 'ops'] });
    assert.deepEqual(tokens.get('t2'), { name: 'bob', uid: '1002', groups: [] });
    assert.deepEqual(tokens.get('t3'), { name: 'carol', uid: '1003', groups: ['admins'] });
    assert.equal(tokens.size, 3);
  });

  it('skips blank lines, handles CRLF and a byte-order mark, ignores extra columns', () => {
    const tokens = parseTokenFile('\uFEFFt1,alice,1001,"a,b",extra,more\r\n\r\n\nt2,bob,1002\r\n');
    assert.deepEqual(tokens.get('t1'), { name: 'alice', uid: '1001', groups: ['a', 'b'] });
    assert.deepEqual(tokens.get('t2'), { name: 'bob', uid: '1002', groups: [] });
  });

  it('skips records with an empty token; a repeated token takes the later record', () => {
    const tokens = parseTokenFile(',nobody,0\nt1,first,1\nt1,second,2\n');
    assert.equal(tokens.size, 1);
    assert.equal(tokens.get('t1')!.name, 'second');
  });

  it('rejects a record with fewer than three columns (there is no comment syntax)', () => {
    assert.throws(() => parseTokenFile('t1,alice\n'), /at least 3 columns .* found 2/);
    assert.throws(() => parseTokenFile('# tokens for the lab\nt1,alice,1\n'), /at least 3 columns .* found 1/);
  });

  it('follows CSV quoting: doubled quotes, quoted commas and newlines, bare quotes are errors', () => {
    assert.deepEqual(parseCsv('a,"b ""c"", d",e\n"multi\nline",x,y'), [
      { line: 1, fields: ['a', 'b "c", d', 'e'] },
      { line: 2, fields: ['multi\nline', 'x', 'y'] },
    ]);
    assert.deepEqual(parseCsv(' a , b,c'), [{ line: 1, fields: [' a ', ' b', 'c'] }]);
    assert.deepEqual(parseCsv('a,,'), [{ line: 1, fields: ['a', '', ''] }]);
    assert.throws(() => parseCsv('a,b"c,d'), /bare "/);
    assert.throws(() => parseCsv('a,"b"c,d'), /extraneous or missing "/);
    assert.throws(() => parseCsv('a,"bc'), /extraneous or missing "/);
  });

  it('loads from a file', () => {
    const path = join(tmp, 'tokens.csv');
    writeFileSync(path, 'secret-admin-token,admin,admin-uid,"system:masters"\n');
    const tokens = loadTokenFile(path);
    assert.deepEqual(tokens.get('secret-admin-token'), { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] });
    assert.throws(() => loadTokenFile(join(tmp, 'absent.csv')), /ENOENT/);
  });
});

describe('bearer token header', () => {
  it('takes the token after a case-insensitive Bearer scheme', () => {
    assert.equal(bearerToken({ authorization: 'Bearer abc' }), 'abc');
    assert.equal(bearerToken({ authorization: 'bearer abc' }), 'abc');
    assert.equal(bearerToken({ authorization: 'BEARER abc' }), 'abc');
    assert.equal(bearerToken({ authorization: '  Bearer abc  ' }), 'abc');
    assert.equal(bearerToken({ authorization: 'Bearer abc def' }), 'abc');
    assert.equal(bearerToken({ Authorization: 'Bearer abc' }), 'abc');
  });

  it('ignores other schemes, a missing token and an empty header', () => {
    assert.equal(bearerToken({ authorization: 'Basic YWxpY2U6cHc=' }), undefined);
    assert.equal(bearerToken({ authorization: 'Bearer' }), undefined);
    assert.equal(bearerToken({ authorization: 'Bearer  abc' }), undefined);
    assert.equal(bearerToken({ authorization: '' }), undefined);
    assert.equal(bearerToken({}), undefined);
  });
});

// ---------------------------------------------------------------------------------------

describe('service-account tokens', () => {
  it('issues bound tokens with the reference claims', async () => {
    const now = new Date('2030-01-02T03:04:05.678Z');
    const { token, expirationTimestamp } = await issuer.issue(sa, [DEFAULT_ISSUER], 3600, undefined, now);
    const header = decodeProtectedHeader(token);
    assert.deepEqual(Object.keys(header), ['alg', 'kid']);
    assert.equal(header.alg, 'ES256');
    assert.equal(header.kid, issuer.keyInfo.kid);
    assert.match(header.kid!, /^[A-Za-z0-9_-]{43}$/);
    const claims = decodeJwt(token);
    const iat = Math.floor(now.getTime() / 1000);
    assert.deepEqual(claims, {
      aud: [DEFAULT_ISSUER],
      exp: iat + 3600,
      iat,
      iss: DEFAULT_ISSUER,
      'kubernetes.io': { namespace: 'ref-create', serviceaccount: { name: 'builder', uid: sa.uid } },
      nbf: iat,
      sub: 'system:serviceaccount:ref-create:builder',
    });
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'kubernetes.io', 'nbf', 'sub']);
    assert.equal(expirationTimestamp, '2030-01-02T04:04:05Z');
  });

  it('binds to a pod or a secret', async () => {
    const podToken = (await issuer.issue(sa, API, 600, pod)).token;
    assert.deepEqual(decodeJwt(podToken)['kubernetes.io'], {
      namespace: 'ref-create',
      pod: { name: 'web-0', uid: pod.uid },
      serviceaccount: { name: 'builder', uid: sa.uid },
    });
    const secretToken = (await issuer.issue(sa, API, 600, { kind: 'Secret', name: 's1', uid: 'sec-uid' })).token;
    assert.deepEqual((decodeJwt(secretToken)['kubernetes.io'] as Record<string, unknown>).secret, { name: 's1', uid: 'sec-uid' });
  });

  it('verifies a good token into the service-account user', async () => {
    const { token } = await issuer.issue(sa, API, 3600);
    const v = await issuer.verify(token, API);
    assert.ok(v && v !== 'invalid');
    assert.deepEqual(v.user, {
      name: 'system:serviceaccount:ref-create:builder',
      uid: sa.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ref-create', 'system:authenticated'],
    });
    assert.deepEqual(v.serviceAccount, sa);
    assert.equal(v.legacy, false);
    assert.equal(v.bound, undefined);
    assert.deepEqual(v.audiences, API);
    assert.ok(v.expiresAt instanceof Date);
  });

  it('adds the pod name and uid as extra for pod-bound tokens', async () => {
    const { token } = await issuer.issue(sa, API, 3600, pod);
    const v = await issuer.verify(token, API);
    assert.ok(v && v !== 'invalid');
    assert.deepEqual(v.user.extra, {
      'authentication.kubernetes.io/pod-name': ['web-0'],
      'authentication.kubernetes.io/pod-uid': [pod.uid],
    });
    assert.deepEqual(v.bound, pod);
  });

  it('rejects an expired token, allowing a minute of clock skew', async () => {
    const longAgo = new Date(Date.now() - 2 * 3600_000);
    const expired = (await issuer.issue(sa, API, 3600, undefined, longAgo)).token;
    assert.equal(await issuer.verify(expired, API), 'invalid');
    const justExpired = (await issuer.issue(sa, API, 600, undefined, new Date(Date.now() - 630_000))).token;
    assert.notEqual(await issuer.verify(justExpired, API), 'invalid');
  });

  it('rejects a token not yet valid', async () => {
    const future = (await issuer.issue(sa, API, 600, undefined, new Date(Date.now() + 3600_000))).token;
    assert.equal(await issuer.verify(future, API), 'invalid');
  });

  it('rejects a token for another audience; accepts one audience of several', async () => {
    const { token } = await issuer.issue(sa, ['vault'], 3600);
    assert.equal(await issuer.verify(token, API), 'invalid');
    const v = await issuer.verify(token, ['other', 'vault'], API);
    assert.ok(v && v !== 'invalid');
    assert.deepEqual(v.audiences, ['vault']);
    const multi = (await issuer.issue(sa, ['vault', DEFAULT_ISSUER], 3600)).token;
    assert.ok(typeof (await issuer.verify(multi, API)) === 'object');
  });

  it('rejects a token signed by another key, and a tampered one', async () => {
    const other = ecKeys();
    const forged = (await new TokenIssuer(other.priv, other.pub, DEFAULT_ISSUER).issue(sa, API, 3600)).token;
    assert.equal(await issuer.verify(forged, API), 'invalid');

    const { token } = await issuer.issue(sa, API, 3600);
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    claims['kubernetes.io'].serviceaccount.name = 'admin';
    const tampered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    assert.equal(await issuer.verify(tampered, API), 'invalid');
    assert.equal(await issuer.verify(`${h}.${p}.`, API), 'invalid');
  });

  it('returns undefined for garbage and for tokens of other issuers', async () => {
    assert.equal(await issuer.verify('bogus-token-for-fixtures', API), undefined);
    assert.equal(await issuer.verify('a.b.c', API), undefined);
    assert.equal(await issuer.verify('', API), undefined);
    const foreign = (await new TokenIssuer(keys.priv, keys.pub, 'https://elsewhere.example').issue(sa, API, 3600)).token;
    assert.equal(await issuer.verify(foreign, API), undefined);
  });

  it('accepts every configured issuer and issues with the first', async () => {
    const multi = new TokenIssuer(keys.priv, keys.pub, ['https://new.example', DEFAULT_ISSUER]);
    const old = (await issuer.issue(sa, API, 3600)).token;
    assert.equal(typeof (await multi.verify(old, API)), 'object');
    const fresh = (await multi.issue(sa, API, 3600)).token;
    assert.equal(decodeJwt(fresh).iss, 'https://new.example');
    assert.equal(await issuer.verify(fresh, API), undefined);
  });

  it('issues and verifies legacy secret-based tokens', async () => {
    const token = await issuer.issueLegacy(sa, 'builder-token-x7k2p');
    const claims = decodeJwt(token);
    assert.deepEqual(claims, {
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': 'ref-create',
      'kubernetes.io/serviceaccount/secret.name': 'builder-token-x7k2p',
      'kubernetes.io/serviceaccount/service-account.name': 'builder',
      'kubernetes.io/serviceaccount/service-account.uid': sa.uid,
      sub: 'system:serviceaccount:ref-create:builder',
    });
    const v = await issuer.verify(token, API);
    assert.ok(v && v !== 'invalid');
    assert.equal(v.legacy, true);
    assert.equal(v.secretName, 'builder-token-x7k2p');
    assert.deepEqual(v.serviceAccount, sa);
    assert.equal(v.user.name, 'system:serviceaccount:ref-create:builder');
    assert.equal(v.user.extra, undefined);
    assert.equal(v.expiresAt, undefined);
    // A legacy token carries only the API audiences: a review for another audience fails.
    assert.equal(await issuer.verify(token, ['vault'], API), 'invalid');
    // Another key's legacy token is not ours to accept.
    const other = ecKeys();
    assert.equal(await new TokenIssuer(other.priv, other.pub).verify(token, API), 'invalid');
  });

  it('signs with RS256 for an RSA key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsa = new TokenIssuer(
      privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
      publicKey.export({ type: 'spki', format: 'pem' }) as string,
    );
    const { token } = await rsa.issue(sa, API, 3600);
    assert.equal(decodeProtectedHeader(token).alg, 'RS256');
    assert.equal(decodeProtectedHeader(token).kid, keyIdFor(publicKey));
    assert.equal(typeof (await rsa.verify(token, API)), 'object');
    assert.equal(await issuer.verify(token, API), 'invalid');
  });

  it('refuses a public key that does not match the private key', () => {
    assert.throws(() => new TokenIssuer(keys.priv, ecKeys().pub), /does not match/);
  });

  it('parses service-account user names', () => {
    assert.deepEqual(parseServiceAccountUsername('system:serviceaccount:kube-system:default'), { namespace: 'kube-system', name: 'default' });
    assert.equal(parseServiceAccountUsername('system:serviceaccount:onlyns'), undefined);
    assert.equal(parseServiceAccountUsername('alice'), undefined);
  });
});

// ---------------------------------------------------------------------------------------

describe('authenticator', () => {
  const tokens = parseTokenFile('file-token,alice,1001,"dev,ops"\nguest-token,guest,1002,system:unauthenticated\n');
  const calls: unknown[][] = [];
  const exists = new Set([sa.uid]);
  const options = {
    tokens,
    tokenIssuer: issuer,
    apiAudiences: API,
    anonymous: true,
    serviceAccountExists: (ref: ServiceAccountRef, bound?: BoundObjectRef, secretName?: string) => {
      calls.push([ref, bound, secretName]);
      return exists.has(ref.uid);
    },
  };
  const authenticate = authenticator(options);
  const bearer = (token: string): PeerCredentials => ({ headers: { authorization: `Bearer ${token}` } });
  const adminCert = { subject: { CN: 'kubernetes-admin', O: 'system:masters' } };

  it('takes a client certificate first: CN is the user, O the groups', async () => {
    const { token } = await issuer.issue(sa, API, 3600);
    assert.deepEqual(await authenticate({ headers: { authorization: `Bearer ${token}` }, clientCertificate: adminCert }), {
      name: 'kubernetes-admin',
      groups: ['system:masters', 'system:authenticated'],
    });
    assert.deepEqual(await authenticate({ headers: {}, clientCertificate: { subject: { CN: 'jane', O: ['a', 'b'] } } }), {
      name: 'jane',
      groups: ['a', 'b', 'system:authenticated'],
    });
    assert.deepEqual(await authenticate({ headers: {}, clientCertificate: { subject: { CN: 'node' } } }), {
      name: 'node',
      groups: ['system:authenticated'],
    });
  });

  it('a certificate without a common name does not authenticate', async () => {
    assert.deepEqual(await authenticate({ headers: {}, clientCertificate: { subject: { O: 'x' } } }), ANONYMOUS);
    assert.deepEqual(await authenticate({ ...bearer('file-token'), clientCertificate: { subject: { CN: '' } } }), {
      name: 'alice',
      uid: '1001',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
  });

  it('then the token file, adding system:authenticated', async () => {
    assert.deepEqual(await authenticate(bearer('file-token')), { name: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] });
    // The stored user is not changed by authenticating.
    assert.deepEqual(tokens.get('file-token')!.groups, ['dev', 'ops']);
    // A user already in system:unauthenticated is left as it is.
    assert.deepEqual(await authenticate(bearer('guest-token')), { name: 'guest', uid: '1002', groups: ['system:unauthenticated'] });
  });

  it('then service-account tokens, checking the account still exists', async () => {
    calls.length = 0;
    const { token } = await issuer.issue(sa, API, 3600, pod);
    const user = await authenticate(bearer(token));
    assert.deepEqual(user, {
      name: 'system:serviceaccount:ref-create:builder',
      uid: sa.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ref-create', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/pod-name': ['web-0'], 'authentication.kubernetes.io/pod-uid': [pod.uid] },
    });
    assert.deepEqual(calls, [[sa, pod, undefined]]);

    const legacy = await issuer.issueLegacy(sa, 'builder-token-abcde');
    assert.equal((await authenticate(bearer(legacy))) !== 'invalid', true);
    assert.deepEqual(calls.at(-1), [sa, undefined, 'builder-token-abcde']);

    const gone = await issuer.issue({ ...sa, uid: 'deleted-and-recreated' }, API, 3600);
    assert.equal(await authenticate(bearer(gone.token)), 'invalid');
  });

  it('a bad bearer token is 401 even with anonymous on', async () => {
    const f = JSON.parse(readFileSync(join(referenceDir, 'errors/unauthorized-bogus-token.json'), 'utf8'));
    const header = f.request.headers.Authorization as string;
    assert.equal(await authenticate({ headers: { authorization: header } }), 'invalid');
    assert.equal(await authenticate(bearer('not.a.jwt')), 'invalid');
    const wrongAudience = await issuer.issue(sa, ['vault'], 3600);
    assert.equal(await authenticate(bearer(wrongAudience.token)), 'invalid');
    const other = ecKeys();
    const forged = await new TokenIssuer(other.priv, other.pub).issue(sa, API, 3600);
    assert.equal(await authenticate(bearer(forged.token)), 'invalid');
  });

  it('nothing presented is anonymous: system:anonymous in system:unauthenticated only', async () => {
    const user = (await authenticate({ headers: {} })) as UserInfo;
    assert.deepEqual(user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
    assert.deepEqual(ANONYMOUS, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
    // Another scheme is not a bearer credential.
    assert.deepEqual(await authenticate({ headers: { authorization: 'Basic YTpi' } }), ANONYMOUS);
    // The anonymous fixtures name this user in their Forbidden messages.
    const f = JSON.parse(readFileSync(join(referenceDir, 'errors/anonymous-list-namespaces.json'), 'utf8'));
    assert.match(f.response.body.message, new RegExp(`User "${user.name}"`));
  });

  it('with anonymous off, nothing presented is undefined and a bad token still invalid', async () => {
    const strict = authenticator({ ...options, anonymous: false });
    assert.equal(await strict({ headers: {} }), undefined);
    assert.equal(await strict(bearer('nope')), 'invalid');
    assert.deepEqual(await strict(bearer('file-token')), { name: 'alice', uid: '1001', groups: ['dev', 'ops', 'system:authenticated'] });
  });

  it('an untrusted client certificate fails unless a bearer token authenticates', async () => {
    assert.equal(await authenticate({ headers: {}, clientCertificateRejected: true } as PeerCredentials), 'invalid');
    assert.deepEqual(await authenticate({ ...bearer('file-token'), clientCertificateRejected: true } as PeerCredentials), {
      name: 'alice',
      uid: '1001',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
  });

  it('without a token issuer or token file every bearer token is invalid', async () => {
    const bare = authenticator({ apiAudiences: API, anonymous: true });
    const { token } = await issuer.issue(sa, API, 3600);
    assert.equal(await bare(bearer(token)), 'invalid');
    assert.deepEqual(await bare({ headers: {} }), ANONYMOUS);
  });
});

describe('tokenAuthenticator (TokenReview)', () => {
  const review = tokenAuthenticator({ tokens: parseTokenFile('file-token,alice,1001\n'), tokenIssuer: issuer, apiAudiences: API, anonymous: true });

  it('answers "invalid bearer token" for the fixture token', async () => {
    const f = JSON.parse(readFileSync(join(referenceDir, 'create/authentication.k8s.io-v1-tokenreviews.json'), 'utf8'));
    assert.equal(f.response.body.status.error, INVALID_BEARER_TOKEN);
    assert.deepEqual(await review(f.request.body.spec.token), { authenticated: false, error: INVALID_BEARER_TOKEN });
  });

  it('reports the audiences a token was accepted for', async () => {
    const { token } = await issuer.issue(sa, ['vault', DEFAULT_ISSUER], 3600);
    const r = await review(token, ['vault']);
    assert.ok(r.authenticated);
    assert.deepEqual(r.audiences, ['vault']);
    const d = await review(token);
    assert.ok(d.authenticated);
    assert.deepEqual(d.audiences, API);
  });

  it('static tokens are good for the API audiences only', async () => {
    const ok = await review('file-token');
    assert.ok(ok.authenticated);
    assert.deepEqual(ok.audiences, API);
    assert.deepEqual(await review('file-token', ['vault']), { authenticated: false, error: INVALID_BEARER_TOKEN });
  });
});
