/** The store the controller's pieces read and write: the page's `useLab`, or a test's own createLabStore(). */
import type { StoreApi } from 'zustand';
import type { LabStore } from '../store';

export type Lab = Pick<StoreApi<LabStore>, 'getState' | 'subscribe'>;
