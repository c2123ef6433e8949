// The one place where failures become HTTP responses. Every error body is
// `{ error: { code, message, details? } }` with a KeepGraph code, and its
// status comes from the HTTP_STATUS table. Bad input (Fastify's parser and
// validation errors included) is always a 4xx; only genuine faults are 500,
// and those answer with a generic message while the error is logged.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isKeepGraphError, type ErrorBody, type ErrorCode } from '@keepgraph/core';
import { HTTP_STATUS, RETRY_AFTER_SECONDS } from './http-status.ts';

interface Mapped {
  status: number;
  body: ErrorBody;
  /** Whether this is a server fault worth an error-level log line. */
  fault: boolean;
}

function mapped(code: ErrorCode, message: string, details?: Record<string, unknown>): Mapped {
  const status = HTTP_STATUS[code];
  return {
    status,
    body: { error: { code, message, ...(details && { details }) } },
    fault: status >= 500,
  };
}

/** Fastify's parser errors that mean "the client sent something unreadable", with a readable message. */
const FASTIFY_INPUT_ERRORS: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'the body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the body is empty; send a JSON object',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content type; send application/json',
  FST_ERR_CTP_EMPTY_TYPE: 'missing content type; send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the content length does not match the body',
  FST_ERR_BAD_URL: 'the URL is not valid: a %-escape does not decode to UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'a path segment is too long: ids have at most 256 characters',
  FST_ERR_ASYNC_CONSTRAINT: 'the request does not match a route constraint',
};

interface ValidationIssue {
  instancePath?: string;
  message?: string;
}

/**
 * Send an error answer: its status, its body, and Retry-After for the codes
 * that mean "not now". Every path that answers an error sends it here.
 */
export function sendError(reply: FastifyReply, m: Pick<Mapped, 'status' | 'body'>): FastifyReply {
  const retryAfter = RETRY_AFTER_SECONDS[m.body.error.code];
  if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
  return reply.status(m.status).send(m.body);
}

/** Turn any thrown value into a status and an error body. */
export function toHttpError(err: unknown, bodyLimit: number): Mapped {
  if (isKeepGraphError(err)) {
    // `internal` from core may carry internals in its message: keep it generic.
    if (err.code === 'internal') return { ...mapped('internal', 'internal error'), fault: true };
    return mapped(err.code, err.message, err.details);
  }
  const e = err as Partial<FastifyError> & { validationContext?: string };

  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return mapped('payload_too_large', `the body is larger than the limit of ${bodyLimit} bytes`, {
      limitBytes: bodyLimit,
    });
  }
  if (e.validationContext !== undefined || e.code === 'FST_ERR_VALIDATION') {
    const where = e.validationContext ?? 'request';
    const raw = (Array.isArray(e.validation) ? e.validation : []) as ValidationIssue[];
    // Same shape as the engine's invalid_input issues: { path, message }.
    const issues =
      raw.length > 0
        ? raw.map((i) => ({
            path: [where, ...(i.instancePath ?? '').split('/').filter(Boolean)].join('.'),
            message: i.message ?? 'invalid',
          }))
        : [{ path: where, message: e.message ?? 'invalid' }];
    return mapped('invalid_input', issues.map((i) => `${i.path}: ${i.message}`).join('; '), {
      issues,
    });
  }
  if (e.code && e.code in FASTIFY_INPUT_ERRORS) {
    // Fastify's code is an internal name: the message says what was wrong.
    return mapped('invalid_input', FASTIFY_INPUT_ERRORS[e.code]!);
  }
  // Any other client error Fastify or a plugin raised (e.g. a static file
  // that does not exist) keeps its meaning, never becomes a 500.
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status === 404) return mapped('not_found', e.message ?? 'not found');
  if (status === 413)
    return mapped('payload_too_large', e.message ?? 'payload too large', { limitBytes: bodyLimit });
  if (status >= 400 && status < 500) return mapped('invalid_input', e.message ?? 'invalid request');
  return { ...mapped('internal', 'internal error'), fault: true };
}

/** What Node's HTTP server refused before any route, as a code and a message for a client (its codes are internal names). */
function clientErrorOf(code: string | undefined): Mapped {
  if (code === 'HPE_HEADER_OVERFLOW')
    return mapped('headers_too_large', 'the request headers are larger than the server takes');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return mapped('request_timeout', 'the request did not arrive in time');
  return mapped(
    'invalid_input',
    'the request is not valid HTTP/1.1 (its request line, a header or its framing)',
  );
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (a
 * malformed request line or header, Content-Length beside
 * Transfer-Encoding, a bad chunk, headers past the limit, a body cut
 * short) reaches no route and no error handler, so it is answered here,
 * in the same format as every other refusal, and the connection closed.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const m = clientErrorOf(err.code);
  const body = JSON.stringify(m.body);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${m.status} ${STATUS_CODES[m.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}

/** Install the error handler and the not-found handler on the root instance. */
export function installErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const m = toHttpError(err, bodyLimit);
    if (m.fault) request.log.error({ err }, 'request failed');
    else request.log.info({ code: m.body.error.code }, 'request refused');
    return sendError(reply, m);
  });
  app.setNotFoundHandler((request, reply) => {
    const body: ErrorBody = {
      error: {
        code: 'not_found',
        message: `no route ${request.method} ${request.url.split('?')[0]}`,
      },
    };
    return reply.status(HTTP_STATUS.not_found).send(body);
  });
}
