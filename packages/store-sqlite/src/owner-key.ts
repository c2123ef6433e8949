// The owner token of the full-text index (see migration 0004): 'zz' plus the
// owner id's UTF-8 bytes in hex, digits spelt as consonants so that neither
// the unicode61 tokenizer nor the porter stemmer changes it.
const DIGITS = 'bcdfghjkmnpqrtvw';

export function ftsOwnerKey(ownerId: string): string {
  let out = 'zz';
  for (const byte of Buffer.from(ownerId, 'utf8')) out += DIGITS[byte >> 4]! + DIGITS[byte & 15]!;
  return out;
}
