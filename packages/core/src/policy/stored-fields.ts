// Every string a write stores besides its text, with the path a refusal
// names: the gate reads them all (invariant 4), since a secret in a key, a
// tag, a tool call id or a relation's object is kept just as surely as one
// in the text. Derived from the parsed input, so a field added to the
// schema and forgotten here is a field the gate does not read: keep the two
// together.
import type { ParsedMemoryInput } from '../domain/record.ts';

/** One stored string and where it sits in the input (`origin.tool.callId`, `relations[0].reason`). */
export interface StoredField {
  path: string;
  value: string;
}

/** The strings of `input` stored beside its text (the text and the source uri are read on their own). */
export function storedFields(
  input: Pick<ParsedMemoryInput, 'key' | 'tags' | 'origin' | 'about' | 'relations'>,
): StoredField[] {
  const out: StoredField[] = [];
  const add = (path: string, value: string | null | undefined) => {
    if (value) out.push({ path, value });
  };
  add('key', input.key);
  input.tags.forEach((t, i) => add(`tags[${i}]`, t));
  const o = input.origin;
  add('origin.sessionId', o.sessionId);
  add('origin.turn', o.turn);
  add('origin.messageId', o.messageId);
  add('origin.speaker', o.speaker);
  add('origin.tool.name', o.tool?.name);
  add('origin.tool.callId', o.tool?.callId);
  add('origin.extractor.name', o.extractor?.name);
  add('origin.extractor.version', o.extractor?.version);
  add('origin.extractor.model', o.extractor?.model);
  add('origin.extractor.promptVersion', o.extractor?.promptVersion);
  input.about.forEach((e, i) => {
    add(`about[${i}].name`, e.name);
    add(`about[${i}].type`, e.type);
  });
  input.relations.forEach((r, i) => {
    add(`relations[${i}].subject.name`, r.subject.name);
    add(`relations[${i}].subject.type`, r.subject.type);
    add(`relations[${i}].object.name`, r.object.name);
    add(`relations[${i}].object.type`, r.object.type);
    add(`relations[${i}].reason`, r.reason);
  });
  return out;
}
