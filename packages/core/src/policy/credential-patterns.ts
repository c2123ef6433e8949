// Credential formats secretlint's recommended rules leave out, checked by
// secretlint's own pattern rule beside them (detect-secrets.ts). Each is
// the issuer's documented token format (prefix and alphabet), as secret
// scanners such as gitleaks and GitHub secret scanning match them; names are
// what a refusal reports. Matched values are never kept: secretlint masks
// them and the gate keeps the rule and position only.

/** One named family of credential formats, as RegExp-like strings (`/source/flags`). */
export interface CredentialPattern {
  name: string;
  patterns: string[];
}

// Characters a secret value in prose may use: not whitespace, not quotes.
const VALUE = String.raw`[^\s"'“”‘’]`;

export const CREDENTIAL_PATTERNS: readonly CredentialPattern[] = [
  // https://docs.stripe.com/keys: secret and restricted keys, live and test.
  { name: 'stripe-key', patterns: [String.raw`/\b[sr]k_(?:live|test)_[0-9A-Za-z]{10,247}\b/`] },
  // RFC 7519 compact serialisation: base64url header.payload.signature, header `{"...`.
  {
    name: 'json-web-token',
    patterns: [String.raw`/\beyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}/`],
  },
  // KeepGraph's own API keys (api-keys.ts): a leaked one is refused like any other.
  {
    name: 'keepgraph-api-key',
    patterns: [String.raw`/\bkgk_[0-9a-f]{16}_[0-9A-Za-z_-]{43}(?![0-9A-Za-z_-])/`],
  },
  // https://cloud.google.com/docs/authentication/api-keys: `AIza` and 35 more.
  { name: 'google-api-key', patterns: [String.raw`/\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/`] },
  // https://docs.gitlab.com/ee/security/tokens/: personal, deploy, runner, feed tokens.
  {
    name: 'gitlab-token',
    patterns: [String.raw`/\b(?:glpat|gldt|glrt|glft|glsoat|glptt)-[0-9A-Za-z_-]{20,}/`],
  },
  // OpenAI project and service-account keys, Anthropic API and admin keys.
  {
    name: 'ai-provider-key',
    patterns: [
      String.raw`/\bsk-(?:proj|svcacct|admin)-[0-9A-Za-z_-]{20,}/`,
      String.raw`/\bsk-ant-(?:api|admin)\d{2}-[0-9A-Za-z_-]{20,}/`,
    ],
  },
  // AWS access key ids, the documented example ones too (a memory is not a
  // test fixture), and a 40-character secret key named as one.
  {
    name: 'aws-key',
    patterns: [
      String.raw`/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/`,
      String.raw`/\b(?:aws)?_?secret(?:_access)?_?key\b\W{0,5}[A-Za-z0-9\/+]{40}(?![A-Za-z0-9\/+])/i`,
    ],
  },
  // An HTTP Authorization header or a bearer token pasted into text.
  {
    name: 'authorization-header',
    patterns: [
      String.raw`/\bAuthorization\s*:\s*(?:Bearer|Basic|Token|Digest)\s+[0-9A-Za-z._~+\/=-]{8,}/i`,
      String.raw`/\bBearer\s+[0-9A-Za-z._~+\/-]{20,}=*/`,
    ],
  },
  // A private key's armour is enough: a truncated key is still a key.
  {
    name: 'private-key',
    patterns: [String.raw`/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/`],
  },
  // Passwords, PINs and recovery codes stated in prose ("the database
  // password is Tr0ub4dor&3", "my PIN is 4821"): the value must hold a digit
  // or a symbol, so "my password is too weak" is not one.
  {
    name: 'stated-password',
    patterns: [
      String.raw`/\b(?:password|passwd|passphrase|passcode|pin(?: code| number)?|recovery codes?|backup codes?|security code)\s*(?:(?:is|was|are|=|:|reads|set to|changed to)\s*)+["'“‘]?(?=${VALUE}*[0-9!@#$%^&*])${VALUE}{4,}/i`,
    ],
  },
];
