import { deleteInBatches } from './delete-in-batches';

/** A table of `rows` rows that a batch deletes from, recording what each batch was asked and did. */
function table(rows: number) {
  let left = rows;
  const batches: { asked: number; deleted: number }[] = [];
  const deleteBatch = (limit: number): Promise<number> => {
    const deleted = Math.min(limit, left);
    left -= deleted;
    batches.push({ asked: limit, deleted });
    return Promise.resolve(deleted);
  };
  return { deleteBatch, batches, left: () => left };
}

describe('deleteInBatches', () => {
  it('deletes batch after batch of the batch size until one comes back short, and adds them up', async () => {
    const rows = table(2500);
    const keepGoing = jest.fn(() => Promise.resolve(true));
    expect(await deleteInBatches(rows.deleteBatch, { batchSize: 1000, pauseMs: 0, keepGoing })).toBe(2500);
    expect(rows.batches).toEqual([
      { asked: 1000, deleted: 1000 },
      { asked: 1000, deleted: 1000 },
      { asked: 1000, deleted: 500 },
    ]);
    // Asked between batches only: not before the first, not after the last.
    expect(keepGoing).toHaveBeenCalledTimes(2);
  });

  it('runs one batch when the first already comes back short, and one more when the table was an exact multiple', async () => {
    const few = table(3);
    expect(await deleteInBatches(few.deleteBatch, { batchSize: 1000, pauseMs: 0, keepGoing: () => Promise.resolve(true) })).toBe(3);
    expect(few.batches).toHaveLength(1);
    const exact = table(2000);
    expect(await deleteInBatches(exact.deleteBatch, { batchSize: 1000, pauseMs: 0, keepGoing: () => Promise.resolve(true) })).toBe(2000);
    expect(exact.batches.map((batch) => batch.deleted)).toEqual([1000, 1000, 0]);
  });

  it('stops before the next batch when told to (shutdown, or the lease lost), leaving the rest', async () => {
    const rows = table(5000);
    let allowed = 2;
    const keepGoing = () => Promise.resolve(--allowed > 0);
    expect(await deleteInBatches(rows.deleteBatch, { batchSize: 1000, pauseMs: 0, keepGoing })).toBe(2000);
    expect(rows.left()).toBe(3000);
  });

  it('pauses between batches', async () => {
    const rows = table(3000);
    const started = performance.now();
    await deleteInBatches(rows.deleteBatch, { batchSize: 1000, pauseMs: 40, keepGoing: () => Promise.resolve(true) });
    // Three full batches and a short one: three pauses.
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 40 - 5);
  });

  it('lets a failing batch fail the run, with what the earlier batches deleted committed', async () => {
    const rows = table(5000);
    let calls = 0;
    const failing = (limit: number) => (++calls === 2 ? Promise.reject(new Error('statement timeout')) : rows.deleteBatch(limit));
    await expect(deleteInBatches(failing, { batchSize: 1000, pauseMs: 0, keepGoing: () => Promise.resolve(true) })).rejects.toThrow('statement timeout');
    expect(rows.left()).toBe(4000);
  });
});
