/**
 * Is an element on screen (or within `margin` px of it)? Charts hold their redraws while off
 * screen (lib/stagger.ts): with a dozen charts and a step every ~0.3 s, redrawing the ones nobody
 * sees cost the page more than the training did on the dev server.
 * Where IntersectionObserver is missing (jsdom, old browsers) everything counts as on screen.
 */
import { useEffect, useState, type RefObject } from 'react';

export function useOnScreen(ref: RefObject<Element | null>, margin = 200): boolean {
  const [on, setOn] = useState(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => {
      for (const e of entries) setOn(e.isIntersecting);
    }, { rootMargin: `${margin}px` });
    io.observe(el);
    return () => io.disconnect();
  }, [ref, margin]);
  return on;
}
