#!/usr/bin/env node
// The shared host of the kube-apiserver launchers (host-main.ts), from its one-file build when
// there is a current one.
import { runBundled } from './bundled.js';

if (!runBundled('host')) await import('./host-main.js');
