/** The `--rung NAME` flag every command that takes a preset shares (src/rl/config/rungs.ts). */
import { getRung, isRungName, RUNG_NAMES, type RungName } from '../rl/config';
import { UsageError, type FlagSpec } from './args';

export const RUNG_FLAG: FlagSpec = {
  type: 'string',
  help: `model ladder rung the preset is taken at (default tiny): ${RUNG_NAMES.map((r) => `${r} (${getRung(r).summary.split(':')[0]})`).join(', ')}`,
};

/** The --rung given, or undefined; an unknown name is a usage error naming --rung and the valid names. */
export function parseRungFlag(value: unknown): RungName | undefined {
  if (value === undefined) return undefined;
  if (!isRungName(value)) throw new UsageError(`--rung: unknown rung ${JSON.stringify(value)} (valid: ${RUNG_NAMES.join(', ')})`);
  return value;
}
