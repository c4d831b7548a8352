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
    const group = el.closest('details');
    if (group && !group.open) group.open = true;
    el.scrollIntoView({ block: 'center' });
    el.querySelector<HTMLElement>('input:not([disabled]), select:not([disabled]), button:not([disabled])')?.focus({ preventScroll: true });
    setFlash(true);
    const t = setTimeout(() => setFlash(false), FLASH_MS);
    return () => clearTimeout(t);
  }, [seq]);
  return { ref, flash };
}
