import pino from 'pino';
import { isoTimeField } from './iso-time-field';

describe('isoTimeField', () => {
  it("writes what pino's isoTime writes, for every millisecond of a second and across seconds, days and years", () => {
    const instants = [
      ...Array.from({ length: 1000 }, (_, ms) => Date.UTC(2026, 10, 28, 10, 45, 50, ms)),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 0),
      Date.UTC(2028, 1, 29, 12, 0, 0, 7),
      Date.UTC(2026, 10, 28, 10, 45, 50, 5),
      0,
    ];
    for (const now of instants) {
      jest.spyOn(Date, 'now').mockReturnValue(now);
      expect(isoTimeField(now)).toBe(pino.stdTimeFunctions.isoTime());
    }
  });

  it('reads the clock when not given an instant', () => {
    jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 28, 10, 45, 51, 42));
    expect(isoTimeField()).toBe(',"time":"2026-11-28T10:45:51.042Z"');
  });

  afterEach(() => jest.restoreAllMocks());
});
