// npm run test:reliability: the long form of the probe (see probe.test.ts for the short form).
import { Figures, printFigures } from './figures.js';
import { scratchDir, startProbeServer } from './server.js';
import { slowWatchers } from './slow-clients.js';

async function main(): Promise<void> {
  const scratch = scratchDir('slow');
  const server = await startProbeServer(scratch.dir);
  const figures = new Figures('slow watchers');
  try {
    await slowWatchers(server, { watchers: Number(process.env['W'] ?? 1000), objects: Number(process.env['N'] ?? 5000), size: 10 * 1024, rate: Number(process.env['R'] ?? 250) }, figures);
  } finally {
    if (process.env['DEBUG_PROBE']) console.log(server.stderr());
    await server.stop();
    scratch.remove();
  }
  printFigures(figures.all);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
