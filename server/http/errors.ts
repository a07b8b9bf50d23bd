// Typed errors with a status and a stable machine-readable code. The error middleware turns
// them into application/problem+json (RFC 9457); anything else becomes a generic 500.
export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export const badRequest = (code: string, message: string, errors?: FieldError[]) =>
  new AppError(400, code, message, errors);
export const validationFailed = (errors: FieldError[], message = 'The request is not valid') =>
  new AppError(400, 'validation_failed', message, errors);
export const unauthenticated = (message = 'Authentication is required') =>
  new AppError(401, 'unauthenticated', message);
export const forbidden = (message = 'You are not allowed to do this') => new AppError(403, 'forbidden', message);
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
