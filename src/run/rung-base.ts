/**
 * Where the CLI finds each rung's base checkpoint (public/<rung.baseFile>, the file the page
 * fetches) and which one a config starts from by default: the rung whose model the config has.
 */
import { join } from 'node:path';
import { DEFAULT_RUNG, getRung, rungOf, type RungName } from '../rl/config';
import type { ModelConfig } from '../model/config';

/** The base checkpoint of `rung` as the CLI reads it (tiny: public/checkpoints/base.mlck). */
export function rungBasePath(rung: RungName): string {
  return join('public', getRung(rung).baseFile);
}

/** The tiny rung's base: the default of every command before the ladder, and still for a hand-made model shape. */
export const DEFAULT_BASE = rungBasePath(DEFAULT_RUNG);

/**
 * The default start weights of a config: its rung's base (used only when that file's model
 * matches, as before); a hand-made shape falls back to the tiny base, which will not match.
 */
export function defaultBaseFor(cfg: { model: ModelConfig }): string {
  const rung = rungOf(cfg);
  return rung === null ? DEFAULT_BASE : rungBasePath(rung);
}

/** One line for a rung whose base file is not there (medium is not shipped until it is built). */
export function missingRungBase(rung: RungName): string {
  return `${rungBasePath(rung)} (the ${rung} rung's base checkpoint) does not exist; build it with \`magic-lab sft --rung ${rung}\``;
}
