#!/usr/bin/env node
// The capstan command (capstan-main.ts), from its one-file build when there is a current one.
import { runBundled } from './bundled.js';

if (!runBundled('capstan')) await import('./capstan-main.js');
