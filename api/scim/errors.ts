// The SCIM error body (RFC 7644 §3.12) for everything a /scim/v2 route throws: SCIM's own errors, the
// server's HttpErrors, zod's refusals of a body, and Fastify's own 4xx errors.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../../common/errors.ts';
import { describeZodError } from '../../common/wire.ts';
import { AliasTakenError } from '../aliases/store.ts';
import { boundDetail } from '../http/errors.ts';
import { SCIM_CONTENT_TYPE, ScimError, scimErrorBody } from './schema.ts';

/** SCIM error bodies for everything a /scim/v2 route throws (Fastify's own 4xx errors included). */
export function scimErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  let status = 500;
  let detail = 'An internal error occurred; the request id identifies it in the server log.';
  let scimType: ScimError['scimType'];
  if (error instanceof ScimError) {
    status = error.status;
    detail = error.message;
    scimType = error.scimType;
  } else if (error instanceof AliasTakenError) {
    status = error.status;
    detail = error.message;
    scimType = 'uniqueness';
  } else if (error instanceof HttpError) {
    status = error.status;
    detail = error.message;
  } else if (error instanceof z.ZodError) {
    status = 400;
    detail = describeZodError(error);
    scimType = 'invalidValue';
  } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    status = error.statusCode;
    detail = error.message;
    if (status === 400) scimType = 'invalidSyntax';
  }
  if (status >= 500) request.log.error({ err: error }, 'scim request failed');
  else request.log.info({ status, detail, scimType }, 'scim request refused');
  void reply
    .status(status)
    .type(SCIM_CONTENT_TYPE)
    .send(scimErrorBody(status, status < 500 ? boundDetail(detail) : detail, scimType));
}
