/**
 * A config as JSON (the run file's and the CLI's form) and as URL parameters: the preset's name
 * plus one `dotted.path=value` per field that differs from it.
 */
import { ConfigError } from '../../model/config';
import { DEFAULT_PRESET, getPreset } from './presets';
import { DEFAULT_RUNG, getRung, rungOf, type RungName } from './rungs';
import { fieldRule } from './rules';
import { STAGE_TEMPLATE, type RunConfig, type StageConfig } from './schema';
import { validateRunConfig } from './validate';
import { isObj, join, jsonEqual, type Rec } from './values';

export function runConfigToJSON(cfg: RunConfig): string {
  return JSON.stringify(cfg, null, 2);
}

/** Parses and validates (fields missing from an older file take today's defaults). */
export function runConfigFromJSON(text: string): RunConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError('config', `not valid JSON (${(e as Error).message})`);
  }
  return validateRunConfig(parsed);
}

/** Stage without the fields equal to the template (keeps URLs short). */
function compactStage(s: StageConfig): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(s)) if (!jsonEqual(v, (STAGE_TEMPLATE as unknown as Rec)[k])) out[k] = v;
  return out;
}

function diffLeaves(base: unknown, cur: unknown, path: string, out: [string, string][]): void {
  if (isObj(base) && isObj(cur)) {
    for (const k of Object.keys(cur)) diffLeaves(base[k], cur[k], join(path, k), out);
    return;
  }
  if (jsonEqual(base, cur)) return;
  if (path === 'stages') cur = (cur as StageConfig[]).map(compactStage);
  out.push([path, typeof cur === 'string' ? cur : JSON.stringify(cur)]);
}

/** Reserved URL parameter naming the preset the diff applies to. */
export const PRESET_PARAM = 'preset';
/** Reserved URL parameter naming the rung the preset is taken at (absent: tiny, so older links read as before). */
export const RUNG_PARAM = 'rung';

/**
 * `preset=<name>` (and `rung=<name>` off the tiny rung) plus one `dotted.path=value` per field that differs from the preset
 * (strings raw, everything else JSON; arrays whole). A config equal to its preset is just
 * `preset=<name>`.
 */
export function encodeConfigToUrlParams(cfg: RunConfig, presetName: string, rung: string = rungOf(cfg) ?? DEFAULT_RUNG): URLSearchParams {
  const base = getPreset(presetName, rung);
  const pairs: [string, string][] = [];
  diffLeaves(base, validateRunConfig(cfg, base), '', pairs);
  const head: [string, string][] = [[PRESET_PARAM, presetName]];
  if (rung !== DEFAULT_RUNG) head.push([RUNG_PARAM, rung]);
  return new URLSearchParams([...head, ...pairs]);
}

/**
 * Inverse of encodeConfigToUrlParams; validates the result. Missing `preset` means "magic".
 * Parameters named in `ignore` belong to the page, not the config; any other unknown
 * parameter is an error, so a typo is never silently dropped.
 */
export function decodeConfigFromUrlParams(
  params: URLSearchParams | string,
  ignore: readonly string[] = [],
): { preset: string; rung: RungName; config: RunConfig } {
  const p = typeof params === 'string' ? new URLSearchParams(params) : params;
  const presetValues = p.getAll(PRESET_PARAM);
  if (presetValues.length > 1) throw new ConfigError(PRESET_PARAM, 'given more than once');
  const preset = presetValues[0] ?? DEFAULT_PRESET;
  const rungValues = p.getAll(RUNG_PARAM);
  if (rungValues.length > 1) throw new ConfigError(RUNG_PARAM, 'given more than once');
  const rung = getRung(rungValues[0] ?? DEFAULT_RUNG).name;
  const base = getPreset(preset, rung);
  const partial: Rec = {};
  const seen = new Set<string>();
  for (const [key, raw] of p) {
    if (key === PRESET_PARAM || key === RUNG_PARAM || ignore.includes(key)) continue;
    if (seen.has(key)) throw new ConfigError(key, 'given more than once');
    seen.add(key);
    const keys = key.split('.');
    if (keys.some((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype')) {
      throw new ConfigError(key, 'not a config field path');
    }
    let value: unknown = raw;
    // An enum's value is its raw text; every other field's is JSON.
    if (fieldRule(key)?.kind !== 'enum') {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw; // validation reports it with the field name
      }
    }
    let node = partial;
    keys.slice(0, -1).forEach((k, i) => {
      if (!isObj(node[k])) {
        if (node[k] !== undefined) throw new ConfigError(keys.slice(0, i + 1).join('.'), 'given both as a value and as an object');
        node[k] = {};
      }
      node = node[k] as Rec;
    });
    const last = keys[keys.length - 1];
    if (node[last] !== undefined) throw new ConfigError(key, 'given both as a value and as an object');
    node[last] = value;
  }
  return { preset, rung, config: validateRunConfig(partial, base) };
}

