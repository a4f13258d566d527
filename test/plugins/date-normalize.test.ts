// Dates read from text, as properties over written forms: what is no date stays none whatever the moment of reading,
// and a date that states day, month and year is that day.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from '../util/fc.ts';
import { toDate } from '../../plugins/shared/normalize/date.ts';

const UNITS = ['minutes', 'hours', 'days', 'weeks', 'months', 'years', 'Tagen', 'Wochen', 'jours', 'días'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

test('a span of time from now (within 2 days, in 7 days) is never a date', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('within', 'in', 'for', 'innerhalb von', 'en', 'dentro de'),
      fc.integer({ min: 1, max: 400 }),
      fc.constantFrom(...UNITS),
      fc.constantFrom('', '!', ' of applying.', ' later'),
      (lead, n, unit, tail) => assert.is(toDate(`Had an interview ${lead} ${n} ${unit}${tail}`), undefined),
    ),
  );
});

test('a word with a figure and no year (a login: Marianne1, Mar1) is never a date', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...MONTHS.map((m) => m.slice(0, 3)), ...MONTHS, 'Marianne', 'Junebug', 'Decker'),
      fc.integer({ min: 1, max: 31 }),
      (word, n) => assert.is(toDate(`${word}${n}`), undefined),
    ),
  );
});

test('a day written with its month and year is that day, with or without a span of time before it', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 28 }),
      fc.integer({ min: 0, max: 11 }),
      fc.integer({ min: 1995, max: 2025 }),
      fc.boolean(),
      (day, month, year, span) => {
        const text = `${span ? 'Reviewed within 3 days, on ' : ''}${day} ${MONTHS[month]} ${year}`;
        const want = `${year}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
        assert.is(toDate(text)?.slice(0, 10), want, text);
      },
    ),
  );
});

test.run();
