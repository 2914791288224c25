/** Something that happens at a virtual time. */
export interface SimulationEvent {
  /** When, in ms since the run's start. */
  readonly at: number;
  /** What happens. */
  readonly run: () => void | Promise<void>;
}

interface Queued extends SimulationEvent {
  readonly seq: number;
}

/**
 * The simulation's agenda: a binary heap of events by time, then by the order they were scheduled (so two
 * events at the same millisecond always run in the same order, whatever the machine).
 */
export class EventQueue {
  readonly #heap: Queued[] = [];
  #seq = 0;

  /** How many events wait. */
  get size(): number {
    return this.#heap.length;
  }

  /** When the next event is due; undefined when none waits. */
  peekAt(): number | undefined {
    return this.#heap[0]?.at;
  }

  /** Schedules `run` at `at`. */
  push(at: number, run: () => void | Promise<void>): void {
    const heap = this.#heap;
    heap.push({ at, run, seq: this.#seq++ });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }

  /** Takes the earliest event, or undefined when none is left. */
  pop(): SimulationEvent | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === index) break;
      [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
      index = smallest;
    }
    return top;
  }
}

const before = (a: Queued, b: Queued) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
