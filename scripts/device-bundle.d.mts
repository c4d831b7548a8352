export declare const SIZES_FILE: string;
export declare function bundleCli(outFile: string): void;
export declare function webgpuVersion(): string;
