import { AsyncLocalStorage } from 'node:async_hooks';
import { TurnBatch } from './turn-batch';

describe('TurnBatch', () => {
  it('sends the items of one turn in one call and answers each with its own result, in order', async () => {
    const send = jest.fn((items: readonly number[]) => Promise.resolve(items.map((item) => item * 10)));
    const batch = new TurnBatch(send, 256);
    await expect(Promise.all([batch.add(1), batch.add(2), batch.add(3)])).resolves.toEqual([10, 20, 30]);
    expect(send).toHaveBeenCalledTimes(1);
    expect(send).toHaveBeenCalledWith([1, 2, 3]);
  });

  it("sends in none of its items' contexts, and resumes each caller in its own", async () => {
    const requests = new AsyncLocalStorage<string>();
    const sentIn: Array<string | undefined> = [];
    const batch = new TurnBatch((items: readonly number[]) => {
      sentIn.push(requests.getStore());
      return Promise.resolve(items);
    }, 256);
    const resumedIn = await Promise.all(
      ['first', 'second'].map((request, item) => requests.run(request, async () => (await batch.add(item), requests.getStore()))),
    );
    expect(sentIn).toEqual([undefined]);
    expect(resumedIn).toEqual(['first', 'second']);
  });

  it('starts a new call for items added in a later turn', async () => {
    const send = jest.fn((items: readonly string[]) => Promise.resolve(items));
    const batch = new TurnBatch(send, 256);
    await batch.add('a');
    await batch.add('b');
    expect(send.mock.calls).toEqual([[['a']], [['b']]]);
  });

  it('splits a burst into calls of at most maxPerCall items', async () => {
    const send = jest.fn((items: readonly number[]) => Promise.resolve(items));
    const batch = new TurnBatch(send, 2);
    await expect(Promise.all([1, 2, 3, 4, 5].map((item) => batch.add(item)))).resolves.toEqual([1, 2, 3, 4, 5]);
    expect(send.mock.calls).toEqual([[[1, 2]], [[3, 4]], [[5]]]);
  });

  it("rejects every item of a failed call with that call's error, and only those", async () => {
    const failure = new Error('Connection is closed.');
    const send = jest.fn((items: readonly number[]) => (items.includes(3) ? Promise.reject(failure) : Promise.resolve(items)));
    const batch = new TurnBatch(send, 2);
    const answers = await Promise.allSettled([1, 2, 3, 4].map((item) => batch.add(item)));
    expect(answers).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
  });

  it('sends each item of a failed call alone when the failure is one to isolate, so that only the item at fault fails', async () => {
    const refused = new Error('the row of item 3 is refused');
    const send = jest.fn((items: readonly number[]) => (items.includes(3) ? Promise.reject(refused) : Promise.resolve(items)));
    const batch = new TurnBatch(send, 256, (error) => error === refused);
    const answers = await Promise.allSettled([1, 2, 3, 4].map((item) => batch.add(item)));
    expect(answers).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: refused },
      { status: 'fulfilled', value: 4 },
    ]);
    expect(send.mock.calls).toEqual([[[1, 2, 3, 4]], [[1]], [[2]], [[3]], [[4]]]);
  });

  it('fails every item at once on a failure not to isolate', async () => {
    const down = new Error('Connection terminated');
    const send = jest.fn(() => Promise.reject(down));
    const batch = new TurnBatch(send, 256, () => false);
    const answers = await Promise.allSettled([1, 2].map((item) => batch.add(item)));
    expect(answers).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ]);
    expect(send).toHaveBeenCalledTimes(1);
  });
});
