import type { ServerResponse } from 'node:http';
import { InFlightResponses } from './in-flight-responses';

const response = (name: string): ServerResponse => ({ name }) as unknown as ServerResponse;

describe('InFlightResponses', () => {
  it('holds each response until it leaves, wherever it is in the list', () => {
    const inFlight = new InFlightResponses();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(response);
    const leaveA = inFlight.add(a);
    const leaveB = inFlight.add(b);
    const leaveC = inFlight.add(c);
    expect(inFlight.size).toBe(3);
    expect(new Set(inFlight)).toEqual(new Set([a, b, c]));

    leaveB();
    expect(new Set(inFlight)).toEqual(new Set([a, c]));
    leaveC();
    expect([...inFlight]).toEqual([a]);
    const leaveD = inFlight.add(d);
    leaveA();
    expect([...inFlight]).toEqual([d]);
    leaveD();
    expect(inFlight.size).toBe(0);
    expect([...inFlight]).toEqual([]);
  });

  it('takes a response out once, however often it is asked', () => {
    const inFlight = new InFlightResponses();
    const leave = inFlight.add(response('a'));
    const other = response('b');
    inFlight.add(other);
    leave();
    leave();
    expect(inFlight.size).toBe(1);
    expect([...inFlight]).toEqual([other]);
  });
});
