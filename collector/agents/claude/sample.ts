// Claude Code's sessions in the demo organization (sample-data/generator.ts): the shape it shares with
// Droid (../claude-style-sample.ts), with Claude Code's tools, transcripts and entry points.
import type { AgentSample, SampleSession } from '../../../sample-data/plan.ts';
import { claudeStyleSession } from '../claude-style-sample.ts';

const session: SampleSession = ({ r, p }, start) => claudeStyleSession(r, p, 'claude', start);

export default {
  session,
} satisfies AgentSample;
