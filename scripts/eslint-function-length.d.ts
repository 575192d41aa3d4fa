// Types of scripts/eslint-function-length.js for the tests that read its list.
export declare const functionLengthFiles: string[];
export declare const functionLengthRules: Record<string, unknown>;
export declare const longFunctionFiles: string[];
