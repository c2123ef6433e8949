// A corpus of credentials and personal data, made at run time from a seed so
// that this file holds no literal secret for scanners to trip on and every
// value is unique to the run (a value found in the store's files can only
// have come from the one request that sent it). Formats follow each issuer's
// documentation; each value has a `needle`: the part that must never be
// stored (the random body of a token, the password in a sentence).
import { seededRandom } from '@keepgraph/core/testing';

export interface SensitiveValue {
  kind: string;
  /** What is sent in the field. */
  value: string;
  /** What must not be found stored, logged or audited. */
  needle: string;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const B64URL = ALNUM + '-_';

function maker(seed: number) {
  const rnd = seededRandom(seed);
  const pick = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  return { pick, int, rnd };
}

type Make = ReturnType<typeof maker>;

const same = (kind: string, value: string): SensitiveValue => ({ kind, value, needle: value });

/** One credential of each kind, in turn: `count` values spread over 17 kinds. */
const CREDENTIALS: ((m: Make) => SensitiveValue)[] = [
  (m) => same('aws-access-key-id', 'AKIA' + m.pick(UPPER + '234567', 16)),
  (m) => {
    const secret = m.pick(ALNUM + '/+', 40);
    return { kind: 'aws-secret-key', value: `aws_secret_access_key=${secret}`, needle: secret };
  },
  (m) => same('github-classic-token', 'ghp_' + m.pick(ALNUM, 36)),
  (m) => same('github-oauth-token', 'gho_' + m.pick(ALNUM, 36)),
  (m) => same('github-fine-grained', `github_pat_${m.pick(ALNUM, 22)}_${m.pick(ALNUM, 59)}`),
  (m) =>
    same(
      'slack-bot-token',
      `xoxb-${m.pick(DIGITS, 12)}-${m.pick(DIGITS, 13)}-${m.pick(ALNUM, 24)}`,
    ),
  (m) => same('stripe-secret', 'sk_live_' + m.pick(ALNUM, 24)),
  (m) => same('stripe-restricted', 'rk_live_' + m.pick(ALNUM, 24)),
  (m) => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const jwt = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(`{"sub":"${m.pick(DIGITS, 8)}","name":"${m.pick(LOWER, 6)}"}`)}.${m.pick(B64URL, 43)}`;
    return same('json-web-token', jwt);
  },
  (m) => same('openai-project-key', `sk-proj-${m.pick(B64URL, 48)}`),
  (m) => same('anthropic-key', `sk-ant-api03-${m.pick(B64URL, 93)}AA`),
  (m) => same('google-api-key', 'AIza' + m.pick(B64URL, 35)),
  (m) => same('gitlab-token', 'glpat-' + m.pick(ALNUM, 20)),
  (m) => {
    const token = m.pick(ALNUM, 32);
    return { kind: 'bearer-header', value: `Authorization: Bearer ${token}`, needle: token };
  },
  (m) => {
    const pass = m.pick(ALNUM, 10);
    return {
      kind: 'url-password',
      value: `postgres://admin:${pass}@db${m.int(1, 99)}.internal:5432/app`,
      needle: pass,
    };
  },
  (m) => {
    const body = m.pick(ALNUM + '+/', 64);
    return {
      kind: 'pem-private-key',
      value: `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`,
      needle: body,
    };
  },
  (m) => {
    const pass = `${m.pick(UPPER, 1)}${m.pick(LOWER, 6)}${m.pick(DIGITS, 2)}!${m.pick(LOWER, 2)}`;
    const what = ['database password', 'bank password', 'wifi password', 'PIN'][m.int(0, 3)]!;
    const secret = what === 'PIN' ? m.pick(DIGITS, 4) + m.pick(DIGITS, 2) : pass;
    // A PIN's digits alone turn up by chance in a database's bytes (times,
    // counters): for a PIN the needle is the statement itself.
    return {
      kind: 'stated-password',
      value: `my ${what} is ${secret}`,
      needle: what === 'PIN' ? `PIN is ${secret}` : secret,
    };
  },
];

export const CREDENTIAL_KINDS = CREDENTIALS.length;

/** `count` credentials (every kind in turn), from `seed`. */
export function credentials(count: number, seed: number): SensitiveValue[] {
  const m = maker(seed);
  return Array.from({ length: count }, (_, i) => CREDENTIALS[i % CREDENTIALS.length]!(m));
}

/** A Luhn-valid 16-digit card number starting with `prefix`. */
function cardNumber(m: Make, prefix: string): string {
  const digits = (prefix + m.pick(DIGITS, 15 - prefix.length)).split('').map(Number);
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits[digits.length - 1 - i]!;
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  const check = (10 - (sum % 10)) % 10;
  const n = digits.join('') + String(check);
  return n.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** A German IBAN with a valid ISO 13616 check (mod 97). */
function iban(m: Make): string {
  const bban = m.pick(DIGITS, 18);
  const numeric = `${bban}131400`; // "DE00" moved to the end, letters as numbers (D=13, E=14)
  let rem = 0;
  for (const ch of numeric) rem = (rem * 10 + Number(ch)) % 97;
  const check = String(98 - rem).padStart(2, '0');
  return `DE${check}${bban}`.replace(/(.{4})(?=.)/g, '$1 ');
}

const PERSONAL: ((m: Make) => SensitiveValue)[] = [
  (m) => same('email', `${m.pick(LOWER, 7)}.${m.pick(LOWER, 5)}@${m.pick(LOWER, 6)}.example.org`),
  (m) => same('phone-international', `+44 20 7${m.pick(DIGITS, 3)} ${m.pick(DIGITS, 4)}`),
  (m) => same('phone-us-national', `(415) ${m.int(2, 9)}${m.pick(DIGITS, 2)}-${m.pick(DIGITS, 4)}`),
  (m) => same('payment-card', cardNumber(m, '4')),
  (m) => same('iban', iban(m)),
];

export const PERSONAL_KINDS = PERSONAL.length;

/** `count` personal-data items (every kind in turn), from `seed`. */
export function personalData(count: number, seed: number): SensitiveValue[] {
  const m = maker(seed);
  return Array.from({ length: count }, (_, i) => PERSONAL[i % PERSONAL.length]!(m));
}
