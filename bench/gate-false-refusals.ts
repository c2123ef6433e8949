// False refusals of the policy gate on benign conversation: every turn of a
// memory-retrieval-eval/v1 dataset (locomo-dev's 1,451) through the default
// policy as a user episode, counted by refusal code; the turns refused as
// secrets or personal data are printed (their ids) to read by hand.
//   pnpm -s tsx bench/gate-false-refusals.ts --dataset ../shared/datasets/locomo-dev.json
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  DEFAULT_POLICY_PATH,
  evaluateWrite,
  loadPolicyFile,
  storedFields,
} from '@keepgraph/core/policy';
import { loadDataset } from '@keepgraph/cli/retrieval-eval';

const { values } = parseArgs({ options: { dataset: { type: 'string' } } });
if (!values.dataset) {
  console.error('usage: pnpm -s tsx bench/gate-false-refusals.ts --dataset FILE');
  process.exit(2);
}
const dataset = await loadDataset(resolve(values.dataset));
const policy = loadPolicyFile(DEFAULT_POLICY_PATH);
const byCode: Record<string, number> = {};
const flagged: { turn: string; code: string; text: string }[] = [];
let turns = 0;
let redacted = 0;
for (const conv of dataset.conversations)
  for (const t of conv.turns) {
    turns++;
    const origin = { sessionId: t.sessionId, turn: t.id, speaker: t.speaker };
    const d = await evaluateWrite(policy, {
      kind: 'episode',
      text: t.text,
      authority: 'user',
      sensitivity: 'low',
      origin,
      derived: false,
      // Every stored field, as remember() gates them: the owner id too.
      fields: [
        { path: 'ownerId', value: conv.id },
        ...storedFields({ key: undefined, tags: [], origin, about: [], relations: [] }),
      ],
    });
    if (d.ok) {
      if (d.text !== t.text) redacted++;
      continue;
    }
    byCode[d.code] = (byCode[d.code] ?? 0) + 1;
    if (d.code === 'refused_secret' || d.code === 'refused_personal_data')
      flagged.push({ turn: `${conv.id}/${t.id}`, code: d.code, text: t.text.slice(0, 120) });
  }
const refused = Object.values(byCode).reduce((a, b) => a + b, 0);
const falseRefusals = flagged.length;
console.log(
  JSON.stringify(
    {
      dataset: dataset.name,
      turns,
      refused,
      byCode,
      redacted,
      // Every turn is benign conversation: a secret or personal-data refusal is a false one.
      falseRefusals,
      falseRefusalShare: Math.round((10000 * falseRefusals) / turns) / 100,
      flagged,
    },
    null,
    2,
  ),
);
