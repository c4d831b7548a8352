/**
 * The `magic-lab` command. Exit codes: 0 ok, 1 a check or run failed, 2 bad usage (flags or
 * config), with one message naming the flag or field.
 */
import { ConfigError } from '../model/config';
import { helpText, UsageError } from './args';
import { bench, BENCH_FLAGS } from './bench';
import { gradcheck, GRADCHECK_FLAGS } from './gradcheck';

const USAGE = `magic-lab — MAGIC Lab's headless command (WebGPU in Node through Dawn)

  magic-lab gradcheck [--seed N] [--tol X]        every kernel and the whole policy vs the float64 reference
  magic-lab bench [--config k=v,...] [--json F]   kernel GFLOP/s, train step and sampling throughput

Run 'magic-lab <command> --help' for a command's flags.`;

export async function main(argv: string[], log: (s: string) => void = console.log, err: (s: string) => void = console.error): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'gradcheck':
        if (rest.includes('--help')) return log(helpText('gradcheck', 'kernels vs float64 reference', GRADCHECK_FLAGS)), 0;
        return (await gradcheck(rest, log)).ok ? 0 : 1;
      case 'bench':
        if (rest.includes('--help')) return log(helpText('bench', 'throughput benchmark', BENCH_FLAGS)), 0;
        await bench(rest, log);
        return 0;
      case undefined:
      case 'help':
      case '--help':
        log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        err(`magic-lab: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
        return 2;
    }
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      err(`magic-lab ${command}: ${e.message}`);
      return 2;
    }
    err(`magic-lab ${command}: ${(e as Error).stack ?? e}`);
    return 1;
  }
}
