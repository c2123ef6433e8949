// The policy module's public names: the policy file, its detectors and the gate.
export { isDuration, MAX_DURATION_SECONDS, parseDuration } from './duration.ts';
export {
  AUTHORITY_ACCEPTANCE,
  PERSONAL_DATA_ACTIONS,
  PERSONAL_DATA_KINDS,
  PolicySchema,
} from './policy-schema.ts';
export { DEFAULT_POLICY_PATH, defaultPolicy, loadPolicyFile, parsePolicy } from './policy-file.ts';
export type {
  AuthorityAcceptance,
  KindRule,
  PersonalDataAction,
  PersonalDataKind,
  Policy,
  TtlBounds,
} from './policy-schema.ts';
export { detectSecrets } from './detect-secrets.ts';
export type { SecretFinding } from './detect-secrets.ts';
export { detectPersonalData, redactPersonalData } from './detect-personal-data.ts';
export type { PersonalDataFinding, PersonalDataOptions } from './detect-personal-data.ts';
export {
  evaluateSessionMessage,
  evaluateStoredFields,
  evaluateWrite,
  ownerCap,
  sessionCap,
  tooManySources,
  ttlBounds,
} from './policy-gate.ts';
export type { GateDecision, GateInput, GateRefusal, SessionGateDecision } from './policy-gate.ts';
export { storedFields, type StoredField } from './stored-fields.ts';
