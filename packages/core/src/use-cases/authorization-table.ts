// The authorization matrix: for every use-case, every role and every kind of
// owner a request can name, what the engine answers. It is read twice: the
// HTTP matrix test sends each cell through every route and expects exactly
// this, and docs/authorization.md is this table rendered, so the page, the
// test and the engine can only say the same thing.
import { ROLES, type Role } from '../domain/record.ts';
import { OWNER_ID } from './define.ts';
import { USE_CASES, type UseCaseName } from './registry.ts';

/**
 * The owner a request names, against its credential: one the credential
 * holds, one of another tenant, one that exists nowhere. In the matrix an
 * operator's credential holds every owner; every other role's holds one.
 */
export const OWNER_CASES = ['in_scope', 'out_of_scope', 'absent'] as const;
export type OwnerCase = (typeof OWNER_CASES)[number];

/**
 * What the engine answers: the use-case runs (`allowed`; for an absent
 * owner, its own answer for an owner with nothing), or it is refused before
 * anything is read. `not_applicable`: the case cannot arise (an operator's
 * credential holds every owner; a use-case that names no owner).
 */
export type AuthorizationOutcome =
  'allowed' | 'forbidden_role' | 'owner_out_of_scope' | 'not_applicable';

/** The scope each role's credential has in the matrix. */
export function matrixScope(role: Role): 'all' | 'one' {
  return role === 'operator' ? 'all' : 'one';
}

/**
 * How a use-case meets owners: through an argument, a filter it may be
 * narrowed by, only as the caller's own (`callerScoped`), or not at all
 * (it spans every owner).
 */
export function ownerShape(name: UseCaseName): 'owner' | 'narrowed' | 'caller' | 'none' {
  const uc = USE_CASES[name];
  if (uc.args.some((a) => a.schema === OWNER_ID)) return 'owner';
  if ('scope' in uc && uc.scope === 'caller') return 'caller';
  return 'ownerIn' in uc ? 'narrowed' : 'none';
}

export function authorizationOutcome(
  name: UseCaseName,
  role: Role,
  ownerCase: OwnerCase,
): AuthorizationOutcome {
  const shape = ownerShape(name);
  if ((shape === 'none' || shape === 'caller') && ownerCase !== 'in_scope') return 'not_applicable';
  const all = matrixScope(role) === 'all';
  if (all && ownerCase === 'out_of_scope') return 'not_applicable';
  if (!(USE_CASES[name].roles as readonly Role[]).includes(role)) return 'forbidden_role';
  // The caller's own: any scope may ask, and hears of its own owners only.
  if (shape === 'caller') return 'allowed';
  if (shape === 'none') return all ? 'allowed' : 'owner_out_of_scope';
  return all || ownerCase === 'in_scope' ? 'allowed' : 'owner_out_of_scope';
}

const CELL: Readonly<Record<AuthorizationOutcome, string>> = {
  allowed: 'ok',
  forbidden_role: 'role',
  owner_out_of_scope: 'scope',
  not_applicable: '·',
};

/** One matrix cell as the page shows it: the three owner cases, in order. */
export function authorizationCell(name: UseCaseName, role: Role): string {
  return OWNER_CASES.map((c) => CELL[authorizationOutcome(name, role, c)]).join(' / ');
}

/** The roles, in the page's column order. */
export const MATRIX_ROLES: readonly Role[] = ROLES;
