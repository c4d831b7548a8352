/** Token ids as the reference ops take them. */
export type TokenArray = Uint32Array | Int32Array | ArrayLike<number>;
