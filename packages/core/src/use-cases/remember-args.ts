// The arguments of the write use-cases (remember.ts): apart from their
// bodies, which load the policy gate, so that the registry reads them
// without it (see registry.ts).
import { z } from 'zod';
import { MemoryInputSchema, type MemoryInput } from '../domain/record.ts';
import { OWNER_ID, arg, uncheckedArg } from './define.ts';

export const RememberArgs = [
  arg('ownerId', OWNER_ID),
  arg('input', uncheckedArg(MemoryInputSchema)),
] as const;

export const PutByKeyArgs = [
  arg('ownerId', OWNER_ID),
  arg('key', z.custom<string>()),
  // A memory input without its key; parsed as a whole memory by the body, so
  // the key from the argument wins over one in the input.
  arg(
    'input',
    uncheckedArg(z.custom<Omit<MemoryInput, 'key' | 'kind'> & { kind?: MemoryInput['kind'] }>()),
  ),
] as const;

export const RememberManyArgs = [
  arg('ownerId', OWNER_ID),
  // Each item is parsed on its own by the body, so one bad item fails alone.
  arg('items', z.custom<readonly unknown[]>()),
] as const;
