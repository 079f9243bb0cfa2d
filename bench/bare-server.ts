// The baseline: a bare node:http server answering a fixed 1 KiB JSON body.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'bare' }, data: { pad: 'x'.repeat(1024 - 74) } }));
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port} bytes=${body.length}\n`);
});
