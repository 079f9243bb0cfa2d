// The capstan command: flags → Options → server; writes an admin kubeconfig for kubectl.
import { resolve } from 'node:path';
import { oneLine, serve } from './serve.js';
import { HELP, OptionsError, parseOptions, VERSION_LINE } from './options.js';

/** From here on a failure prints its stack too (a bug rather than a setting, usually). */
let showStacks = false;

async function main(): Promise<void> {
  const [subcommand, ...rest] = process.argv.slice(2);
  if (subcommand === 'envtest-assets') {
    if (rest.length !== 1 || rest[0]!.startsWith('-')) {
      process.stderr.write('capstan: usage: capstan envtest-assets DIR (then KUBEBUILDER_ASSETS=DIR for envtest)\n');
      process.exit(2);
    }
    const { writeEnvtestAssets } = await import('./envtest-assets.js');
    for (const path of writeEnvtestAssets(rest[0]!)) process.stdout.write(`${path}\n`);
    return;
  }
  if (subcommand === 'convert') {
    const { convertManifest, parseConvertArgs, ConvertError } = await import('./convert.js');
    try {
      process.stdout.write(convertManifest(parseConvertArgs(rest)));
    } catch (err) {
      if (!(err instanceof ConvertError)) throw err;
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    return;
  }
  let commandLine;
  try {
    commandLine = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`capstan: ${err.message} (see capstan --help)\n`);
      process.exit(2);
    }
    throw err;
  }
  if (commandLine.help) {
    process.stdout.write(HELP);
    return;
  }
  if (commandLine.version) {
    process.stdout.write(`${VERSION_LINE}\n`);
    return;
  }
  showStacks = commandLine.options.verbosity >= 4;
  const started = performance.now();
  const options = { ...commandLine.options, dataDir: resolve(commandLine.options.dataDir) };
  await serve(options, { command: 'capstan', started });
}

main().catch((err: unknown) => {
  process.stderr.write(`capstan: ${oneLine(err)}\n`);
  if (showStacks && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
