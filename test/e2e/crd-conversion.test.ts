// CRD versions and conversion end to end: a CRD with v1 (storage) and v2 (a field renamed) whose
// conversion is a real HTTPS webhook on loopback (certificates from a throwaway CA). Objects written
// in one version are read, listed and watched in the other; the webhook down or answering nonsense
// gives the reference's errors; a deprecated version warns; `None` conversion read by kubectl.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureServingMaterial } from '../../src/server/certs.js';
import type { RunningServer } from '../../src/server/server.js';
import { call, memoryServer, until } from '../helpers.js';
import { type Capstan, ok, startCapstan, stopCapstan } from './harness.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- reviews and objects are checked field by field */
type Review = { apiVersion: string; kind: string; request: { uid: string; desiredAPIVersion: string; objects: any[] } };
/** How the webhook answers: a converted review, or something broken. */
type Mode = 'convert' | 'wrong-uid' | 'failure' | 'wrong-version' | 'renamed' | 'two-objects' | 'not-json';

const GROUP = 'conv.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const path = (version: string, name = '') => `/apis/${GROUP}/${version}/namespaces/default/widgets${name ? `/${name}` : ''}`;

/** v1 spec.size is v2 spec.dimension; everything else as is. */
function convertObject(obj: any, desired: string): any {
  const out = structuredClone(obj);
  const spec = out.spec ?? {};
  if (desired.endsWith('/v2') && 'size' in spec) {
    spec.dimension = spec.size;
    delete spec.size;
  } else if (!desired.endsWith('/v2') && 'dimension' in spec) {
    spec.size = spec.dimension;
    delete spec.dimension;
  }
  out.apiVersion = desired;
  return out;
}

class ConversionWebhook {
  readonly reviews: Review[] = [];
  /** AdmissionReviews sent to /admit (the same server plays a validating admission webhook, allowing all). */
  readonly admissions: any[] = [];
  mode: Mode = 'convert';
  private server!: Server;
  port = 0;

  /** Listens on loopback: a new port the first time, the same one when started again. */
  async start(key: string, cert: string): Promise<void> {
    this.server = createServer({ key, cert }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.url?.startsWith('/admit')) {
      const admission = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      this.admissions.push(admission);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ apiVersion: admission.apiVersion, kind: 'AdmissionReview', response: { uid: admission.request.uid, allowed: true } }));
      return;
    }
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
    this.reviews.push(review);
    const { uid, desiredAPIVersion, objects } = review.request;
    const converted = objects.map((o) => convertObject(o, desiredAPIVersion));
    const ok = { uid, convertedObjects: converted, result: { status: 'Success' } };
    const answers: Record<Mode, unknown> = {
      convert: { apiVersion: review.apiVersion, kind: 'ConversionReview', response: ok },
      'wrong-uid': { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { ...ok, uid: 'not-the-uid' } },
      failure: { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid, result: { status: 'Failure', message: 'cannot convert widgets today' } } },
      'wrong-version': { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { ...ok, convertedObjects: converted.map((o) => ({ ...o, apiVersion: `${GROUP}/v9` })) } },
      renamed: { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { ...ok, convertedObjects: converted.map((o) => ({ ...o, metadata: { ...o.metadata, name: 'other' } })) } },
      'two-objects': { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { ...ok, convertedObjects: [...converted, ...converted] } },
      'not-json': undefined,
    };
    if (this.mode === 'not-json') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('<html>');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answers[this.mode]));
  }
}

function widgetCrd(conversion: unknown, group = GROUP) {
  const schema = (field: string) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [field]: { type: 'integer' }, color: { type: 'string' } } } } } });
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group, scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema('size') },
        { name: 'v2', served: true, storage: false, schema: schema('dimension') },
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: schema('size') },
      ],
      conversion,
    },
  };
}

async function established(server: RunningServer, name: string, version: string, group = GROUP): Promise<void> {
  await until(`${name} served`, async () => {
    const r = await call(server.url, 'GET', `/apis/${group}/${version}`);
    return r.status === 200 ? true : undefined;
  }, 5_000);
}

/** The events of a watch, read until `enough` says so (or the stream ends). */
function watchEvents(base: string, urlPath: string, enough: (events: any[]) => boolean, timeoutMs = 5_000): Promise<{ events: any[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const events: any[] = [];
    let buffered = '';
    const req = request(new URL(urlPath, base), { headers: { Accept: 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line) events.push(JSON.parse(line));
        }
        if (enough(events)) {
          clearTimeout(timer);
          req.destroy();
          resolve({ events, ended: false });
        }
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ events, ended: true });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`watch ${urlPath}: ${events.length} events after ${timeoutMs} ms: ${JSON.stringify(events)}`));
    }, timeoutMs);
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
    req.end();
  });
}

describe('CRD conversion webhook', () => {
  let server: RunningServer;
  let dir: string;
  let caBundle: string;
  const hook = new ConversionWebhook();
  const req = (method: string, p: string, body?: unknown, headers?: Record<string, string>) => call(server.url, method, p, { body, headers });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-conversion-'));
    const material = await ensureServingMaterial(dir, []);
    caBundle = Buffer.from(material.caCert).toString('base64');
    await hook.start(material.serverKey, material.serverCert);
    server = await memoryServer();
    const crd = widgetCrd({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `https://127.0.0.1:${hook.port}/convert`, caBundle } } });
    const created = await req('POST', CRDS, crd);
    assert.equal(created.status, 201, created.text);
    await established(server, 'widgets', 'v2');
  });
  after(async () => {
    await server.close();
    await hook.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates in v2, stores v1, and reads, lists and watches in either version', { timeout: 20_000 }, async () => {
    hook.mode = 'convert';
    hook.reviews.length = 0;
    const created = await req('POST', path('v2'), { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'w1', labels: { app: 'demo' } }, spec: { dimension: 3, color: 'red' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(created.json.spec, { dimension: 3, color: 'red' });
    // The write went to the storage version through the webhook, and the answer came back through it.
    const desired = hook.reviews.map((r) => r.request.desiredAPIVersion);
    assert.deepEqual(desired.slice(0, 2), [`${GROUP}/v1`, `${GROUP}/v2`]);
    const first = hook.reviews[0]!;
    assert.equal(first.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(first.kind, 'ConversionReview');
    assert.match(first.request.uid, /^[0-9a-f-]{36}$/);
    assert.equal(first.request.objects.length, 1);
    assert.equal(first.request.objects[0].apiVersion, `${GROUP}/v2`);

    const v1 = await req('GET', path('v1', 'w1'));
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.json.apiVersion, `${GROUP}/v1`);
    assert.deepEqual(v1.json.spec, { size: 3, color: 'red' });
    const v2 = await req('GET', path('v2', 'w1'));
    assert.deepEqual(v2.json.spec, { dimension: 3, color: 'red' });
    assert.equal(v2.json.metadata.uid, v1.json.metadata.uid);
    assert.deepEqual(v2.json.metadata.labels, { app: 'demo' });

    // Created in v1, listed in v2: each item converted.
    assert.equal((await req('POST', path('v1'), { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 5 } })).status, 201);
    const list = await req('GET', path('v2'));
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.apiVersion, `${GROUP}/v2`);
    assert.deepEqual(list.json.items.map((i: any) => [i.metadata.name, i.spec]), [['w1', { dimension: 3, color: 'red' }], ['w2', { dimension: 5 }]]);

    // A watch in v2 sees the current objects and a change made in v1, converted.
    const watching = watchEvents(server.url, `${path('v2')}?watch=1`, (events) => events.some((e) => e.type === 'MODIFIED'));
    await new Promise((r) => setTimeout(r, 500)); // the watch has sent its current objects
    const patched = await req('PATCH', path('v1', 'w2'), { spec: { size: 6 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.text);
    const { events } = await watching;
    assert.deepEqual(events.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec.dimension]), [
      ['ADDED', `${GROUP}/v2`, 'w1', 3], ['ADDED', `${GROUP}/v2`, 'w2', 5], ['MODIFIED', `${GROUP}/v2`, 'w2', 6],
    ]);

    // A merge patch in v2 is made on the v2 object and stored back in v1.
    const p2 = await req('PATCH', path('v2', 'w1'), { spec: { dimension: 4 } }, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(p2.status, 200, p2.text);
    assert.deepEqual(p2.json.spec, { dimension: 4, color: 'red' });
    assert.deepEqual((await req('GET', path('v1', 'w1'))).json.spec, { size: 4, color: 'red' });
  });

  it('an admission webhook for v1 only (matchPolicy Equivalent) sees a v2 write converted by the conversion webhook', { timeout: 20_000 }, async () => {
    hook.mode = 'convert';
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'widgets-v1' },
      webhooks: [{
        name: 'widgets.conv.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', matchPolicy: 'Equivalent',
        rules: [{ apiGroups: [GROUP], apiVersions: ['v1'], resources: ['widgets'], operations: ['CREATE'] }],
        clientConfig: { url: `https://127.0.0.1:${hook.port}/admit`, caBundle },
      }],
    };
    assert.equal((await req('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', config)).status, 201);
    let n = 0;
    const admitted = await until('the admission webhook is called', async () => {
      const name = `eq-${n++}`;
      const created = await req('POST', path('v2'), { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name }, spec: { dimension: 7 } });
      assert.equal(created.status, 201, created.text);
      return hook.admissions.find((a) => a.request.name === name);
    }, 5_000);
    const request = admitted.request;
    assert.deepEqual(request.kind, { group: GROUP, version: 'v1', kind: 'Widget' });
    assert.deepEqual(request.requestKind, { group: GROUP, version: 'v2', kind: 'Widget' });
    assert.equal(request.object.apiVersion, `${GROUP}/v1`);
    assert.deepEqual(request.object.spec, { size: 7 }, 'converted by the conversion webhook, not only relabelled');
    assert.equal((await req('DELETE', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/widgets-v1')).status, 200);
  });

  it('answers the reference errors when the webhook fails or answers nonsense', { timeout: 20_000 }, async () => {
    hook.mode = 'convert';
    await req('POST', path('v1'), { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w3' }, spec: { size: 1 } });
    const source = `${GROUP}/v1, Kind=Widget`;
    const expectRead = async (mode: Mode, message: string | RegExp) => {
      hook.mode = mode;
      const r = await req('GET', path('v2', 'w3'));
      assert.equal(r.status, 500, `${mode}: ${r.text}`);
      assert.equal(r.json.reason, undefined, r.text);
      if (typeof message === 'string') assert.equal(r.json.message, message);
      else assert.match(r.json.message, message);
    };
    await expectRead('wrong-uid', /^conversion webhook for conv\.example\.com\/v1, Kind=Widget failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"$/);
    await expectRead('failure', `conversion webhook for ${source} failed: cannot convert widgets today`);
    await expectRead('wrong-version', `conversion webhook for ${source} returned invalid object at index 0: invalid groupVersion (expected ${GROUP}/v2, received ${GROUP}/v9)`);
    await expectRead('renamed', `conversion webhook for ${source} returned invalid object: must have the same name: w3 != other`);
    await expectRead('two-objects', `conversion webhook for ${source} returned 2 objects, expected 1`);
    await expectRead('not-json', `conversion webhook for ${source} failed: invalid character '<' looking for beginning of value`);

    // A list fails whole; the same object read in its storage version needs no webhook.
    hook.mode = 'failure';
    const list = await req('GET', path('v2'));
    assert.equal(list.status, 500, list.text);
    assert.match(list.json.message, /^conversion webhook for conv\.example\.com\/v1, Kind=Widget failed: cannot convert widgets today$/);
    assert.equal((await req('GET', path('v1', 'w3'))).status, 200);

    // A write in v2 cannot be decoded into the storage version: 400, nothing stored.
    const bad = await req('POST', path('v2'), { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: 'w4' }, spec: { dimension: 1 } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json.reason, 'BadRequest');
    assert.equal(bad.json.message, `Widget in version "v2" cannot be handled as a Widget: conversion webhook for ${GROUP}/v2, Kind=Widget failed: cannot convert widgets today`);
    assert.equal((await req('GET', path('v1', 'w4'))).status, 404);

    // The webhook down: the transport's error, as the reference's client words it.
    await hook.stop();
    await new Promise((r) => setTimeout(r, 100)); // the server's closed connections leave the client's pool
    try {
      const down = await req('GET', path('v2', 'w3'));
      assert.equal(down.status, 500, down.text);
      assert.equal(down.json.message, `conversion webhook for ${source} failed: Post "https://127.0.0.1:${hook.port}/convert": dial tcp 127.0.0.1:${hook.port}: connect: connection refused`);
      // A watch in the other version ends when an event cannot be converted.
      const watched = await watchEvents(server.url, `${path('v2')}?watch=1`, () => false);
      assert.equal(watched.ended, true);
      assert.deepEqual(watched.events, []);
    } finally {
      await hook.start(...(await materialAgain(dir)));
    }
  });

  it('warns on every answer of a deprecated version', { timeout: 10_000 }, async () => {
    hook.mode = 'convert';
    const r = await req('GET', path('v1beta1'));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers['warning'], `299 - "${GROUP}/v1beta1 Widget is deprecated"`);
    const items = r.json.items as any[];
    assert.equal(r.json.apiVersion, `${GROUP}/v1beta1`);
    assert.ok(items.length > 0 && items.every((i) => i.spec.size !== undefined && i.spec.dimension === undefined), r.text);
    // A CRD's own deprecationWarning replaces the default one.
    const crd = (await req('GET', `${CRDS}/widgets.${GROUP}`)).json;
    crd.spec.versions[2].deprecationWarning = 'widgets/v1beta1 goes away in 2.0; use v2';
    assert.equal((await req('PUT', `${CRDS}/widgets.${GROUP}`, crd)).status, 200);
    const warned = await until('new warning served', async () => {
      const again = await req('GET', path('v1beta1'));
      return again.headers['warning'] === '299 - "widgets/v1beta1 goes away in 2.0; use v2"' ? again : undefined;
    }, 5_000);
    assert.equal(warned.status, 200);
  });

  it('sends v1beta1 reviews when the CRD lists only v1beta1', { timeout: 10_000 }, async () => {
    const crd = (await req('GET', `${CRDS}/widgets.${GROUP}`)).json;
    crd.spec.conversion.webhook.conversionReviewVersions = ['v1beta1'];
    assert.equal((await req('PUT', `${CRDS}/widgets.${GROUP}`, crd)).status, 200);
    hook.mode = 'convert';
    await until('v1beta1 reviews sent', async () => {
      hook.reviews.length = 0;
      const r = await req('GET', path('v2', 'w1'));
      return r.status === 200 && hook.reviews.at(-1)?.apiVersion === 'apiextensions.k8s.io/v1beta1' ? r : undefined;
    }, 5_000);
    // v1beta1 answers were never checked for their uid, and still are not.
    hook.mode = 'wrong-uid';
    const r = await req('GET', path('v2', 'w1'));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.spec.dimension, 4);
  });
});

/** The webhook's serving material again (the same files), to start it again. */
async function materialAgain(dir: string): Promise<[string, string]> {
  const material = await ensureServingMaterial(dir, []);
  return [material.serverKey, material.serverCert];
}

describe('CRD None conversion with kubectl', () => {
  let dir: string;
  let capstan: Capstan;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-none-'));
    capstan = await startCapstan(join(dir, 'data'));
  });
  after(async () => {
    await stopCapstan(capstan);
    await rm(dir, { recursive: true, force: true });
  });

  it('reads an object in both versions, only apiVersion changed', { timeout: 60_000 }, async () => {
    const crd = widgetCrd({ strategy: 'None' }, 'none.example.com');
    // Under None both versions share one schema shape.
    for (const v of crd.spec.versions) v.schema = widgetCrd({}).spec.versions[0]!.schema;
    await ok(capstan.kubeconfig, ['apply', '-f', '-'], JSON.stringify(crd));
    await ok(capstan.kubeconfig, ['wait', '--for=condition=Established', '--timeout=10s', 'crd/widgets.none.example.com']);
    await ok(capstan.kubeconfig, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'none.example.com/v2', kind: 'Widget', metadata: { name: 'n1', namespace: 'default' }, spec: { size: 2, color: 'blue' } }));
    const inV1 = JSON.parse(await ok(capstan.kubeconfig, ['get', 'widgets.v1.none.example.com', 'n1', '-o', 'json']));
    const inV2 = JSON.parse(await ok(capstan.kubeconfig, ['get', 'widgets.v2.none.example.com', 'n1', '-o', 'json']));
    assert.equal(inV1.apiVersion, 'none.example.com/v1');
    assert.equal(inV2.apiVersion, 'none.example.com/v2');
    assert.deepEqual(inV1.spec, { size: 2, color: 'blue' });
    assert.deepEqual(inV2.spec, inV1.spec);
    assert.equal(inV2.metadata.uid, inV1.metadata.uid);
  });
});
