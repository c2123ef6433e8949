// Command-line flags of the performance scripts, declared by their defaults:
// a number default makes a numeric flag (Number() of what was given), a
// string default a string one, a boolean default a switch (given or not),
// and `optional` names string flags without a default. Parsed by node's
// parseArgs, strict: an unknown flag is an error.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Flags<D, O extends string> = {
  [K in keyof D]: D[K] extends number ? number : D[K] extends boolean ? boolean : string;
} & {
  [K in O]?: string;
};

export function parseFlags<
  D extends Record<string, string | number | boolean>,
  O extends string = never,
>(defaults: D, optional: readonly O[] = []): Flags<D, O> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, d] of Object.entries(defaults))
    options[name] =
      typeof d === 'boolean'
        ? { type: 'boolean', default: d }
        : { type: 'string', default: String(d) };
  for (const name of optional) options[name] = { type: 'string' };
  const { values } = parseArgs({ options });
  const flags: Record<string, string | number | boolean | undefined> = {};
  for (const [name, d] of Object.entries(defaults)) {
    const given = values[name] as string | boolean;
    flags[name] = typeof d === 'number' ? Number(given) : given;
  }
  for (const name of optional) flags[name] = values[name] as string | undefined;
  return flags as Flags<D, O>;
}
