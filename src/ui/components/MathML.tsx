/**
 * A few MathML builders, enough for the paper's equations without a math library: the browser
 * lays MathML Core out natively (Chromium 109+, Firefox, Safari). Elements are created with
 * createElement (React renders them in the MathML namespace); children are varargs, so no keys.
 */
import { createElement, useLayoutEffect, useRef, type ReactNode } from 'react';
import { fitFontSize } from '../lib/view';

const el =
  (tag: string) =>
  (...children: ReactNode[]) =>
    createElement(tag, null, ...children);

/** Identifier (italic when one letter), operator, number, text. */
export const mi = (s: string) => createElement('mi', null, s);
export const mo = (s: string) => createElement('mo', null, s);
export const mn = (s: string) => createElement('mn', null, s);
export const mtext = (s: string) => createElement('mtext', null, s);
/** A straight (non-italic) name: clip, min, mean, std. */
export const fn = (s: string) => createElement('mi', { mathvariant: 'normal' }, s);
export const row = el('mrow');
export const sub = (base: ReactNode, s: ReactNode) => createElement('msub', null, base, s);
export const sup = (base: ReactNode, s: ReactNode) => createElement('msup', null, base, s);
export const subsup = (base: ReactNode, a: ReactNode, b: ReactNode) => createElement('msubsup', null, base, a, b);
export const frac = (a: ReactNode, b: ReactNode) => createElement('mfrac', null, a, b);
export const under = (base: ReactNode, s: ReactNode) => createElement('munder', null, base, s);
export const sqrt = (...c: ReactNode[]) => createElement('msqrt', null, ...c);
/** ( … ) with stretchy fences. */
export const paren = (...c: ReactNode[]) => row(mo('('), ...c, mo(')'));
export const brack = (...c: ReactNode[]) => row(mo('['), ...c, mo(']'));
export const space = () => createElement('mspace', { width: '0.5em' });

/** A symbol linked to a config field: clicking it shows the field (the chips under the equation do the same, keyboard-reachable). */
export const linked = (node: ReactNode, field: string, onPick: (field: string) => void) =>
  createElement('mrow', { className: 'eq-link', 'data-field': field, onClick: () => onPick(field) }, node);

/**
 * A display equation; `label` is its plain-text reading (screen readers, and where MathML is not laid out).
 * It shrinks to fit its container's width (a phone, a narrow column) instead of scrolling sideways:
 * measured at the stylesheet's size, then given the font size that fits (lib/view.ts fitFontSize).
 */
export function Equation({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const math = ref.current;
    const box = math?.parentElement;
    if (!math || !box) return;
    let width = -1;
    const fit = () => {
      if (box.clientWidth === width) return;
      width = box.clientWidth;
      math.style.fontSize = '';
      const base = parseFloat(getComputedStyle(math).fontSize);
      const size = fitFontSize(base, box.scrollWidth, box.clientWidth);
      if (size !== base) math.style.fontSize = `${size}px`;
    };
    fit();
    const ro = new ResizeObserver(fit);
    ro.observe(box);
    return () => ro.disconnect();
  }, []);
  return createElement('math', { ref, display: 'block', 'aria-label': label, title: label }, children);
}
