/**
 * Float64 reference implementations of every op the GPU policy uses, forward and backward.
 *
 * This is the readable twin of the WGSL kernels: plain loops, no tricks, float64 everywhere,
 * so GPU results can be compared against it and its gradients can be checked by finite
 * differences. All matrices are row-major. Every function returns new arrays unless it says
 * "in place". Weight convention (llm.c): a linear weight is [out, in] and y = x · Wᵀ + b.
 */
// One file per kernel family, as in shaders/ and src/cpu/assembly/.
export type { TokenArray } from './ops/types';
export * from './ops/matmul';
export * from './ops/embedding';
export * from './ops/norm';
export * from './ops/elementwise';
export * from './ops/attention';
export * from './ops/loss';
export * from './ops/optimizer';
export * from './ops/rope';
export * from './ops/gqa';
export * from './ops/swiglu';
export * from './ops/vocab';
