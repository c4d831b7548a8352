#!/usr/bin/env node
// The `magic-lab` command: runs the TypeScript CLI in Node (WebGPU through Dawn) via tsx.
import { register } from 'tsx/esm/api';

register();
// A reader that exits early (`magic-lab train … | head -1`): stop printing, keep the command
// running to its end; the exit code stays the command's (no EPIPE trace after the run finished).
// The same for stderr: a usage error printed to a closed pipe still exits 2, not 1 with a trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
  });
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
