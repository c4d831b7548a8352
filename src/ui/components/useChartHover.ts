import { create } from 'zustand';

/**
 * Which chart group (recharts `syncId`) the pointer is over. Charts mount their tooltip only while
 * the pointer is over their group (a mounted tooltip re-runs its selectors on every redraw): every
 * chart of the group then shows the cursor and values at the hovered step, not just the hovered one.
 */
export const useChartHover = create<{ group: string | null; enter(group: string): void; leave(group: string): void }>((set) => ({
  group: null,
  enter: (group) => set({ group }),
  leave: (group) => set((s) => (s.group === group ? { group: null } : s)),
}));
