// What every benchmark result records about where it ran: figures are only
// comparable within one run on one machine, and its load says how noisy.
import { cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  cpus: number;
  cpu: string | undefined;
  memGiB: number;
  node: string;
  /** 1-, 5- and 15-minute load averages, now. */
  loadAvg: number[];
}

export function machineInfo(): MachineInfo {
  return {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAvg: loadavg().map((l) => +l.toFixed(2)),
  };
}
