/**
 * Opcodes of the CPU engine's command interpreter (src/cpu/assembly/index.ts exports the same
 * values as globals; tests/cpu/program.test.ts checks they agree) and the module's constants.
 */
export const OP = {
  BARRIER: 1,
  MATMUL_NN: 2,
  MATMUL_TN: 3,
  TRANSPOSE: 4,
  BIAS_GRAD: 5,
  ENC_FWD: 6,
  ENC_BWD: 7,
  ENC_DECODE: 8,
  NORM_FWD: 9,
  NORM_BWD_DX: 10,
  NORM_BWD_DW: 11,
  GELU_FWD: 12,
  GELU_BWD: 13,
  ADD: 14,
  COPY: 15,
  ATTN_FWD: 16,
  ATTN_BWD: 17,
  ATTN_DECODE: 18,
  LSM_FWD: 19,
  LSM_BWD: 20,
  GRPO: 21,
  CE: 22,
  NORM_PARTIALS: 23,
  NORM_FINISH: 24,
  ADAMW: 25,
  SAMPLE: 26,
  ZERO: 27,
  PEAK: 28,
  TRIAD: 29,
  ATTN_FWD_ROWS: 30,
  ATTN_BWD_ROWS: 31,
} as const;
export type OpName = keyof typeof OP;

/** i32 words per command: opcode + 15 arguments. */
export const COMMAND_WORDS = 16;
/** Floats per partial sum of the gradient norm (src/cpu/assembly/optimizer.ts). */
export const NORM_CHUNK = 8192;
/** f32x4 chains of the peak loop (src/cpu/assembly/roofline.ts): its output is this many vectors per thread. */
export const PEAK_ACCS = 12;

/** matmulNN / matmulTN flags. */
export const MM_ACCUMULATE = 1;
export const MM_GELU_FWD = 2;
export const MM_GELU_BWD = 4;
export const MM_GELU_SAVE_GRAD = 8;
export const MM_MUL_AUX = 16;

export const NORM_KIND = { rmsnorm: 0, layernorm: 1 } as const;
