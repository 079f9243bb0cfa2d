// The HTTPS baseline: a bare node:https server answering the same fixed 1 KiB JSON body as
// bare-server.ts, with the serving certificate and key capstan uses (paths in argv).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

const [certFile, keyFile] = process.argv.slice(2);
if (!certFile || !keyFile) throw new Error('usage: bare-https-server.js <cert.pem> <key.pem>');
const body = Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'bare' }, data: { pad: 'x'.repeat(1024 - 74) } }));
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const port = (server.address() as AddressInfo).port;
  process.stdout.write(`listening ${port} bytes=${body.length} at https://127.0.0.1:${port}\n`);
});
