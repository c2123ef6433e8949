// Finds personal data (emails, phone numbers, payment cards, IBANs) in a text
// and redacts it, so the gate can refuse or redact as the policy says.
// Card numbers and IBANs are only reported when their checksums hold (and a
// card's issuer prefix agrees with its length), which is what keeps ordinary
// numbers, prices, dates and years from being flagged.
import { findPhoneNumbersInText } from 'libphonenumber-js';
import type { CountryCode } from 'libphonenumber-js';
import { isValidIBAN } from 'ibantools';
import cardValidator from 'card-validator';
import { PERSONAL_DATA_KINDS } from './policy-schema.ts';
import type { PersonalDataKind } from './policy-schema.ts';

/** One piece of personal data found: its kind and where. No content. */
export interface PersonalDataFinding {
  kind: PersonalDataKind;
  /** Character offsets `[start, end)` in the text. */
  range: [number, number];
}

/** Options for {@link detectPersonalData}. */
export interface PersonalDataOptions {
  /**
   * Country whose national format is assumed for phone numbers written
   * without `+` and a country code, e.g. `US` reads "(415) 555-2671".
   * Default `US`; `null` looks only for international numbers. Numbers with
   * `+` are found whatever this says.
   */
  phoneRegion?: string | null;
}

// Local part and domain kept simple on purpose: it must find addresses people
// type in chat, not validate RFC 5322.
const EMAIL_RE =
  /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}(?![\w-])/g;

// 13 to 19 digits, optionally grouped by single spaces or dashes, not glued
// to other digits, letters or separators.
const CARD_CANDIDATE_RE = /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w]|-\d)/g;

// A country code, check digits, then 11 to 30 letters or digits, optionally
// in groups; candidates are shrunk group by group until the checksum holds.
const IBAN_CANDIDATE_RE =
  /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])/g;

function findEmails(text: string): PersonalDataFinding[] {
  return [...text.matchAll(EMAIL_RE)].map((m) => ({
    kind: 'email',
    range: [m.index, m.index + m[0].length],
  }));
}

function findCards(text: string): PersonalDataFinding[] {
  const out: PersonalDataFinding[] = [];
  for (const m of text.matchAll(CARD_CANDIDATE_RE)) {
    // A run may carry more digits than the card ("4111 1111 1111 1111 20"):
    // try the longest prefix that ends where a digit group ends.
    for (let end = m[0].length; end > 0; end = m[0].slice(0, end).search(/[ -]\d*$/)) {
      const candidate = m[0].slice(0, end);
      const digits = candidate.replace(/[ -]/g, '');
      if (digits.length < 13) break;
      // card-validator checks the issuer prefix, the lengths that issuer
      // uses and the Luhn digit (UnionPay included, which it skips by
      // default): Luhn alone passes one random run of digits in ten.
      if (
        digits.length <= 19 &&
        cardValidator.number(digits, { luhnValidateUnionPay: true }).isValid
      ) {
        out.push({ kind: 'payment_card', range: [m.index, m.index + candidate.length] });
        break;
      }
    }
  }
  return out;
}

function findIbans(text: string): PersonalDataFinding[] {
  const out: PersonalDataFinding[] = [];
  for (const m of text.matchAll(IBAN_CANDIDATE_RE)) {
    // The pattern may swallow following words written in capitals or digits
    // ("... 0130 00 ABC"); try the longest run of whole groups first.
    const groups = m[0].split(' ');
    for (let n = groups.length; n >= 1; n--) {
      const candidate = groups.slice(0, n).join(' ');
      const compact = candidate.replace(/ /g, '').toUpperCase();
      if (compact.length < 15 || compact.length > 34) continue;
      if (isValidIBAN(compact)) {
        out.push({ kind: 'iban', range: [m.index, m.index + candidate.length] });
        break;
      }
    }
  }
  return out;
}

/**
 * UUIDs in their canonical form. Their last group is 12 hex digits, and
 * about one random UUID in 65,000 has a last group of decimal digits that
 * libphonenumber reads as a valid number (owner-…-118299962346): an id
 * refused as a phone number. A number inside a UUID is part of the id.
 */
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

function findPhones(text: string, region: string | null): PersonalDataFinding[] {
  const found = region
    ? findPhoneNumbersInText(text, { defaultCountry: region as CountryCode })
    : findPhoneNumbersInText(text);
  const ids = [...text.matchAll(UUID)].map((m) => [m.index, m.index + m[0].length] as const);
  return found
    .filter((f) => !ids.some(([start, end]) => f.startsAt >= start && f.endsAt <= end))
    .map((f) => ({ kind: 'phone', range: [f.startsAt, f.endsAt] }));
}

const FINDERS: Readonly<
  Record<PersonalDataKind, (text: string, region: string | null) => PersonalDataFinding[]>
> = {
  email: findEmails,
  phone: findPhones,
  payment_card: findCards,
  iban: findIbans,
};

// When two findings overlap (the digits of an IBAN may also pass as a phone
// number or a card), the more specific kind wins.
const PRIORITY: readonly PersonalDataKind[] = ['iban', 'payment_card', 'email', 'phone'];

/**
 * Finds personal data of the given kinds (all by default) in `text`.
 * Returns non-overlapping findings sorted by position.
 */
export function detectPersonalData(
  text: string,
  kinds: readonly PersonalDataKind[] = PERSONAL_DATA_KINDS,
  options: PersonalDataOptions = {},
): PersonalDataFinding[] {
  const region = options.phoneRegion === undefined ? 'US' : options.phoneRegion;
  const kept: PersonalDataFinding[] = [];
  for (const kind of PRIORITY) {
    if (!kinds.includes(kind)) continue;
    const found = FINDERS[kind](text, region);
    for (const f of found) {
      if (!kept.some((k) => f.range[0] < k.range[1] && k.range[0] < f.range[1])) kept.push(f);
    }
  }
  return kept.sort((a, b) => a.range[0] - b.range[0]);
}

/**
 * Replaces each finding with `[redacted:<kind>]`. Findings must not overlap
 * (as {@link detectPersonalData} returns them).
 */
export function redactPersonalData(text: string, findings: readonly PersonalDataFinding[]): string {
  // Right to left, so earlier offsets stay valid as lengths change.
  const ordered = [...findings].sort((a, b) => b.range[0] - a.range[0]);
  let out = text;
  for (const f of ordered) {
    out = `${out.slice(0, f.range[0])}[redacted:${f.kind}]${out.slice(f.range[1])}`;
  }
  return out;
}
