// The HTTP side of errors: problem+json (RFC 9457) bodies and status titles. The typed errors
// and the registry of stable codes live in server/errors.ts.
import type { ErrorCode, FieldError } from '../errors.js';

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

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
}

export function problem(status: number, code: ErrorCode, detail: string, errors?: FieldError[]): ProblemBody {
  const body: ProblemBody = {
    type: `https://family-shopping.dev/problems/${code.replace(/_/g, '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
  };
  if (errors && errors.length) body.errors = errors;
  return body;
}
