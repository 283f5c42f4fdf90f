// The one place where errors become the documented body {title, detail, status, requestId}; the same
// requestId is on the request's log lines.
import type { FastifyError, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../common/errors.ts';
import { describeZodError } from '../common/wire.ts';

export interface ErrorBody {
  title: string;
  detail: string;
  status: number;
  requestId: string;
}

export const ErrorBodySchema = z.strictObject({ title: z.string(), detail: z.string(), status: z.number(), requestId: z.string() });

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError | z.ZodError | Error, request, reply) => {
    let status = 500;
    let title = 'Internal Server Error';
    let detail = 'An internal error occurred; the request id identifies it in the server log.';
    if (error instanceof HttpError) {
      status = error.status;
      title = error.title;
      detail = error.message;
    } else if (error instanceof z.ZodError) {
      status = 400;
      title = 'Bad Request';
      detail = describeZodError(error);
    } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode < 500) {
      // Fastify's own client errors: body too large, bad JSON, unsupported media type.
      status = error.statusCode;
      title = new HttpError(status, '').title;
      detail = error.message;
    }
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status, detail }, 'request refused');
    const body: ErrorBody = { title, detail, status, requestId: String(request.id) };
    void reply.status(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    const body: ErrorBody = {
      title: 'Not Found',
      detail: `No route ${request.method} ${request.url.split('?')[0]}`,
      status: 404,
      requestId: String(request.id),
    };
    void reply.status(404).send(body);
  });
}
