import type { PipelinePlatform, PipelinePlatforms } from 'setpoint/pipeline/pipeline-context';

/**
 * The pipeline's platforms for a test of its steps: every workspace's platform is one runtime made of the
 * parts the test gives; a part it did not give fails the step that asks for it, by name.
 */
export function onePlatform(parts: Partial<PipelinePlatform>): PipelinePlatforms {
  const missing = (part: string) =>
    new Proxy(
      {},
      {
        get: (_target, member) => {
          throw new Error(`this test gave the pipeline no platform ${part} (asked for ${String(member)})`);
        },
      },
    );
  const platform = {
    runs: parts.runs ?? missing('runs'),
    coster: parts.coster ?? missing('coster'),
    recommender: parts.recommender ?? missing('recommender'),
  } as PipelinePlatform;
  return { forWorkspace: () => platform };
}
