// What every route plugin receives: the engine and how to name the caller.
// The caller comes from server configuration (later: credentials), never
// from the request body, so a payload cannot raise its own authority.
import type { FastifyRequest } from 'fastify';
import type { Caller, Engine } from '@keepgraph/core';

/** Options shared by the route plugins. */
export interface RouteOptions {
  engine: Engine;
  /** The caller of a request: role and principal from config, request id from Fastify. */
  callerOf(request: FastifyRequest): Caller;
}
