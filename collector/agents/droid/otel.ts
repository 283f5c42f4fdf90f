// Droid exports no OpenTelemetry of its own: its tokens come from its session files and its
// decisions from its hooks (docs/agents/droid.md).
export default null;
