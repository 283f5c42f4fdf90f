export const SERVER_DIR: string;
export const SERVER_ENTRY: string;
export const SERVER_META: string;
export function serverBuildIsStale(): boolean;
export function buildServer(options?: { force?: boolean }): Promise<boolean>;
export function ensureServerBuild(): Promise<boolean>;
