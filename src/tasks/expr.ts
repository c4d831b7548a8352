/**
 * Integer expressions over + - * and parentheses: a small recursive-descent parser (the
 * verifier must never eval model output), evaluation, minimal-parenthesis rendering,
 * one-step reduction for traces, and a canonical form for near-duplicate detection.
 */

export type BinOp = '+' | '-' | '*';

export type Expr =
  | { kind: 'num'; value: number; /** source digits, kept so verifiers can reject `07` */ text: string }
  | { kind: 'bin'; op: BinOp; left: Expr; right: Expr };

export class ExprError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExprError';
  }
}

export function num(value: number): Expr {
  return { kind: 'num', value, text: String(value) };
}

export function bin(op: BinOp, left: Expr, right: Expr): Expr {
  return { kind: 'bin', op, left, right };
}

export function applyOp(op: BinOp, a: number, b: number): number {
  return op === '+' ? a + b : op === '-' ? a - b : a * b;
}

export interface ParseOptions {
  /** Longest accepted source; bounds work on adversarial input. */
  maxLength?: number;
  /** Deepest accepted parenthesis nesting; bounds recursion. */
  maxDepth?: number;
}

type Token = { kind: 'num'; text: string; pos: number } | { kind: 'sym'; text: string; pos: number };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === ' ') {
      i++;
    } else if (ch >= '0' && ch <= '9') {
      const start = i;
      while (i < src.length && src[i] >= '0' && src[i] <= '9') i++;
      // 15 digits stay exact in a double; longer literals are never legitimate here.
      if (i - start > 15) throw new ExprError(`number at ${start} has more than 15 digits`);
      tokens.push({ kind: 'num', text: src.slice(start, i), pos: start });
    } else if ('+-*()'.includes(ch)) {
      tokens.push({ kind: 'sym', text: ch, pos: i });
      i++;
    } else {
      throw new ExprError(`unexpected character ${JSON.stringify(ch)} at ${i}`);
    }
  }
  return tokens;
}

/** Parses `sum := product (('+'|'-') product)*`, `product := atom ('*' atom)*`, `atom := digits | '(' sum ')'`. No unary minus. */
export function parseExpr(src: string, opts: ParseOptions = {}): Expr {
  const maxLength = opts.maxLength ?? 512;
  const maxDepth = opts.maxDepth ?? 32;
  if (src.length > maxLength) throw new ExprError(`expression longer than ${maxLength} characters`);
  const tokens = tokenize(src);
  if (tokens.length === 0) throw new ExprError('empty expression');
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const where = (): string => (pos < tokens.length ? `at ${tokens[pos].pos}` : 'at end');

  function atom(depth: number): Expr {
    const t = peek();
    if (t?.kind === 'num') {
      pos++;
      return { kind: 'num', value: Number(t.text), text: t.text };
    }
    if (t?.text === '(') {
      if (depth >= maxDepth) throw new ExprError(`parentheses nested deeper than ${maxDepth}`);
      pos++;
      const inner = sum(depth + 1);
      if (peek()?.text !== ')') throw new ExprError(`expected ")" ${where()}`);
      pos++;
      return inner;
    }
    throw new ExprError(`expected a number or "(" ${where()}`);
  }
  function product(depth: number): Expr {
    let left = atom(depth);
    while (peek()?.text === '*') {
      pos++;
      left = bin('*', left, atom(depth));
    }
    return left;
  }
  function sum(depth: number): Expr {
    let left = product(depth);
    for (let t = peek(); t?.text === '+' || t?.text === '-'; t = peek()) {
      pos++;
      left = bin(t.text as BinOp, left, product(depth));
    }
    return left;
  }

  const expr = sum(0);
  if (pos < tokens.length) throw new ExprError(`unexpected ${JSON.stringify(tokens[pos].text)} at ${tokens[pos].pos}`);
  return expr;
}

/** Value of the expression; throws if any intermediate leaves the exact-integer range. */
export function evalExpr(e: Expr): number {
  if (e.kind === 'num') return e.value;
  const v = applyOp(e.op, evalExpr(e.left), evalExpr(e.right));
  if (!Number.isSafeInteger(v)) throw new ExprError('value outside the safe integer range');
  return v;
}

/** Number literals in left-to-right order. */
export function leaves(e: Expr, out: Extract<Expr, { kind: 'num' }>[] = []): Extract<Expr, { kind: 'num' }>[] {
  if (e.kind === 'num') out.push(e);
  else {
    leaves(e.left, out);
    leaves(e.right, out);
  }
  return out;
}

export function countOps(e: Expr): number {
  return e.kind === 'num' ? 0 : 1 + countOps(e.left) + countOps(e.right);
}

const PREC: Record<BinOp, number> = { '+': 1, '-': 1, '*': 2 };

function needsParens(child: Expr, op: BinOp, side: 'left' | 'right'): boolean {
  if (child.kind !== 'bin') return false;
  // Same-precedence right operands keep their parentheses so the text parses back to the same tree.
  return PREC[child.op] < PREC[op] || (side === 'right' && PREC[child.op] === PREC[op]);
}

/**
 * Renders with the fewest parentheses that preserve the tree. A negative literal (from a trace
 * reduction) is bracketed, `3*(-4)`, unless it opens the expression or a bracketed group.
 */
export function renderExpr(e: Expr): string {
  return render(e, true);
}

function render(e: Expr, leading: boolean): string {
  if (e.kind === 'num') return e.value < 0 && !leading ? `(${e.value})` : String(e.value);
  const l = needsParens(e.left, e.op, 'left') ? `(${render(e.left, true)})` : render(e.left, leading);
  const r = needsParens(e.right, e.op, 'right') ? `(${render(e.right, true)})` : render(e.right, false);
  return `${l}${e.op}${r}`;
}

/**
 * Replaces the leftmost operation whose operands are both literals by its value, computed by
 * `compute` (traces pass a slipping version). Returns null when e is already a literal.
 * Leftmost-innermost order follows precedence because the tree already encodes it.
 */
export function reduceLeftmost(e: Expr, compute: (op: BinOp, a: number, b: number) => number): Expr | null {
  if (e.kind === 'num') return null;
  if (e.left.kind === 'num' && e.right.kind === 'num') return num(compute(e.op, e.left.value, e.right.value));
  const l = reduceLeftmost(e.left, compute);
  if (l) return bin(e.op, l, e.right);
  const r = reduceLeftmost(e.right, compute);
  return r ? bin(e.op, e.left, r) : null;
}

/**
 * Canonical text: sums flatten into a sorted multiset of signed terms (so `a+b` ≡ `b+a` and
 * `a-(b-c)` ≡ `a+c-b`), products into sorted factors; literals lose leading zeros; spacing
 * and redundant parentheses vanish.
 */
export function canonicalExpr(e: Expr): string {
  if (e.kind === 'num') return String(e.value);
  if (e.op === '*') {
    const factors: Expr[] = [];
    collectFactors(e, factors);
    return factors
      .map((f) => (f.kind === 'bin' ? `(${canonicalExpr(f)})` : canonicalExpr(f)))
      .sort()
      .join('*');
  }
  const terms: string[] = [];
  collectTerms(e, 1, terms);
  terms.sort(); // '+' sorts before '-', so a positive term leads whenever there is one
  const joined = terms.join('');
  return joined.startsWith('+') ? joined.slice(1) : joined;
}

function collectFactors(e: Expr, out: Expr[]): void {
  if (e.kind === 'bin' && e.op === '*') {
    collectFactors(e.left, out);
    collectFactors(e.right, out);
  } else out.push(e);
}

function collectTerms(e: Expr, sign: 1 | -1, out: string[]): void {
  if (e.kind === 'bin' && e.op !== '*') {
    collectTerms(e.left, sign, out);
    collectTerms(e.right, e.op === '-' ? (-sign as 1 | -1) : sign, out);
  } else {
    out.push((sign > 0 ? '+' : '-') + canonicalExpr(e));
  }
}
