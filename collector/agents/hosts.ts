// For agents whose hook no other program is known to run: every event is the agent's own.
import type { OtherHost } from './types.ts';

export const noOtherHost = (): OtherHost | undefined => undefined;
