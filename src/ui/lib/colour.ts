/**
 * Colour scales for per-token values in the group inspector, each with a legend (ticks in the
 * value's own units), and readable text on every background: the text colour is black or white,
 * whichever contrasts more with the background's WCAG relative luminance — at least 4.58:1 on any
 * colour, above the 4.5:1 that WCAG AA asks of normal text.
 *
 * Scales map a value to t ∈ [0, 1] (sequential) or [−1, 1] (diverging, 0 = neutral) and t to a
 * colour between ColorBrewer stops (Purples, Reds, RdBu), linearly in sRGB.
 */

export type Rgb = readonly [number, number, number];

/** "#rrggbb" → [r, g, b] in 0…255. */
export function parseHex(hex: string): Rgb {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  const n = parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export const toHex = (c: Rgb) => `#${c.map((x) => Math.round(x).toString(16).padStart(2, '0')).join('')}`;

/** WCAG 2 relative luminance of an sRGB colour. */
export function relativeLuminance(c: Rgb): number {
  const lin = (x: number) => {
    const s = x / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
}

/** WCAG contrast ratio (1…21) between two colours. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

/** Black or white text, whichever reads better on `bg`. */
export function textColourOn(bg: Rgb): '#000000' | '#ffffff' {
  return contrastRatio(bg, BLACK) >= contrastRatio(bg, WHITE) ? '#000000' : '#ffffff';
}

/** Colour at t ∈ [0, 1] between evenly spaced stops (t clamped; NaN → the first stop). */
export function interpolate(stops: readonly Rgb[], t: number): Rgb {
  const x = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  const f = x * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(f));
  const u = f - i;
  const a = stops[i];
  const b = stops[i + 1];
  return [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u];
}

const stops = (...hex: string[]) => hex.map(parseHex);
/** ColorBrewer Purples (9-class, every other stop). */
export const PURPLES = stops('#fcfbfd', '#dadaeb', '#9e9ac8', '#6a51a3', '#3f007d');
/** ColorBrewer Reds. */
export const REDS = stops('#fff5f0', '#fcbba1', '#fb6a4a', '#cb181d', '#67000d');
/** ColorBrewer RdBu, red (negative) → near-white → blue (positive). */
export const RDBU = stops('#b2182b', '#ef8a62', '#fddbc7', '#f7f7f7', '#d1e5f0', '#67a9cf', '#2166ac');

export interface Tick {
  /** Position on the legend bar, 0 (left) … 1 (right). */
  at: number;
  label: string;
}

/** A value → colour mapping with the legend that explains it. */
export interface ColourScale {
  title: string;
  /** The values' units, as the legend prints them. */
  unit: string;
  /** Colour of a value (NaN: no colour). */
  colour(value: number): Rgb | null;
  /** Colours of the legend bar, left to right. */
  bar: readonly Rgb[];
  ticks: Tick[];
  /** One line: what high and low mean. */
  note: string;
}

const fmt = (x: number, digits = 2) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(digits).replace(/\.?0+$/, '') || '0');

/** The least top an entropy scale fitted to shown values gets: a near-certain group is not stretched over a few hundredths of a nat. */
export const ENTROPY_TOP_FLOOR = 0.2;

/** q-quantile (0…1, nearest rank) of the finite values; 0 when there are none. */
export function quantile(values: Iterable<number>, q: number): number {
  const xs = [...values].filter(Number.isFinite).sort((a, b) => a - b);
  if (!xs.length) return 0;
  return xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))];
}

/**
 * The entropy scale's top: the smallest "nice" value ≥ the 99th percentile of the shown tokens'
 * entropies (at least ENTROPY_TOP_FLOOR), never above ln V. Tokens sit far below ln V once a
 * model has learned (< 0.8 nats against ln 24 = 3.18), so a scale to ln V leaves them all pale.
 */
export function entropyTop(vocabSize: number, shown: Iterable<number>): number {
  const lnV = Math.log(vocabSize);
  const need = Math.max(ENTROPY_TOP_FLOOR, quantile(shown, 0.99));
  // Each a multiple of 4 × a round step, so the legend's quarter ticks read 0, 0.2, 0.4, … not 0.63, 1.25.
  const nice = [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.6, 2, 2.4, 3.2, 4, 4.8, 6];
  return Math.min(lnV, nice.find((n) => n >= need - 1e-12) ?? lnV);
}

/**
 * Entropy H_t in nats, 0 (certain) … top: ln V (uniform over the vocabulary) without `shown`,
 * else fitted to the shown tokens' entropies (entropyTop); values above the top get its colour.
 */
export function entropyScale(vocabSize: number, shown?: Iterable<number>): ColourScale {
  const lnV = Math.log(vocabSize);
  const max = shown ? entropyTop(vocabSize, shown) : lnV;
  const full = max >= lnV - 1e-12;
  const top = full ? `${fmt(lnV)} = ln ${vocabSize}` : `${fmt(max)}+`;
  return {
    title: 'entropy H_t of the next-token distribution',
    unit: 'nats',
    colour: (h) => (Number.isFinite(h) ? interpolate(PURPLES, h / max) : null),
    bar: PURPLES,
    ticks: [0, 0.25, 0.5, 0.75, 1].map((at) => ({ at, label: at === 1 ? top : fmt(at * max) })),
    note: full
      ? `dark = uncertain (the uniform distribution over ${vocabSize} tokens has ln ${vocabSize} nats)`
      : `dark = uncertain; the scale runs 0 … ${fmt(max)} nats to fit these tokens, darkest at ${fmt(max)} or more (ln ${vocabSize} = ${fmt(lnV)} is the uniform distribution)`,
  };
}

/**
 * Probability p of the sampled token, on a log scale: t = −ln p / ln V, so p = 1 is white and
 * p ≤ 1/V (no likelier than a uniform guess) is the darkest red.
 */
export function probabilityScale(vocabSize: number): ColourScale {
  const max = Math.log(vocabSize);
  const at = (p: number) => -Math.log(p) / max;
  const ps = [1, 0.5, 0.2, 0.1];
  return {
    title: 'probability p of the sampled token (log scale)',
    unit: 'p = e^{log p}',
    colour: (logp) => (Number.isFinite(logp) ? interpolate(REDS, -logp / max) : Number.isNaN(logp) ? null : REDS[REDS.length - 1]),
    bar: REDS,
    ticks: [...ps.map((p) => ({ at: at(p), label: fmt(p) })), { at: 1, label: `≤ 1/${vocabSize}` }],
    note: 'dark = the policy found this token unlikely when it sampled it',
  };
}

/** Symmetric half-range of a diverging scale: the smallest "nice" value ≥ the largest |x|. */
export function niceHalfRange(maxAbs: number, floor: number): number {
  const nice = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 1.5, 2, 3, 5, 10];
  const need = Math.max(floor, Number.isFinite(maxAbs) ? maxAbs : 0);
  return nice.find((n) => n >= need - 1e-12) ?? need;
}

/**
 * ρ = π_after / π_old on a log scale, symmetric around 1: ln ρ ∈ [−R, R] (R from the group's
 * largest |ln ρ|, at least ln 1.05). Blue = the update made the token likelier, red = less likely.
 */
export function ratioScale(maxAbsLogRatio: number, eps: { epsLow: number; epsHigh: number }): ColourScale {
  const R = niceHalfRange(maxAbsLogRatio, Math.log(1.05));
  const at = (rho: number) => (Math.log(rho) / R + 1) / 2;
  const ticks: Tick[] = [
    { at: 0, label: fmt(Math.exp(-R), 3) },
    { at: 0.5, label: '1' },
    { at: 1, label: fmt(Math.exp(R), 3) },
  ];
  for (const [rho, label] of [
    [1 - eps.epsLow, `1−ε_low`],
    [1 + eps.epsHigh, `1+ε_high`],
  ] as const) {
    const a = at(rho);
    if (a > 0.08 && a < 0.92) ticks.push({ at: a, label: `${label} ${fmt(rho)}` });
  }
  return {
    title: 'probability ratio ρ = π_after / π_old',
    unit: 'ρ (log scale)',
    colour: (rho) => (Number.isFinite(rho) && rho > 0 ? interpolate(RDBU, (Math.log(rho) / R + 1) / 2) : null),
    bar: RDBU,
    ticks: ticks.sort((a, b) => a.at - b.at),
    note: "blue = this step's update made the token likelier, red = less likely; π_old sampled it",
  };
}

/**
 * The largest |A| a group of G binary rewards can give: (G − 1)/√G with the std normalisation
 * (one success among G), 1 without (Dr. GRPO: r − mean).
 */
export function maxAdvantage(G: number, normalizeStd: boolean): number {
  return normalizeStd && G > 1 ? (G - 1) / Math.sqrt(G) : 1;
}

/** Advantage Â (the same for every token of a response), diverging around 0 over ±the group's largest possible |A|. */
export function advantageScale(G: number, normalizeStd: boolean): ColourScale {
  const R = maxAdvantage(G, normalizeStd);
  return {
    title: 'advantage Â of the response (every token gets it)',
    unit: 'Â',
    colour: (a) => (Number.isFinite(a) ? interpolate(RDBU, (a / R + 1) / 2) : null),
    bar: RDBU,
    ticks: [
      { at: 0, label: `−${fmt(R)}` },
      { at: 0.5, label: '0' },
      { at: 1, label: `+${fmt(R)}` },
    ],
    note: `blue = pushed up, red = pushed down; ±${fmt(R)} is the largest |Â| a group of ${G} can give`,
  };
}

/** CSS for a token on a scale: background and the readable text colour. */
export function tokenColours(c: Rgb | null): { background: string; color: string } | undefined {
  return c ? { background: toHex(c), color: textColourOn(c) } : undefined;
}
