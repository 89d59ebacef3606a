#!/usr/bin/env node
// The `svc` command. Runs the TypeScript sources through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
