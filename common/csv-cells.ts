// One rule for CSV cells a spreadsheet would run as a formula (CSV injection), shared by the dashboard's
// CSV download (web/src/figures.ts) and `agentmeter export --format csv` (pipeline/export.ts): a text cell
// that starts with =, +, -, @, a tab or a carriage return is prefixed with an apostrophe, which
// spreadsheets show as text and do not display. No imports: the dashboard bundles this file as it is.

/** What a text cell that a spreadsheet would take for a formula starts with. */
export const FORMULA_START = /^[=+\-@\t\r]/;

/** Pure: the text as a spreadsheet shows it without running it. */
export const guardCsvText = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);
