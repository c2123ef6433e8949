// The key is entered once per browser session: kept in sessionStorage (gone
// when the tab closes), never in localStorage, a cookie or the URL.
const STORAGE_KEY = 'keepgraph.apiKey';

export function savedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function saveKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
