/** A one-line spinner on stderr, only for a person at a terminal; silent otherwise. */
export function startSpinner(label: string, stream: NodeJS.WriteStream = process.stderr) {
  if (!stream.isTTY) return { update: (_text: string) => {}, stop: () => {} };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let text = label;
  let index = 0;
  const timer = setInterval(() => {
    index = (index + 1) % frames.length;
    stream.write(`\r${frames[index]} ${text}\u001b[K`);
  }, 100);
  return {
    update(next: string) {
      text = next;
    },
    stop() {
      clearInterval(timer);
      stream.write('\r\u001b[K');
    },
  };
}

export const waitForAbort = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
