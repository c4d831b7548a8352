/**
 * Entry of the bundled CLI (.device/lib/magic-lab.mjs, `npm run device:bundle`): bin/magic-lab.mjs
 * without tsx. The bundle sits two folders below the repository root, so the shaders resolve to the tree's.
 */
import { main } from '../src/cli/main';

// As bin/magic-lab.mjs: a reader that exits early stops the printing, not the command.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
});
process.exitCode = await main(process.argv.slice(2));
