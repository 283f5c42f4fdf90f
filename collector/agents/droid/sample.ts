// Droid's sessions in the demo organization (sample-data/generator.ts): the shape it shares with Claude
// Code (../claude-style-sample.ts), with Droid's tools, session files and cumulative token settings.
import type { AgentSample, SampleSession } from '../../../sample-data/plan.ts';
import { claudeStyleSession } from '../claude-style-sample.ts';

const session: SampleSession = ({ r, p }, start) => claudeStyleSession(r, p, 'droid', start);

export default {
  session,
  usageDatedAtReading: true,
} satisfies AgentSample;
