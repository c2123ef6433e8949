// Made-up secrets and personal data for the workload generator, each of a
// kind the default policy acts on: secrets are refused (secretlint rules),
// payment cards and IBANs are refused, phone numbers and emails are
// redacted. Values come from the seeded generator, pass the checksums the
// detectors check (Luhn, IBAN mod 97), and have never been valid
// credentials. Prefixes are assembled at run time so that no scanner takes
// this file for a leak.

/** What a sensitive record carries, and what the default policy does about it. */
export const SENSITIVE_KINDS = {
  aws_access_key_id: 'refused_secret',
  github_token: 'refused_secret',
  pem_private_key: 'refused_secret',
  slack_token: 'refused_secret',
  payment_card: 'refused_personal_data',
  iban: 'refused_personal_data',
  phone: 'redacted',
  email: 'redacted',
} as const;
export type SensitiveKind = keyof typeof SENSITIVE_KINDS;
export type SensitiveExpectation = (typeof SENSITIVE_KINDS)[SensitiveKind];

export const SECRET_KINDS: readonly SensitiveKind[] = [
  'aws_access_key_id',
  'github_token',
  'pem_private_key',
  'slack_token',
];
export const PERSONAL_KINDS: readonly SensitiveKind[] = ['payment_card', 'iban', 'phone', 'email'];

type Rand = () => number;

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = `${ALNUM}+/`;

function chars(r: Rand, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}
function digits(r: Rand, n: number): string {
  return chars(r, '0123456789', n);
}

/** Luhn check digit for a string of digits (the digit to append). */
export function luhnDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** ISO 13616 check digits for a country code and BBAN. */
export function ibanCheckDigits(country: string, bban: string): string {
  const rearranged = `${bban}${country}00`;
  let rem = 0;
  for (const ch of rearranged) {
    const v = /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + Number(d)) % 97;
  }
  return String(98 - rem).padStart(2, '0');
}

// Area codes in service (libphonenumber checks area code and exchange).
const US_AREA_CODES = ['212', '312', '415', '617', '206', '303', '512', '646', '702', '919'];

/** A sentence carrying one sensitive value of `kind`. */
export function sensitiveSentence(r: Rand, kind: SensitiveKind, name: string): string {
  switch (kind) {
    case 'aws_access_key_id':
      return `Use the deploy key ${['AK', 'IA'].join('')}${chars(r, B32, 16)} for the staging account.`;
    case 'github_token':
      return `My token is ${['gh', 'p_'].join('')}${chars(r, ALNUM, 36)} if the CI asks.`;
    case 'pem_private_key':
      return `Here is the server key:\n-----BEGIN RSA ${'PRIVATE'} KEY-----\nMIIEpAIBAAKCAQEA${chars(r, B64, 48)}\n-----END RSA ${'PRIVATE'} KEY-----`;
    case 'slack_token':
      return `The bot uses ${['xo', 'xb-'].join('')}${digits(r, 10)}-${digits(r, 13)}-${chars(r, ALNUM, 24)} to post.`;
    case 'payment_card': {
      const body = `4${digits(r, 14)}`;
      const card = `${body}${luhnDigit(body)}`.replace(/(\d{4})(?=\d)/g, '$1 ');
      return `Charge it to my card ${card}, expiry next year.`;
    }
    case 'iban': {
      const bban = digits(r, 18);
      const iban = `DE${ibanCheckDigits('DE', bban)}${bban}`.replace(/(.{4})(?=.)/g, '$1 ');
      return `Send the refund to IBAN ${iban} please.`;
    }
    case 'phone': {
      const area = US_AREA_CODES[Math.floor(r() * US_AREA_CODES.length)]!;
      const exchange = `${2 + Math.floor(r() * 8)}${Math.floor(r() * 9) + 1}${Math.floor(r() * 10)}`;
      return `You can reach ${name} at (${area}) ${exchange}-${digits(r, 4)} in the evening.`;
    }
    case 'email':
      return `Write to ${name.toLowerCase()}.${chars(r, UPPER, 5).toLowerCase()}@example.org about it.`;
  }
}
