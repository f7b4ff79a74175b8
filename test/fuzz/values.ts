/**
 * Hostile values for the fuzzer: text, numbers, JSON and repeat rules as a careless or malicious
 * client sends them. Plausible values are mixed in on purpose, so that requests get past the first
 * check and reach the rules, the store and the presenters behind it.
 *
 * No value here contains what the oracle looks for in answers (stack frames, file paths, error
 * class names): an echo of the request must never look like a leak.
 */
import fc from 'fast-check';

/** Any UTF-16 code unit, lone surrogates, U+0000 and U+FFFE included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

const SPECIAL_TEXT = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uD83D',
  '\uDE00y',
  '😀',
  '\uFEFF',
  '\uFFFE',
  '\uFFFF',
  '\r\n',
  '\t',
  '<a href="x">&amp;</a>',
  ']]>',
  '"\'`',
  '%',
  '%00',
  '%ZZ',
  '%ED%A0%80',
  '%C3%28',
  '+',
  '&',
  '=',
  ';',
  ',',
  ',,,',
  '\\',
  '../../x',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  'true',
  'false',
  '[]',
  '{}',
  '[',
  '{"a":',
  "' OR 1=1 --",
  '${x}',
  'ǅ',
  'ﬃ',
  'İ',
  'e\u0301',
  '\u202Eevil',
  'Ω',
];

/** Text at and past the limits of the fields (64, 250, 255 characters; 32 KiB), and far past. */
const longText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(63, 64, 65, 250, 251, 255, 256, 1024, 32_768, 32_769, 32_769, 70_000), fc.constantFrom('a', 'é', '😀', '\u0000', '\uD800', ' '))
  .map(([n, c]) => c.repeat(n));

/** Text of every kind: random code units, known troublemakers, now and then a very long one. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: codeUnit, maxLength: 24 }) },
  { weight: 8, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 10, arbitrary: fc.constantFrom(...SPECIAL_TEXT) },
  { weight: 1, arbitrary: longText },
);

const SPECIAL_NUMBERS = [
  0, -0, 1, -1, 2, 3, 4, 10, 11, 0.5, 1.5, 2.9, -1.5, 1e-7, 5e-324, 2_147_483_647, 2_147_483_648, -2_147_483_648, -2_147_483_649,
  4_294_967_296, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1e21, 1e100, 1.7976931348623157e308, 253_402_300_799, 253_402_300_800, 86_399,
  86_400, 1_767_268_800, -1_767_268_800,
];

/** Numbers as JSON carries them: integers, fractions, the edges of every range the API has. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(...SPECIAL_NUMBERS),
  fc.integer(),
  fc.integer({ min: -5, max: 40 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Numbers as form fields carry them, well and badly written. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  hostileNumber.map(String),
  fc.constantFrom('1e3', '1E+3', '.5', '5.', '+7', ' 7 ', '0x10', '0b1', '1_000', '١', '７', '1,5', '--1', '1e309', '-1e309', '123456789012345678901234567890', '00000000001', '5.0', '5.00000000000000000001'),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
);

/** Text made of `depth` nested arrays or objects: deep nesting in JSON bodies and fields. */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(10, 100, 1_000, 10_000, 100_000), fc.boolean(), fc.boolean())
  .map(([depth, arrays, closed]) => {
    const [open, close] = arrays ? ['[', ']'] : ['{"a":', '}'];
    return open.repeat(depth) + '1' + (closed ? close.repeat(depth) : '');
  });

/** Any JSON value, of a small size. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [[]], { '': '' }, JSON.parse('{"__proto__":1}') as unknown, { constructor: 'x' }) },
);

/** A value for any parameter or field: typed well or badly, or of the wrong type altogether. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 2, arbitrary: numberText },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: jsonValue },
);

const FREQS = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY', 'HOURLY', 'MINUTELY', 'SECONDLY', 'daily', '', 'X', 'DAILY,WEEKLY'];
const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU', 'mo', 'XX', ''];
const LEGACY = [
  'Daily',
  'Weekly',
  'Biweekly',
  'Monthly',
  'Bimonthly',
  'Quarterly',
  'Semiannually',
  'Yearly',
  'With Parent',
  'Every 1 day',
  'Every 0 days',
  'Every -3 weeks',
  'Every 99999999999 years',
  'Every weekday',
  'Every weekend',
  'Every Monday',
  'Every Mon, Wed and Fri',
  'The 2nd Tuesday of each month',
  'The last Friday of every month',
  'The 5th Sunday of each month',
  'On the 31st of every month',
  'Every 1.5 days',
];

const ruleNumber = fc.oneof(fc.integer({ min: -400, max: 400 }), fc.constantFrom(0, 1, 2, 2_147_483_647, 2_147_483_648, 1e9, -1), numberText.map((t) => t as unknown as number));
const dayPart = fc.tuple(fc.option(fc.integer({ min: -60, max: 60 }), { nil: undefined }), fc.constantFrom(...DAYS)).map(([n, d]) => `${n ?? ''}${d}`);
const list = <T>(a: fc.Arbitrary<T>) => fc.array(a, { minLength: 0, maxLength: 8 }).map((xs) => xs.join(','));

const rulePart: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...FREQS).map((f) => `FREQ=${f}`),
  ruleNumber.map((n) => `INTERVAL=${n}`),
  ruleNumber.map((n) => `COUNT=${n}`),
  fc.constantFrom('20991231', '20991231T235959Z', '19000101', '99991231T235959Z', '00000000', '2026-02-30', 'x').map((u) => `UNTIL=${u}`),
  list(dayPart).map((d) => `BYDAY=${d}`),
  list(fc.integer({ min: -33, max: 33 })).map((d) => `BYMONTHDAY=${d}`),
  list(fc.integer({ min: -1, max: 14 })).map((d) => `BYMONTH=${d}`),
  list(fc.integer({ min: -370, max: 370 })).map((d) => `BYSETPOS=${d}`),
  list(fc.integer({ min: -370, max: 370 })).map((d) => `BYYEARDAY=${d}`),
  list(fc.integer({ min: -55, max: 55 })).map((d) => `BYWEEKNO=${d}`),
  list(fc.integer({ min: -1, max: 61 })).map((d) => `BYHOUR=${d}`),
  fc.constantFrom(...DAYS).map((d) => `WKST=${d}`),
  fc.constantFrom('FROMCOMP', 'PARENT', 'RRULE:FREQ=DAILY', '', '=', 'FREQ', '=DAILY', 'X-NAME=1'),
  hostileText,
);

/** Repeat rules: RRULE parts in any order and number, legacy phrases, and junk. */
export const hostileRepeat: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.array(rulePart, { minLength: 1, maxLength: 7 }).map((parts) => parts.join(';')) },
  { weight: 2, arbitrary: fc.constantFrom(...LEGACY) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...LEGACY), fc.constantFrom(';FROMCOMP', ';PARENT', ' ', '\u0000')).map(([a, b]) => a + b) },
  { weight: 1, arbitrary: fc.constantFrom(`FREQ=DAILY;${'BYDAY=MO,'.repeat(200)}`, `FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30`, 'FREQ=YEARLY;BYYEARDAY=366;BYSETPOS=-1;COUNT=1000000000') },
);
