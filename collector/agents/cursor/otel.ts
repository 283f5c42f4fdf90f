// Cursor exports no OpenTelemetry: its edits come from afterFileEdit, and it keeps no token usage on the
// machine (docs/agents/cursor.md).
export default null;
