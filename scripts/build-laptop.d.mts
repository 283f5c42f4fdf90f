export const LAPTOP_DIR: string;
export const LAPTOP_BUNDLE: string;
export const LAPTOP_HOOK: string;
export const LAPTOP_META: string;
export function laptopBuildIsStale(): boolean;
export function buildLaptop(options?: { force?: boolean }): Promise<boolean>;
