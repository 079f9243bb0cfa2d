#!/usr/bin/env node
// `kube-apiserver` for test environments (controller-runtime's envtest, scripts written for the
// reference): capstan from the reference's command line (kube-apiserver-start.ts reads it). This
// process is the one its caller starts, watches and stops; by default the server itself runs in
// the shared host (host.ts) of this user's test servers, which starts it in tens of milliseconds;
// CAPSTAN_SHARED_HOST=0 runs it in this process instead. --help and --version answer here at once.
import { HostStartError, startHosted } from '../host/client.js';

/** Whether a switch is given (as pflag reads it: --name, --name=true, -h). */
const given = (argv: string[], ...spellings: string[]) => argv.some((a) => spellings.includes(a) || spellings.some((s) => a.startsWith(`${s}=`) && a !== `${s}=false`));

async function viaHost(argv: string[], started: number): Promise<void> {
  // Asked to stop while the host still starts the server: it is stopped as soon as it serves.
  let stopAsked = false;
  let stopNow: () => void = () => (stopAsked = true);
  process.on('SIGINT', () => stopNow());
  process.on('SIGTERM', () => stopNow());
  let server;
  try {
    server = await startHosted('kube-apiserver', argv, (line, warning) => (warning ? process.stderr : process.stdout).write(`${line}\n`), started);
  } catch (err) {
    if (!(err instanceof HostStartError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  const hosted = server;
  stopNow = () => {
    hosted.stop().then(() => process.exit(0), () => process.exit(1));
  };
  if (stopAsked) stopNow();
  void hosted.lost.then(() => {
    process.stderr.write('kube-apiserver (capstan): the shared host went away\n');
    process.exit(1);
  });
}

async function inThisProcess(argv: string[], started: number): Promise<void> {
  const { prepareKubeApiserver, COMMAND } = await import('./kube-apiserver-start.js');
  const { OptionsError } = await import('./options.js');
  const { serve } = await import('./serve.js');
  let prepared;
  try {
    prepared = await prepareKubeApiserver(argv, process.cwd());
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  for (const note of prepared.notes) process.stderr.write(`${COMMAND}: ${note}\n`);
  await serve(prepared.options, { command: COMMAND, started: performance.now() - (Date.now() - started), temporaryDataDir: prepared.temporaryDataDir });
}

async function main(): Promise<void> {
  const started = Date.now();
  const argv = process.argv.slice(2);
  // Loaded only for these: a start reads no data of its own before the host has it.
  if (given(argv, '--help', '-h')) {
    const { kubeApiserverHelp } = await import('./kube-apiserver-flags.js');
    process.stdout.write(kubeApiserverHelp());
    return;
  }
  if (given(argv, '--version')) {
    const { versionInfo } = await import('../server/version.js');
    process.stdout.write(`Kubernetes ${versionInfo().gitVersion}\n`);
    return;
  }
  await (process.env['CAPSTAN_SHARED_HOST'] === '0' ? inThisProcess(argv, started) : viaHost(argv, started));
}

main().catch((err: unknown) => {
  process.stderr.write(`kube-apiserver (capstan): ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`);
  process.exit(1);
});
