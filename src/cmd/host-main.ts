// The shared host of the kube-apiserver launchers of one user and one capstan build: one process
// that runs every test environment's server (each on its own port, with its own store), so that a
// start costs what a server costs (a few tens of milliseconds, about a megabyte) and not what a
// Node process that loads capstan costs (a second of CPU, a hundred megabytes). The launcher
// (kube-apiserver.ts) stays the process envtest started and stops: it relays its command line
// here, prints what the server says, and asks for the stop on SIGTERM. A launcher that goes away
// without asking stops its server all the same. The host leaves when it has served no one for a
// minute. Its own log: host.log beside its socket.
import { appendFileSync, chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hostPaths, onMessages, type ClientMessage, type Dialect, type HostMessage } from '../host/protocol.js';
import { sharedServingMaterial } from '../server/shared-pki.js';
import { OptionsError, parseOptions } from './options.js';
import { COMMAND, prepareKubeApiserver, type Prepared } from './kube-apiserver-start.js';
import { startServing, oneLine, type Serving } from './serve.js';

const IDLE_EXIT_MS = 60_000;
const paths = hostPaths();
const log = (line: string) => appendFileSync(paths.log, `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });

let serving = 0;
let idleTimer: NodeJS.Timeout | undefined;
function busy(delta: number): void {
  serving += delta;
  clearTimeout(idleTimer);
  if (serving === 0) {
    idleTimer = setTimeout(() => {
      log('idle: leaving');
      server.close();
      process.exit(0);
    }, IDLE_EXIT_MS);
  }
}

function send(socket: Socket, message: HostMessage): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/** One launcher: its start, then its stop (asked, or its connection gone). */
function serveLauncher(socket: Socket): void {
  let running: Promise<Serving | undefined> | undefined;
  const stop = async (answer: boolean) => {
    const s = await running;
    running = Promise.resolve(undefined);
    if (s) {
      await s.stop().catch((err: unknown) => log(`stop failed: ${oneLine(err)}`));
      busy(-1);
    }
    if (answer) send(socket, { stopped: true });
    socket.end();
  };
  onMessages<ClientMessage>(socket, (message) => {
    if ('start' in message && !running) {
      const { dialect, argv, cwd, started } = message.start;
      running = start(socket, dialect, argv, cwd, started);
    } else if ('stop' in message) {
      void stop(true);
    }
  });
  socket.on('close', () => void stop(false));
  socket.on('error', () => undefined);
}

/** capstan's own command line, as startCapstan sends it: a temporary folder and this user's shared TLS material unless it names its own. */
async function prepareCapstan(argv: string[], cwd: string): Promise<Prepared> {
  const commandLine = parseOptions(argv);
  const options = commandLine.options;
  const temporaryDataDir = !commandLine.given.has('data-dir');
  options.dataDir = temporaryDataDir ? mkdtempSync(join(tmpdir(), 'capstan-')) : resolve(cwd, options.dataDir);
  if (!options.certDir && !options.tlsCertFile && !options.insecure) options.servingMaterial = await sharedServingMaterial();
  return { options, notes: [], temporaryDataDir };
}

async function start(socket: Socket, dialect: Dialect, argv: string[], cwd: string, started: number): Promise<Serving | undefined> {
  const say = (line: string, warning = false) => send(socket, { say: line, warning });
  const command = dialect === 'capstan' ? 'capstan' : COMMAND;
  try {
    const prepared = dialect === 'capstan' ? await prepareCapstan(argv, cwd) : await prepareKubeApiserver(argv, cwd);
    for (const note of prepared.notes) say(`${command}: ${note}`, true);
    // The request log (-v 3) goes to the client's stderr, as a server of its own would write it.
    prepared.options.requestLogWriter = (line) => say(line, true);
    // The client's clock: "ready in" counts from its start, as a process of its own would.
    const s = await startServing(prepared.options, { command, started: performance.now() - (Date.now() - started), temporaryDataDir: prepared.temporaryDataDir }, say);
    busy(1);
    send(socket, { ready: { url: s.url, kubeconfig: s.kubeconfigPath, pid: process.pid } });
    log(`serving ${s.url} (${dialect})`);
    return s;
  } catch (err) {
    send(socket, { error: err instanceof OptionsError ? (dialect === 'capstan' ? `capstan: ${err.message}` : `Error: ${err.message}`) : `${command}: ${oneLine(err)}` });
    socket.end();
    return undefined;
  }
}

const server = createServer(serveLauncher);

/** Listens on the socket, unless a live host already does (then this one leaves). */
function listen(): void {
  server.once('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    const probe = connect(paths.socket);
    probe.once('connect', () => {
      probe.end();
      process.exit(0);
    });
    probe.once('error', () => {
      // A socket left by a host that died: replace it.
      if (existsSync(paths.socket)) unlinkSync(paths.socket);
      server.listen(paths.socket, () => chmodSync(paths.socket, 0o600));
    });
  });
  server.listen(paths.socket, () => chmodSync(paths.socket, 0o600));
}

process.on('uncaughtException', (err) => {
  log(`uncaught: ${err.stack ?? String(err)}`);
  process.exit(1);
});
log(`host ${process.pid} starting`);
listen();
busy(0);
