// The yaml library, loaded with the first YAML body read or written: most clients send and ask
// for JSON, and a server that sees no YAML never needs it. Loaded synchronously, because bodies
// are decoded and encoded in synchronous code; it is CommonJS, so this is the very object an
// import of it gives.
import { createRequire } from 'node:module';

export type YamlLibrary = typeof import('yaml');

let yaml: YamlLibrary | undefined;

export function yamlLibrary(): YamlLibrary {
  return (yaml ??= createRequire(import.meta.url)('yaml') as YamlLibrary);
}
