// Where the vendored data lives: <repo>/data, found from this module's location (dist/src/api/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const dataDir = fileURLToPath(new URL('../../../data/', import.meta.url));

export function readData(relative: string): Buffer {
  return readFileSync(dataDir + relative);
}

export function readDataJson<T>(relative: string): T {
  return JSON.parse(readData(relative).toString('utf8')) as T;
}
