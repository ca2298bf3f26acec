// SPDX-License-Identifier: Apache-2.0 (written for lychd's golden-file tests)
package org.example.jobs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import static java.util.Objects.requireNonNull;

/**
 * Runs jobs at fixed intervals.
 * Not thread-safe.
 */
public final class Scheduler implements AutoCloseable {
    /** Shortest interval accepted. */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(10);

    private final List<Job> jobs = new ArrayList<>();
    private boolean closed;

    /** Creates an empty scheduler. */
    public Scheduler() {}

    /**
     * Schedules {@code job} every {@code interval}.
     * @throws IllegalArgumentException when the interval is too short
     */
    public synchronized void schedule(Job job, Duration interval) {
        requireNonNull(job);
        if (interval.compareTo(MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("interval too short");
        }
        jobs.add(job);
    }

    @Override
    public void close() {
        closed = true;
    }

    /** A unit of work. */
    @FunctionalInterface
    public interface Job {
        void run() throws Exception;
    }

    enum State {
        IDLE, RUNNING;

        boolean busy() {
            return this == RUNNING;
        }
    }
}

record Tick(long at, String job) {}

enum Priority { LOW, HIGH }
