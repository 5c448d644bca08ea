import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from '../../lib/idempotency/request-fingerprint';

const ENGINE = '5A22C6DFE641404096876E9928EA1294.hikari';

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson(['b', 'a'])).toBe('["b","a"]');
  });

  it('escapes strings as JSON does', () => {
    expect(canonicalJson({ 'k"': 'line\nbreak "quoted" 明日' })).toBe(
      '{"k\\"":"line\\nbreak \\"quoted\\" 明日"}',
    );
  });
});

describe('requestFingerprint', () => {
  const base = { engineId: ENGINE, showRefs: false, body: { lyrics: ['la la'], bgm_index: 0 } };

  it('is the same for bodies that differ only in key order', () => {
    expect(requestFingerprint(base)).toBe(
      requestFingerprint({ ...base, body: { bgm_index: 0, lyrics: ['la la'] } }),
    );
    expect(requestFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs when the engine, show_refs or any body value differs', () => {
    const fingerprints = [
      requestFingerprint(base),
      requestFingerprint({ ...base, engineId: `${ENGINE.split('.')[0]}.leo` }),
      requestFingerprint({ ...base, showRefs: true }),
      requestFingerprint({ ...base, body: { lyrics: ['la la'], bgm_index: 1 } }),
      requestFingerprint({ ...base, body: { lyrics: ['la', 'la'], bgm_index: 0 } }),
      requestFingerprint({ ...base, body: { lyrics: ['la la'] } }),
    ];
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
  });
});
