// Reading the server's answers on the client side (collector, computer agent).

/** The `detail` of the server's error body, or the start of whatever else came back (a proxy's page). */
export function errorDetail(text: string): string {
  try {
    const detail = (JSON.parse(text) as { detail?: unknown }).detail;
    if (typeof detail === 'string') return detail;
  } catch {
    // Not our error body.
  }
  return text.slice(0, 300);
}
