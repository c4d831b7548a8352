/**
 * Checks a generated run_stageK.sh against verl's recorded schema (tests/verl/fixtures/verl-schema-*.json,
 * written by scripts/verl-schema.py from verl's own yaml): every override's key exists in the
 * composed config, or is added with `+` where the trainer reads it undeclared, and its value's type fits.
 */
import { readFileSync } from 'node:fs';
import type { VerlFlavor } from '../../src/verl/mapping';

export interface VerlSchema {
  flavour: VerlFlavor;
  repo: string;
  ref: string;
  commit: string;
  addedKeys: { key: string; readBy: string }[];
  keys: Record<string, 'int' | 'float' | 'bool' | 'str' | 'list' | 'dict' | 'null' | 'interp'>;
}

export const loadSchema = (flavor: VerlFlavor): VerlSchema => JSON.parse(readFileSync(new URL(`./fixtures/verl-schema-${flavor}.json`, import.meta.url), 'utf8'));

/** The type a launch parameter (${NAME}) carries into Hydra (NOTES.md documents each). */
const PARAMETER_TYPES: Record<string, string> = {
  NNODES: 'int',
  N_GPUS_PER_NODE: 'int',
  ROLLOUT_TP: 'int',
  SP: 'int',
  TARGET_ENTROPY: 'float',
  GPU_MEMORY_UTILIZATION: 'float',
  PPO_MAX_TOKEN_LEN_PER_GPU: 'int',
  MAX_PROMPT_LENGTH: 'int',
  THINK_PREFILLED: 'bool',
  LOGGER: 'list',
};

/** A Hydra override value's type: int, float, bool, list, str. */
export function valueType(value: string): string {
  const param = /^\$\{([A-Z_]+)\}$/.exec(value);
  if (param) return PARAMETER_TYPES[param[1]] ?? 'str';
  if (/^[-+]?\d+$/.test(value)) return 'int';
  if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(value)) return 'float';
  if (/^(true|false)$/i.test(value)) return 'bool';
  if (value.startsWith('[') && value.endsWith(']')) return 'list';
  return 'str';
}

/** null and interpolated defaults take anything; int and float are one kind (yaml writes entropy_coeff: 0 for a float). */
function fits(declared: string, got: string): boolean {
  if (declared === 'null' || declared === 'interp' || declared === got) return true;
  const numbers = ['int', 'float'];
  return numbers.includes(declared) && numbers.includes(got);
}

/** Problems of one override, or [] when it is valid. */
export function overrideProblems(key: string, value: string, schema: VerlSchema): string[] {
  const where = `${schema.repo}@${schema.commit.slice(0, 7)}`;
  if (key.startsWith('+')) {
    const bare = key.slice(1);
    if (bare in schema.keys) return [`${key}: declared in ${where}, so Hydra refuses the +`];
    return schema.addedKeys.some((a) => bare === a.key || bare.startsWith(`${a.key}.`)) ? [] : [`${key}: neither declared nor read by ${where}`];
  }
  const declared = schema.keys[key];
  if (declared === undefined) return [`${key}: not in ${where}'s composed config`];
  const got = valueType(value);
  return fits(declared, got) ? [] : [`${key}=${value}: a ${got}, ${where} declares a ${declared}`];
}

/** The overrides of one flavour's branch of a run_stageK.sh, as written ("key=value" lines). */
export function scriptOverrides(script: string, flavor: VerlFlavor): { key: string; value: string }[] {
  const branch = new RegExp(`^  ${flavor}\\)\\n([\\s\\S]*?)^    ;;`, 'm').exec(script);
  if (!branch) throw new Error(`no ${flavor}) branch in the script`);
  const lines = [...branch[1].matchAll(/^ {6}"([^"=]+)=(.*)"$/gm)];
  if (lines.length === 0) throw new Error(`no overrides in the ${flavor}) branch`);
  return lines.map((m) => ({ key: m[1], value: m[2] }));
}

/** Every problem of a script, for both flavours. */
export function scriptProblems(script: string, flavors: readonly VerlFlavor[]): string[] {
  return flavors.flatMap((f) => {
    const schema = loadSchema(f);
    return scriptOverrides(script, f).flatMap((o) => overrideProblems(o.key, o.value, schema).map((p) => `${f}: ${p}`));
  });
}
