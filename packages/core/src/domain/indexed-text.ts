// What of a memory goes into the vector index. Who said something is part of
// its meaning: questions name people ("When did Caroline..."), and on
// locomo-dev the speaker prefix lifts dense R@5 from 31.7 to 48.7
// (bench/model-compare.ts), so episodes are embedded as "Speaker: text".
import type { Memory } from './record.ts';

export function embeddingText(memory: Pick<Memory, 'text' | 'origin'>): string {
  const speaker = memory.origin.speaker?.trim();
  return speaker ? `${speaker}: ${memory.text}` : memory.text;
}
