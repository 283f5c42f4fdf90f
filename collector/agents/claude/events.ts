// Claude Code's hook context: autonomy from permission_mode and headless detection.

import type { AutonomyLevel } from '../../../common/wire.ts';
import { autonomyLevel } from '../../derive.ts';

export const claudeAutonomy = (permissionMode: unknown): AutonomyLevel => autonomyLevel('claude', permissionMode);

/** Headless Claude Code: CLAUDE_CODE_ENTRYPOINT starts with "sdk" (sdk-cli for `claude -p`, sdk-ts, sdk-py). */
export const claudeHeadless = (header: Record<string, string>): boolean => (header['entrypoint'] ?? '').startsWith('sdk');
