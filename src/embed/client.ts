// The few requests startCapstan makes of the server it started, as its admin: HTTPS with the
// admin client certificate, JSON in and out, one kept-alive connection.
import { Agent, request } from 'node:https';

export interface ClientTls {
  ca: string;
  cert: string;
  key: string;
}

export interface Answer {
  status: number;
  json: Record<string, unknown>;
}

/** A request the server refused: its Status message, and the code. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export class ApiClient {
  private readonly agent: Agent;

  constructor(private readonly base: string, tls: ClientTls) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 4, ...tls });
  }

  /** Resolves with 2xx answers; rejects with ApiError (the Status message) otherwise. */
  request(method: string, path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.base), {
        method,
        agent: this.agent,
        headers: { Accept: 'application/json', ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // Not JSON (a 404 page): the text is the message.
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve({ status, json });
          else reject(new ApiError(status, `${method} ${path}: ${status} ${typeof json['message'] === 'string' ? json['message'] : text.trim()}`));
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
