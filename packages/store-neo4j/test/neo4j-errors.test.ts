// Which driver errors the store reports as `store_unavailable` (a 503 the
// client retries) and which it leaves as faults. The two ProtocolErrors are
// the driver's words for what recalls met as Neo4j stopped under them (a
// server run recalling from 12 clients while its Neo4j was stopped and
// started six times answered nine 500s with them before they were mapped).
import { describe, expect, it } from 'vitest';
import { Neo4jError, error as codes } from 'neo4j-driver';
import { neo4jDriverError } from '../src/neo4j-errors.ts';

const driverError = (message: string, code: string) => new Neo4jError(message, code, '50N42', '');

describe('neo4jDriverError', () => {
  it.each([
    ['Connection was closed by server', codes.PROTOCOL_ERROR],
    [
      'Failed to connect to server. Please ensure that your database is listening on the correct host and port. Caused by: read ECONNRESET',
      codes.PROTOCOL_ERROR,
    ],
    ["Connection lost. Server didn't respond in 30000ms", codes.PROTOCOL_ERROR],
    ['Connection was closed by server', codes.SERVICE_UNAVAILABLE],
    ['Database is unavailable', 'Neo.TransientError.General.DatabaseUnavailable'],
  ])('%s (%s) is store_unavailable', (message, code) => {
    const mapped = neo4jDriverError(driverError(message, code));
    expect(mapped?.code).toBe('store_unavailable');
    // The driver's words stay on `cause`, for the log; never in an answer.
    expect(mapped?.message).toBe('the graph database is unavailable');
  });

  it('leaves a ProtocolError about what was sent unmapped: that is our fault, a 500', () => {
    const sent = driverError(
      'It is not allowed to pass nodes in query parameters, given: (n)',
      codes.PROTOCOL_ERROR,
    );
    expect(neo4jDriverError(sent)).toBeNull();
  });

  it('maps a uniqueness refusal to conflict, and nothing that is not the driver’s', () => {
    expect(
      neo4jDriverError(driverError('exists', 'Neo.ClientError.Schema.ConstraintValidationFailed'))
        ?.code,
    ).toBe('conflict');
    expect(neo4jDriverError(new Error('Connection was closed by server'))).toBeNull();
  });
});
