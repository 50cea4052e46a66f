import { AppConfig } from '@app/config';
import { SessionReader } from './session-reader';
import type { SessionStore, StoredSession } from './session.store';

const SESSION: StoredSession = { id: 'ses_1', userId: 'usr_1', csrfToken: 'csrf', createdAt: '2026-01-01T00:00:00.000Z' };

function readerOver(publicUrl: string): { reader: SessionReader; find: jest.Mock; findRemembered: jest.Mock } {
  const find = jest.fn().mockResolvedValue(SESSION);
  const findRemembered = jest.fn().mockResolvedValue(SESSION);
  const config = Object.assign(new AppConfig(), { PUBLIC_URL: publicUrl });
  return { reader: new SessionReader({ find, findRemembered } as unknown as SessionStore, config), find, findRemembered };
}

const carrying = (cookie?: string | string[]) => ({ headers: cookie === undefined ? {} : { cookie }, query: {} }) as never;

/** The API, the console and the OAuth pages find a session the same way: by this reader. */
describe('SessionReader', () => {
  it('reads the cookie under the name the service is served with, among other cookies', async () => {
    const http = readerOver('http://localhost:3000');
    expect(await http.reader.current(carrying('theme=dark; rms_session=ses_1.secret'))).toEqual(SESSION);
    expect(http.find).toHaveBeenCalledWith('ses_1.secret');

    const https = readerOver('https://api.example.com');
    expect(await https.reader.current(carrying('rms_session=ses_1.planted'))).toBeNull();
    expect(await https.reader.current(carrying(['theme=dark', '__Host-rms_session=ses_1.secret']))).toEqual(SESSION);
    expect(https.find).toHaveBeenCalledTimes(1);
  });

  it('asks the store for nothing when there is no session cookie', async () => {
    const { reader, find, findRemembered } = readerOver('http://localhost:3000');
    expect(await reader.current(carrying())).toBeNull();
    expect(await reader.currentRemembered(carrying('theme=dark'))).toBeNull();
    expect(find).not.toHaveBeenCalled();
    expect(findRemembered).not.toHaveBeenCalled();
  });

  it('reads Redis for pages, and may answer the API from memory', async () => {
    const { reader, find, findRemembered } = readerOver('http://localhost:3000');
    await reader.current(carrying('rms_session=ses_1.secret'));
    await reader.currentRemembered(carrying('rms_session=ses_1.secret'));
    expect(find).toHaveBeenCalledTimes(1);
    expect(findRemembered).toHaveBeenCalledTimes(1);
  });

  it("reads one request's session once, whoever asks, and each request's own", async () => {
    const { reader, find } = readerOver('http://localhost:3000');
    const req = carrying('rms_session=ses_1.secret');
    const asked = [reader.current(req), reader.current(req)];
    expect(await Promise.all(asked)).toEqual([SESSION, SESSION]);
    expect(find).toHaveBeenCalledTimes(1);
    expect(await reader.current(carrying('rms_session=ses_1.secret'))).toEqual(SESSION);
    expect(find).toHaveBeenCalledTimes(2);
  });
});
