// The authorization table as people read it: one row per use-case of the
// registry, one column per role. docs/authorization.md is this text, and a
// test fails when the file and the registry disagree, so the page can only
// describe the code.
import { ROLES } from '../record.ts';
import { USE_CASES } from './registry.ts';

export function authorizationMarkdown(): string {
  const head = [
    '# Authorization',
    '',
    'Who may run what, generated from the use-case registry',
    '(`packages/core/src/use-cases/registry.ts`; regenerate with `pnpm docs:authorization`).',
    'The engine refuses any other role with `forbidden_role` before a use-case runs.',
    'Today the HTTP server gives every caller the role of its configuration',
    '(`KEEPGRAPH_ROLE`); roles from credentials come with API keys.',
    '',
    `| use-case | what the caller is doing | ${ROLES.join(' | ')} |`,
    `|---|---|${ROLES.map(() => '---').join('|')}|`,
  ];
  const rows = Object.entries(USE_CASES).map(
    ([name, uc]) =>
      `| \`${name}\` | ${uc.action} | ${ROLES.map((r) => ((uc.roles as readonly string[]).includes(r) ? 'yes' : '')).join(' | ')} |`,
  );
  return [...head, ...rows, ''].join('\n');
}
