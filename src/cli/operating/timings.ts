/**
 * Where a command's time went, phase by phase: printed under its summary, so an operator sees
 * what a slow backup, restore or copy spent its time on (and the bench reports it).
 */
export class Timings {
  private last = performance.now();
  readonly phases: { phase: string; seconds: number }[] = [];

  /** The time since the previous mark (or the start), as the phase named. */
  mark(phase: string): void {
    const now = performance.now();
    this.phases.push({ phase, seconds: (now - this.last) / 1000 });
    this.last = now;
  }

  toString(): string {
    return this.phases.map(({ phase, seconds }) => `${phase} ${seconds.toFixed(1)} s`).join(', ');
  }
}
