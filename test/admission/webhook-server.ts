// An HTTPS admission webhook server for tests: answers AdmissionReviews by path (allowed when no
// handler is set), recording every review it gets.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServingMaterial } from '../../src/server/certs.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- reviews are checked field by field */
export type Review = { apiVersion: string; kind: string; request: any };
/** The body to answer with, or undefined when the handler wrote the response itself. */
export type Handler = (review: Review, res: ServerResponse) => unknown | Promise<unknown>;

/** A review's answer: `response` with the review's uid. */
export function answer(review: Review, response: Record<string, unknown>): unknown {
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } };
}

/** An HTTPS server answering reviews by path, recording every review it gets. */
export class WebhookServer {
  readonly calls = new Map<string, Review[]>();
  private readonly handlers = new Map<string, Handler>();
  private server!: Server;
  port = 0;

  async start(material: ServingMaterial): Promise<void> {
    this.server = createServer({ key: material.serverKey, cert: material.serverCert }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  on(path: string, handler: Handler): string {
    this.handlers.set(path, handler);
    return `https://127.0.0.1:${this.port}${path}`;
  }

  reviews(path: string): Review[] {
    return this.calls.get(path) ?? [];
  }

  reset(): void {
    this.calls.clear();
    this.handlers.clear();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'https://x');
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
    (review as any).query = url.search;
    const list = this.calls.get(url.pathname) ?? [];
    list.push(review);
    this.calls.set(url.pathname, list);
    const handler = this.handlers.get(url.pathname);
    const body = handler ? await handler(review, res) : answer(review, { allowed: true });
    if (body === undefined || res.writableEnded) return;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  }
}
