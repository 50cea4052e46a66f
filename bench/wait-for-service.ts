/** Resolves once `url` answers below 500, polling every 100 ms for up to 30 s; a process still starting refuses connections. */
export async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up`);
}
