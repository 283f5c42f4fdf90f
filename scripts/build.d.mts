export function buildAll(options?: { force?: boolean }): Promise<{ failed: boolean; lines: string[] }>;
