// Why a JSON file could not be read, in words that quote none of it.
import { z } from 'zod';
import { describeZodError } from './wire.ts';

/**
 * Pure: why a JSON file could not be read, in words that quote none of it (problems are logged, and
 * printed where a user may paste them): JSON.parse's message quotes the text around the error, and the
 * file may hold prompts, code, a settings file's API keys or a computer's token.
 */
export function jsonReadProblem(error: unknown): string {
  if (error instanceof z.ZodError) return `not as expected (${describeZodError(error)})`;
  if (error instanceof SyntaxError) {
    const at = /position (\d+)/.exec(error.message)?.[1];
    return `not JSON${at ? ` (at character ${at})` : ''}`;
  }
  return (error as NodeJS.ErrnoException).code ?? 'not readable';
}
