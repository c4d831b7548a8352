/** Splits a decoded response into its think block and its answer for the rollout viewer. */
export interface ResponseParts {
  /** Text inside <think>…</think> (or after an unclosed <think>). */
  think: string;
  /** Text after </think> (or the whole response when there is no think block). */
  answer: string;
  /** The think block was closed. */
  closed: boolean;
}

export function splitThink(response: string): ResponseParts {
  const open = response.indexOf('<think>');
  const close = response.indexOf('</think>');
  if (open === -1 && close === -1) return { think: '', answer: response, closed: false };
  const start = open === -1 ? 0 : open + '<think>'.length;
  if (close === -1) return { think: response.slice(start), answer: '', closed: false };
  return { think: response.slice(start, close), answer: response.slice(close + '</think>'.length), closed: true };
}

/**
 * Token index ranges: which tokens belong to the think block (true) and which to the answer
 * (false), from the token strings (the markers are single tokens).
 */
export function thinkMask(tokens: readonly string[]): boolean[] {
  let inThink = false;
  return tokens.map((t) => {
    if (t === '<think>') {
      inThink = true;
      return true;
    }
    if (t === '</think>') {
      inThink = false;
      return true;
    }
    return inThink;
  });
}
