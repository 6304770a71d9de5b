/**
 * The two measures of how a run used its executors' cores, named for what each measures, the same on the
 * run page, in Spark metrics, in the explanation ("core time on CPU 18%") and in the docs.
 */
export const coreTimeMeasures = {
  inTasks: {
    label: 'Core time in tasks',
    help: "The share of the executors' core time their tasks ran (task time ÷ core time).",
  },
  onCpu: {
    label: 'Core time on CPU',
    help:
      "The executors' CPU time over their core time. Lower than the core time in tasks by the time " +
      'tasks held their cores without computing (waiting on storage or the network, for instance).',
  },
} as const;
