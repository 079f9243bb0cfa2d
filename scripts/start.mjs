#!/usr/bin/env node
// `npm start`: builds only when dist/ is missing or older than the sources, then runs the capstan
// command in this process with the arguments given (`npm start -- --help`).
import { buildIfStale } from './build-if-stale.mjs';

buildIfStale();
await import('../dist/src/cmd/capstan.js');
