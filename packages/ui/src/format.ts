// Figures and times as people read them.
export function until(iso: string, now = Date.now()): string {
  const ms = new Date(iso).getTime() - now;
  return ms < 0 ? `expired ${duration(-ms)} ago` : `in ${duration(ms)}`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const s = Math.abs(ms) / 1000;
  if (s < 1) return `${Math.round(Math.abs(ms))} ms`;
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  if (s < 400 * 86400) return `${Math.round(s / 86400)} d`;
  return `${(s / (365 * 86400)).toFixed(1)} y`;
}

export function share(x: number | null | undefined): string {
  return x === null || x === undefined ? '—' : `${(x * 100).toFixed(x === 1 ? 0 : 1)}%`;
}

export function when(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
}

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}
