// Droid's hook context: autonomy from permission_mode and headless (`droid exec`) detection.

import type { AutonomyLevel } from '../../../common/wire.ts';
import { autonomyLevel } from '../../derive.ts';

export const droidAutonomy = (permissionMode: unknown): AutonomyLevel => autonomyLevel('droid', permissionMode);

/**
 * Headless Droid: the hook found `droid exec` in its parent process's command line (Linux /proc; see
 * hooks/agentmeter-hook.sh). Elsewhere set AGENTMETER_CLIENT=non-interactive-cli for `droid exec` runs.
 */
export const droidHeadless = (header: Record<string, string>): boolean => header['droid_exec'] === '1';
