/**
 * Every message a failure can carry has a code in the one table
 * (error-codes.ts): a message added without one fails here. Texts of
 * successful answers are listed apart (ANSWER_TEXTS).
 */
import * as contracts from '../src';
import { ANSWER_TEXTS, ERROR_CODE_NAMES, ERROR_CODES, errorCodeTable, type ErrorText } from '../src/error-codes';

/** Every exported `*_MESSAGES` object's texts, and every exported `*_MESSAGE` text, by their export's name. */
function exportedMessages(): Array<[string, ErrorText]> {
  return Object.entries(contracts).flatMap(([name, value]): Array<[string, ErrorText]> => {
    if (/_MESSAGES$/.test(name) && typeof value === 'object' && value !== null)
      return Object.entries(value).map(([key, text]) => [`${name}.${key}`, text as ErrorText]);
    if (/_MESSAGE$/.test(name) && (typeof value === 'string' || typeof value === 'function'))
      return [[name, value as ErrorText]];
    return [];
  });
}

it('gives every message a code, or lists it as the text of a success', () => {
  const coded = new Set<ErrorText>(ERROR_CODE_NAMES.flatMap((name) => [...ERROR_CODES[name].messages]));
  const messages = exportedMessages();
  expect(messages.length).toBeGreaterThan(80);
  const uncoded = messages.filter(([, text]) => !coded.has(text) && !ANSWER_TEXTS.includes(text)).map(([name]) => name);
  expect(uncoded).toEqual([]);
});

it('names codes in UPPER_SNAKE_CASE, each with its statuses, a meaning and its texts', () => {
  for (const name of ERROR_CODE_NAMES) {
    expect(name).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
    const entry = ERROR_CODES[name];
    expect(entry.status.length).toBeGreaterThan(0);
    for (const status of entry.status) expect(status === 200 || (status >= 400 && status < 600)).toBe(true);
    expect(entry.description.length).toBeGreaterThan(10);
    expect(entry.messages.length).toBeGreaterThan(0);
  }
  // A text says one thing: no text under two codes.
  const texts = ERROR_CODE_NAMES.flatMap((name) => ERROR_CODES[name].messages);
  expect(new Set(texts).size).toBe(texts.length);
});

it('renders the table for the API documents, a row per code', () => {
  const rows = errorCodeTable().split('\n');
  expect(rows).toHaveLength(ERROR_CODE_NAMES.length + 2);
  expect(rows).toContain('| `BILL_NOT_FOUND` | 404 | No such bill (or cancelled, or of a branch out of reach). |');
});
