/**
 * Layout measurements shared by e2e/layouts.spec.ts: text cut by its box, a page wider than the
 * screen, and tap targets under 24 px where the pointer is coarse. Each returns a list of
 * descriptions (empty: nothing found), so a failure names what to fix.
 */
import type { Page } from '@playwright/test';

/**
 * Text that a reader cannot see whole: (1) an element that hides its overflow (overflow hidden or
 * clip, or an ellipsis) whose content is wider or taller than its box; (2) an element that scrolls
 * sideways (overflow auto/scroll) with content wider than its box (a table that must be scrolled to
 * be read, the phone's Findings preset table); (3) a text run (a leaf element's own text) reaching
 * past its element's box; (4) an SVG text (axis ticks, labels) reaching past its SVG, which clips it.
 * Elements marked data-scrolls (a deliberate sideways scroller, e.g. a long token line) are exempt
 * from (2) only; text visually hidden for screen readers (inside a 1 × 1 px box) from all.
 */
export const clippedText = (page: Page) =>
  page.evaluate(() => {
    const out: string[] = [];
    const name = (el: Element) => {
      const h = el as HTMLElement;
      const cls = typeof h.className === 'string' && h.className ? '.' + h.className.trim().split(/\s+/).join('.') : '';
      return `${el.tagName.toLowerCase()}${cls}${h.dataset?.testid ? `[${h.dataset.testid}]` : ''} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
    };
    // Visually hidden for screen readers only (a 1 × 1 px box that hides its overflow, e.g. a stacked table's head): not text a reader sees.
    const srOnly = (el: Element) => {
      for (let e: Element | null = el; e; e = e.parentElement) {
        const r = e.getBoundingClientRect();
        if (r.width <= 1 && r.height <= 1 && getComputedStyle(e).overflow !== 'visible') return true;
      }
      return false;
    };
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      if (el instanceof SVGElement || el.tagName === 'CANVAS' || el.tagName === 'MATH' || el.closest('math')) continue;
      if (srOnly(el)) continue;
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
      if (!(el.textContent ?? '').trim()) continue;
      const cs = getComputedStyle(el);
      const wide = el.scrollWidth > el.clientWidth + 1;
      const tall = el.scrollHeight > el.clientHeight + 1;
      const hides = (v: string) => v === 'hidden' || v === 'clip';
      if ((hides(cs.overflowX) && wide) || (hides(cs.overflowY) && tall && cs.display !== 'inline') || (cs.textOverflow === 'ellipsis' && wide)) {
        out.push(`cut: ${name(el)} ${el.clientWidth}×${el.clientHeight} holds ${el.scrollWidth}×${el.scrollHeight}`);
        continue;
      }
      if ((cs.overflowX === 'auto' || cs.overflowX === 'scroll') && wide && !el.closest('[data-scrolls]')) {
        out.push(`scrolls sideways: ${name(el)} ${el.clientWidth} px holds ${el.scrollWidth} px`);
        continue;
      }
      // A leaf's own text against its box (inline elements are their text's box; skip them).
      if (cs.display === 'inline' || el.children.length > 0) continue;
      if (el.tagName === 'OPTION' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' || el.tagName === 'INPUT') continue;
      const range = document.createRange();
      range.selectNodeContents(el);
      const t = range.getBoundingClientRect();
      const b = el.getBoundingClientRect();
      if (t.width > 0 && (t.left < b.left - 1 || t.right > b.right + 1)) out.push(`runs off its box: ${name(el)} text ${t.left.toFixed(0)}–${t.right.toFixed(0)} in ${b.left.toFixed(0)}–${b.right.toFixed(0)}`);
    }
    for (const t of document.querySelectorAll<SVGTextElement>('svg text')) {
      const svg = t.ownerSVGElement;
      if (!svg || getComputedStyle(svg).overflow === 'visible') continue;
      if (!(t.textContent ?? '').trim() || getComputedStyle(t).fill === 'transparent' || !t.checkVisibility({ visibilityProperty: true })) continue;
      const r = t.getBoundingClientRect();
      const s = svg.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < s.left - 0.5 || r.right > s.right + 0.5 || r.top < s.top - 0.5 || r.bottom > s.bottom + 0.5) {
        const chart = t.closest('[data-testid]') as HTMLElement | null;
        out.push(`svg text cut: "${t.textContent}" in ${chart?.dataset.testid ?? 'svg'} at ${r.left.toFixed(0)}–${r.right.toFixed(0)} of ${s.left.toFixed(0)}–${s.right.toFixed(0)}`);
      }
    }
    return out;
  });

/** The page's width beyond the screen's (0: no sideways page scroll). */
export const pageOverflow = (page: Page) => page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));

/**
 * Every visible interactive element smaller than 24 × 24 px (WCAG 2.5.8's minimum target size),
 * described. Only a link inline in a sentence is exempt, as WCAG allows; the spacing exception is
 * not used: every other target meets the minimum itself.
 */
export const smallTargets = (page: Page) =>
  page.evaluate(() => {
    const sel = 'button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="tab"], [tabindex]:not([tabindex="-1"])';
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>(sel)) {
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (el.tagName === 'A' && el.closest('p, li') && getComputedStyle(el).display === 'inline') continue;
      if (r.width >= 23.5 && r.height >= 23.5) continue;
      const id = el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 20) ?? '';
      out.push(`${el.tagName.toLowerCase()}${el.className ? '.' + String(el.className).split(' ').join('.') : ''} "${id}" ${r.width.toFixed(0)}×${r.height.toFixed(0)}`);
    }
    return out;
  });
