import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskEndReason;
import org.apache.spark.Success$;
import org.apache.spark.TaskKilled;
import org.apache.spark.TaskCommitDenied;
import org.apache.spark.deploy.history.EventLogFileReader;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.ReplayListenerBus;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;
import org.apache.spark.scheduler.SparkListenerApplicationStart;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.TaskInfo;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart;

/**
 * Spark's own replay of an event log (the History Server's core: EventLogFileReader picks the codec
 * from the file name, ReplayListenerBus turns each line into a listener event) into a listener that
 * aggregates what Setpoint's engine aggregates: per stage attempt the task metric totals and every
 * successful task's duration (for the median), per executor its tasks and bytes, per job its tasks, per SQL
 * execution its span. Prints one JSON line per log with counts to check against Setpoint's profile.
 * Compiled and run by `npm run bench:peers` against pyspark's jars.
 */
public final class ReplayAggregate {
  private static final int FIELDS = 24;

  private static final class Stage {
    final long[] totals = new long[FIELDS];
    double[] durations = new double[64];
    int count;
    final Set<Integer> jobIds = new HashSet<>();
    String name = "";
    long submissionTime = -1;
    long completionTime = -1;
    String failureReason;

    void addDuration(double value) {
      if (count == durations.length) durations = Arrays.copyOf(durations, count * 2);
      durations[count++] = value;
    }
  }

  private static final class Executor {
    String host;
    int cores;
    long added = -1;
    long removed = -1;
    long tasks;
    long failedTasks;
    long taskTimeMs;
    long gcMs;
    long inputBytes;
    long shuffleReadBytes;
    long shuffleWriteBytes;
  }

  private static final class Aggregator extends SparkListener {
    final Map<Long, Stage> stages = new HashMap<>();
    final Map<Integer, List<Integer>> jobsOfStage = new HashMap<>();
    final Map<String, Executor> executors = new HashMap<>();
    final Map<Integer, long[]> jobs = new HashMap<>();
    final Map<Long, long[]> sql = new HashMap<>();
    long tasks;
    long appStart = -1;
    long appEnd = -1;
    String appName;

    private Stage stage(int stageId, int attemptId) {
      return stages.computeIfAbsent(((long) stageId << 20) | attemptId, key -> {
        Stage created = new Stage();
        List<Integer> jobIds = jobsOfStage.get(stageId);
        if (jobIds != null) created.jobIds.addAll(jobIds);
        return created;
      });
    }

    private Executor executor(String id) {
      return executors.computeIfAbsent(id, key -> new Executor());
    }

    @Override
    public void onApplicationStart(SparkListenerApplicationStart event) {
      appStart = event.time();
      appName = event.appName();
    }

    @Override
    public void onApplicationEnd(SparkListenerApplicationEnd event) {
      appEnd = event.time();
    }

    @Override
    public void onExecutorAdded(SparkListenerExecutorAdded event) {
      Executor executor = executor(event.executorId());
      executor.host = event.executorInfo().executorHost();
      executor.cores = event.executorInfo().totalCores();
      executor.added = event.time();
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved event) {
      executor(event.executorId()).removed = event.time();
    }

    @Override
    public void onJobStart(SparkListenerJobStart event) {
      jobs.put(event.jobId(), new long[] {event.time(), -1, 0, 0});
      scala.collection.Iterator<Object> ids = event.stageIds().iterator();
      while (ids.hasNext()) {
        int stageId = (Integer) ids.next();
        jobsOfStage.computeIfAbsent(stageId, key -> new ArrayList<>()).add(event.jobId());
      }
    }

    @Override
    public void onJobEnd(SparkListenerJobEnd event) {
      long[] job = jobs.computeIfAbsent(event.jobId(), key -> new long[] {-1, -1, 0, 0});
      job[1] = event.time();
    }

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted event) {
      Stage stage = stage(event.stageInfo().stageId(), event.stageInfo().attemptNumber());
      stage.name = event.stageInfo().name();
    }

    @Override
    public void onStageCompleted(SparkListenerStageCompleted event) {
      Stage stage = stage(event.stageInfo().stageId(), event.stageInfo().attemptNumber());
      stage.name = event.stageInfo().name();
      stage.submissionTime = event.stageInfo().submissionTime().isDefined()
          ? (Long) event.stageInfo().submissionTime().get() : -1;
      stage.completionTime = event.stageInfo().completionTime().isDefined()
          ? (Long) event.stageInfo().completionTime().get() : -1;
      stage.failureReason = event.stageInfo().failureReason().isDefined()
          ? event.stageInfo().failureReason().get() : null;
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd event) {
      tasks++;
      TaskInfo info = event.taskInfo();
      if (info == null) return;
      Stage stage = stage(event.stageId(), event.stageAttemptId());
      TaskEndReason reason = event.reason();
      boolean success = reason == Success$.MODULE$;
      boolean killed = reason instanceof TaskKilled || reason instanceof TaskCommitDenied;
      long[] t = stage.totals;
      t[0]++;
      if (!success && !killed) t[1]++;
      if (killed) t[2]++;
      if (info.speculative()) t[3]++;
      long duration = info.finishTime() > 0 && info.launchTime() > 0
          ? Math.max(0, info.finishTime() - info.launchTime()) : 0;
      if (success) stage.addDuration(duration);
      TaskMetrics m = event.taskMetrics();
      Executor executor = executor(info.executorId());
      executor.tasks++;
      if (!success && !killed) executor.failedTasks++;
      executor.taskTimeMs += duration;
      if (m != null) {
        t[4] += m.executorRunTime();
        t[5] += m.executorCpuTime();
        t[6] += m.executorDeserializeTime();
        t[7] += m.jvmGCTime();
        t[8] += m.resultSerializationTime();
        t[9] += m.resultSize();
        t[10] += m.inputMetrics().bytesRead();
        t[11] += m.inputMetrics().recordsRead();
        t[12] += m.outputMetrics().bytesWritten();
        t[13] += m.outputMetrics().recordsWritten();
        t[14] += m.shuffleReadMetrics().remoteBytesRead();
        t[15] += m.shuffleReadMetrics().localBytesRead();
        t[16] += m.shuffleReadMetrics().recordsRead();
        t[17] += m.shuffleReadMetrics().fetchWaitTime();
        t[18] += m.shuffleWriteMetrics().bytesWritten();
        t[19] += m.shuffleWriteMetrics().recordsWritten();
        t[20] += m.shuffleWriteMetrics().writeTime();
        t[21] += m.memoryBytesSpilled();
        t[22] += m.diskBytesSpilled();
        t[23] = Math.max(t[23], m.peakExecutionMemory());
        executor.gcMs += m.jvmGCTime();
        executor.inputBytes += m.inputMetrics().bytesRead();
        executor.shuffleReadBytes +=
            m.shuffleReadMetrics().remoteBytesRead() + m.shuffleReadMetrics().localBytesRead();
        executor.shuffleWriteBytes += m.shuffleWriteMetrics().bytesWritten();
      }
      for (int jobId : stage.jobIds) {
        long[] job = jobs.get(jobId);
        if (job == null) continue;
        job[2]++;
        if (!success && !killed) job[3]++;
      }
    }

    @Override
    public void onOtherEvent(SparkListenerEvent event) {
      if (event instanceof SparkListenerSQLExecutionStart start) {
        sql.put(start.executionId(), new long[] {start.time(), -1});
      } else if (event instanceof SparkListenerSQLExecutionEnd end) {
        sql.computeIfAbsent(end.executionId(), key -> new long[] {-1, -1})[1] = end.time();
      }
    }

    /** Per stage: sorts its task durations for the median and the maximum, as the profile does. */
    double medianSum() {
      double sum = 0;
      for (Stage stage : stages.values()) {
        if (stage.count == 0) continue;
        double[] sorted = Arrays.copyOf(stage.durations, stage.count);
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        sum += sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
      }
      return sum;
    }
  }

  public static void main(String[] args) throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    for (String file : args) {
      Aggregator aggregator = new Aggregator();
      ReplayListenerBus bus = new ReplayListenerBus();
      bus.addListener(aggregator);
      boolean complete;
      try (InputStream in = EventLogFileReader.openEventLog(new Path(file), fs)) {
        complete = bus.replay(in, file, false, ReplayListenerBus.SELECT_ALL_FILTER());
      }
      long runTime = 0;
      for (Stage stage : aggregator.stages.values()) runTime += stage.totals[4];
      System.out.println("{\"file\":\"" + file.replace("\\", "\\\\").replace("\"", "\\\"")
          + "\",\"complete\":" + complete
          + ",\"tasks\":" + aggregator.tasks
          + ",\"stages\":" + aggregator.stages.size()
          + ",\"jobs\":" + aggregator.jobs.size()
          + ",\"executors\":" + aggregator.executors.size()
          + ",\"sqlExecutions\":" + aggregator.sql.size()
          + ",\"executorRunTimeMs\":" + runTime
          + ",\"stageMedianTaskMsSum\":" + aggregator.medianSum() + "}");
    }
  }
}
