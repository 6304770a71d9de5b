"""Small, varied Spark workloads whose event logs become Setpoint's real-Spark test fixtures.

Run by generate-spark-fixtures.sh: one application per event-log codec (and one rolling log).
Each application runs every workload, so each log holds several jobs.
"""
import argparse

from pyspark import TaskContext
from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def session(args):
    builder = (
        SparkSession.builder.master("local[2,2]")  # 2 cores, a failed task is retried once
        .appName(f"setpoint-fixture-{args.label}")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.shuffle.spill.numElementsForceSpillThreshold", "20000")
        .config("spark.eventLog.enabled", "true")
        .config("spark.eventLog.dir", f"file://{args.log_dir}")
        .config("spark.eventLog.rolling.enabled", "true" if args.rolling else "false")
        .config("spark.eventLog.rolling.maxFileSize", "10m")
    )
    if args.codec == "none":
        builder = builder.config("spark.eventLog.compress", "false")
    else:
        builder = builder.config("spark.eventLog.compress", "true").config(
            "spark.eventLog.compression.codec", args.codec
        )
    return builder.getOrCreate()


def join_and_aggregate(spark):
    orders = spark.range(0, 200_000).select(
        (F.col("id") % 1000).alias("customer"), (F.col("id") % 97).alias("amount")
    )
    customers = spark.range(0, 1000).select(F.col("id").alias("customer"), (F.col("id") % 7).alias("region"))
    orders.join(customers, "customer").groupBy("region").agg(F.sum("amount")).collect()


def skewed_group_by(spark):
    rows = spark.range(0, 300_000).select(
        F.when(F.col("id") % 10 < 8, F.lit(0)).otherwise(F.col("id") % 50).alias("key"), F.col("id")
    )
    rows.groupBy("key").agg(F.count("*"), F.max("id")).collect()


def spilling_sort(spark):
    spark.range(0, 400_000, numPartitions=2).select(
        F.sha2(F.col("id").cast("string"), 256).alias("digest")
    ).orderBy("digest").write.mode("overwrite").format("noop").save()


def failing_tasks(spark):
    def fail_first_attempt(rows):
        context = TaskContext.get()
        if context.partitionId() == 0 and context.attemptNumber() == 0:
            raise RuntimeError("setpoint fixture: deliberate task failure")
        return rows

    spark.sparkContext.parallelize(range(1000), 4).mapPartitions(fail_first_attempt).count()


def many_tasks(spark, partitions):
    spark.sparkContext.parallelize(range(partitions), partitions).map(lambda x: x * 2).count()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--codec", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--rolling", action="store_true")
    parser.add_argument("--many-tasks", type=int, default=0)
    args = parser.parse_args()
    spark = session(args)
    join_and_aggregate(spark)
    skewed_group_by(spark)
    spilling_sort(spark)
    failing_tasks(spark)
    if args.many_tasks:
        many_tasks(spark, args.many_tasks)
    spark.stop()


if __name__ == "__main__":
    main()
