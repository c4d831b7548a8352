/**
 * The page URL carries the preset, its rung (rung=, absent for tiny: older links open as before)
 * and the config (as a diff to the preset at that rung) so a link reproduces the setup. An invalid
 * URL yields ONE clear error and the preset (or MAGIC) at the tiny rung.
 */
import { BACKEND_CHOICES, type BackendChoice } from '../../worker/protocol';
import { DEFAULT_PRESET, DEFAULT_RUNG, decodeConfigFromUrlParams, encodeConfigToUrlParams, getPreset, PRESET_PARAM, PRESETS, type RunConfig, type RungName } from '../../rl/config';

/**
 * URL parameters that belong to the page, not the config: run (the run to show), backend (auto,
 * webgpu or wasm), teacher mode's teacher, hide and try (lib/teach.ts), and view (lib/view.ts).
 */
export const PAGE_PARAMS = ['run', 'backend', 'teacher', 'hide', 'try', 'view'] as const;

/** The engine asked for by the URL's backend= (auto when absent or unknown). */
export function backendFromUrl(search: string): BackendChoice {
  const v = new URLSearchParams(search).get('backend');
  return v !== null && (BACKEND_CHOICES as readonly string[]).includes(v) ? (v as BackendChoice) : 'auto';
}

/** `search` with backend= set to `choice` (removed for auto). */
export function withBackend(search: string, choice: BackendChoice): string {
  const params = new URLSearchParams(search);
  if (choice === 'auto') params.delete('backend');
  else params.set('backend', choice);
  const s = params.toString();
  return s ? `?${s}` : '';
}

export interface UrlSetup {
  preset: string;
  rung: RungName;
  config: RunConfig;
  /** Set when the URL could not be used as given; the setup fell back to a preset. */
  error: string | null;
}

export function setupFromUrl(search: string): UrlSetup {
  const params = new URLSearchParams(search);
  try {
    const { preset, rung, config } = decodeConfigFromUrlParams(params, PAGE_PARAMS);
    return { preset, rung, config, error: null };
  } catch (e) {
    const asked = params.get(PRESET_PARAM);
    const preset = asked !== null && Object.prototype.hasOwnProperty.call(PRESETS, asked) ? asked : DEFAULT_PRESET;
    return { preset, rung: DEFAULT_RUNG, config: getPreset(preset), error: `Invalid link, using the "${preset}" preset instead: ${(e as Error).message}` };
  }
}

/** The query string (with '?') for a config at `rung` (by default its model's), keeping the page's own parameters. */
export function urlSearchFor(config: RunConfig, preset: string, current = '', rung?: RungName): string {
  const params = encodeConfigToUrlParams(config, preset, rung);
  const cur = new URLSearchParams(current);
  for (const k of PAGE_PARAMS) {
    const v = cur.get(k);
    if (v !== null) params.set(k, v);
  }
  return `?${params.toString()}`;
}
