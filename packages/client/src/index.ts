// @keepgraph/client: the KeepGraph HTTP API for TypeScript, in Node 20 and
// browsers. Types come from @keepgraph/core (type-only imports: nothing of
// core is loaded at run time).
export {
  KeepGraphClient,
  ROUTES,
  type CallOptions,
  type ClientOptions,
  type DeletionAnswer,
  type Out,
  type RouteName,
  type ExposedName,
  type UseCaseArgs,
} from './client.ts';
export { KeepGraphError, isKeepGraphError, type ClientErrorCode } from './errors.ts';
