#!/usr/bin/env node
// The `magic-lab` command: runs the TypeScript CLI in Node (WebGPU through Dawn) via tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
