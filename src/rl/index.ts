/** Pure (non-GPU) rules of the MAGIC RL algorithm and the run configuration. */
export * from './advantage';
export * from './aggregation';
export * from './config';
export * from './entropy';
export * from './filters';
export * from './metrics';
export * from './minibatch';
export * from './rejection';
export * from './stages';
export * from './lr-schedule';
