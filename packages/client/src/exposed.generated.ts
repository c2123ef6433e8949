// Generated from the use-case registry by `pnpm generate:bindings`: do not edit.
// The HTTP binding of every use-case whose registry row declares its
// exposure (core's exposure.ts); KeepGraphClient.invoke calls them by name.
import type { HttpBinding } from '@keepgraph/core';

/** Each exposed use-case's route, as ROUTES spells routes. */
export const EXPOSED_ROUTES = {
  ownerStats: 'GET /owners/:ownerId/stats',
} as const;

export type ExposedName = keyof typeof EXPOSED_ROUTES;

/** How each exposed use-case's arguments travel (core's httpBinding). */
export const EXPOSED: Readonly<Record<ExposedName, HttpBinding>> = {
  ownerStats: {
    method: 'GET',
    path: '/owners/:ownerId/stats',
    args: [
      {
        name: 'ownerId',
        in: 'path',
        optional: false,
      },
    ],
    restIn: 'query',
    write: false,
    status: 200,
  },
};
