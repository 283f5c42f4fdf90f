// Pure: a value as one sh word, in single quotes (a quote inside closes, escapes and reopens them).
export const shQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
