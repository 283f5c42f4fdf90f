// The one typed error of the HTTP layer (mapped to {title, detail, status, requestId} in api/http/errors.ts),
// and a plain user-facing error for the CLI.

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class HttpError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(status: number, detail: string) {
    super(detail);
    this.status = status;
    this.title = TITLES[status] ?? 'Error';
  }
}

export const badRequest = (detail: string) => new HttpError(400, detail);
export const unauthorized = (detail = 'API key missing or invalid') => new HttpError(401, detail);
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail: string) => new HttpError(404, detail);

/**
 * The exit status of `agentmeter collect` when the server refuses its key (401/403): EX_CONFIG of
 * sysexits.h. Distinct from the 1 of any other failure, so a service manager can restart a collector
 * that crashed but not one whose key is refused (the systemd unit's RestartPreventExitStatus=).
 */
export const EXIT_CREDENTIALS_REFUSED = 78;

/** An error whose message is meant for the person at the terminal: printed without a stack. */
export class UserError extends Error {
  /** The process's exit status when this error ends the command. */
  readonly exitCode: number;
  constructor(message: string, options: { exitCode?: number } = {}) {
    super(message);
    this.exitCode = options.exitCode ?? 1;
  }
}
