import { useEffect, useRef, useState } from 'react';
import { useLab } from '../store';

/** How long a field an equation link pointed at stays highlighted. */
export const FLASH_MS = 2500;

/**
 * For the element an equation link targets (a config field path, or 'stages'): when asked
 * (store.focusField), open its collapsed group, scroll it into view, focus its first input and
 * highlight it for FLASH_MS. Returns the ref to put on the element and whether to highlight.
 */
export function useFocusFlash<T extends HTMLElement>(target: string) {
  const seq = useLab((s) => (s.focusTarget?.target === target ? s.focusTarget.seq : 0));
  const ref = useRef<T>(null);
  const [flash, setFlash] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!seq || !el) return;
    // Every collapsed box around it: its group, and on a phone the configuration itself.
    for (let d = el.closest('details'); d; d = d.parentElement?.closest('details') ?? null) if (!d.open) d.open = true;
    el.scrollIntoView({ block: 'center' });
    el.querySelector<HTMLElement>('input:not([disabled]), select:not([disabled]), button:not([disabled])')?.focus({ preventScroll: true });
    setFlash(true);
    const t = setTimeout(() => setFlash(false), FLASH_MS);
    return () => clearTimeout(t);
  }, [seq]);
  return { ref, flash };
}
