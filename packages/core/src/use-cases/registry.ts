// Every use-case, by the engine method name it gets. Each is defined once,
// beside its body (defineUseCase: roles, input schemas, run); the engine is
// derived from this table (engine.ts lists nothing by hand) and checks the
// caller, the declared roles and the input before a body runs. The HTTP
// routes, the CLI and later the MCP tools call through the engine, and tests
// check that each of them names a use-case of this table.
import { exportPageUseCase } from './export.ts';
import {
  expireDueUseCase,
  forgetOwnerUseCase,
  forgetUseCase,
  revokeSourceUseCase,
  verifyForgottenUseCase,
} from './forget.ts';
import { auditListUseCase, auditVerifyUseCase, kpisUseCase } from './operate.ts';
import {
  getByKeyUseCase,
  getUseCase,
  lineageUseCase,
  recallUseCase,
  whyUseCase,
} from './recall.ts';
import { putByKeyUseCase, rememberManyUseCase, rememberUseCase } from './remember.ts';
import { deleteSessionUseCase, sessionAppendUseCase, sessionContextUseCase } from './session.ts';

export { defineUseCase, type UseCase } from './define.ts';

export const USE_CASES = {
  remember: rememberUseCase,
  rememberMany: rememberManyUseCase,
  putByKey: putByKeyUseCase,
  recall: recallUseCase,
  why: whyUseCase,
  get: getUseCase,
  lineage: lineageUseCase,
  getByKey: getByKeyUseCase,
  exportPage: exportPageUseCase,
  forget: forgetUseCase,
  forgetOwner: forgetOwnerUseCase,
  revokeSource: revokeSourceUseCase,
  verifyForgotten: verifyForgottenUseCase,
  expireDue: expireDueUseCase,
  sessionAppend: sessionAppendUseCase,
  sessionContext: sessionContextUseCase,
  deleteSession: deleteSessionUseCase,
  auditList: auditListUseCase,
  auditVerify: auditVerifyUseCase,
  kpis: kpisUseCase,
} as const;

export type UseCaseName = keyof typeof USE_CASES;
