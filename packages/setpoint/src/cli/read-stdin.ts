/** Standard input as text without its final line break (a secret piped in, never on the command line). */
export async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}
