import AssetPacks
import Foundation

/// Runs the agent's accepted requests through its manager: at most `maxParallel` packs at once,
/// in the order they were accepted, one job per pack however many callers ask for it. The agent
/// is the manager's only caller for these downloads, so a client that leaves changes nothing;
/// `cancel` is what stops a download (the manager then pauses it and sends `.paused`).
final class DownloadScheduler: @unchecked Sendable {
    let manager: AssetPackManager
    let store: RequestQueueStore
    let maxParallel: Int
    let backoff: RetryBackoff
    /// Asked before each download the agent starts on its own (install step, updates).
    let shouldDownload: ShouldDownloadHook?
    private let lock = NSLock()
    /// Consecutive transient failures per pack, and the pending retry of each.
    private var failures: [String: Int] = [:]
    private var retries: [String: Task<Void, Never>] = [:]
    private var jobs: [String: Job] = [:]
    private var waiting: [String] = []
    private var running: [ObjectIdentifier: String] = [:]
    private var stopping = false
    /// Progressive reads a caller waits for, by pack ID: while one runs, the pack's transfers are
    /// foreground work (not paced by `--max-rate`), the read's own and the download's.
    private var foregroundReads: [String: Int] = [:]
    /// Signalled whenever a running job ends (for `shutdown`).
    private let ended = NSCondition()

    final class Job: @unchecked Sendable {
        let id: String
        let requireLatestVersion: Bool
        /// Started by the agent on its own, not asked for by a caller: the hook decides.
        var background = false
        var priority = RequestPriority.background
        let outcome: RequestOutcome
        var task: Task<Void, Never>?
        var cancelledByUser = false
        /// Stopped to free its slot for a request a caller waits for; it goes back in the queue.
        var preempted = false
        init(id: String, requireLatestVersion: Bool, outcome: RequestOutcome = RequestOutcome()) {
            self.id = id
            self.requireLatestVersion = requireLatestVersion
            self.outcome = outcome
        }
    }

    init(manager: AssetPackManager, store: RequestQueueStore, maxParallel: Int, backoff: RetryBackoff = RetryBackoff(),
         shouldDownload: ShouldDownloadHook? = nil) {
        self.manager = manager
        self.store = store
        self.maxParallel = max(1, maxParallel)
        self.backoff = backoff
        self.shouldDownload = shouldDownload
    }

    /// Packs downloading now.
    var runningIDs: [String] { lock.withLock { running.values.sorted() } }

    /// Whether the download of `id` under way is background work (prefetch, detached, updates),
    /// which `--max-rate` limits; false for one a caller waits for or an essential pack, and for
    /// a download the scheduler did not start (`POST /v1/update` answers when done: foreground).
    func isBackgroundDownload(_ id: String) -> Bool {
        lock.withLock { foregroundReads[id, default: 0] == 0 && (jobs[id].map { $0.priority >= .background } ?? false) }
    }

    /// Runs `work`, a progressive read of pack `id` a caller waits for, with the pack's transfers
    /// counted as foreground work meanwhile.
    func whileReading<T>(_ id: String?, _ work: () throws -> T) rethrows -> T {
        guard let id else { return try work() }
        lock.withLock { foregroundReads[id, default: 0] += 1 }
        defer {
            lock.withLock {
                foregroundReads[id, default: 1] -= 1
                if foregroundReads[id] == 0 { foregroundReads[id] = nil }
            }
        }
        return try work()
    }

    /// Accepts a request: on disk first, then queued by `priority` (a waiting request asked for
    /// again with a higher one moves up). Returns how it will end (a pack already requested
    /// joins that request). `background`: the agent starts it on its own (the hook decides).
    func ensure(_ id: String, requireLatestVersion: Bool, priority: RequestPriority = .background, background: Bool = false) throws -> RequestOutcome {
        // A job being cancelled is not joined: this request starts afresh once it has stopped
        // (the manager resumes from what it kept).
        let joined: RequestOutcome? = lock.withLock {
            guard !stopping, let existing = jobs[id], !existing.cancelledByUser else { return nil }
            if !background { existing.background = false }
            if priority < existing.priority {
                existing.priority = priority
                if let i = waiting.firstIndex(of: id) {
                    waiting.remove(at: i)
                    enqueue(existing)
                }
            }
            return existing.outcome
        }
        if let joined {
            // On disk as well (the higher priority, a caller's say over the hook's).
            try store.accept(id, requireLatestVersion: requireLatestVersion, priority: priority, background: background)
            startReady()  // a request moved up may now take a background job's slot
            return joined
        }
        guard !lock.withLock({ stopping }) else { throw AgentRequestError.stopping }
        try store.accept(id, requireLatestVersion: requireLatestVersion, priority: priority, background: background)
        let outcome: RequestOutcome = lock.withLock {
            if let existing = jobs[id], !existing.cancelledByUser { return existing.outcome }
            // Asked for again: no need to wait for a pending retry.
            retries.removeValue(forKey: id)?.cancel()
            let job = Job(id: id, requireLatestVersion: requireLatestVersion)
            job.background = background
            job.priority = priority
            jobs[id] = job
            enqueue(job)
            return job.outcome
        }
        startReady()
        return outcome
    }

    /// Puts `job` in `waiting` after every job of its priority or a higher one — or, `ahead`, before
    /// those of its own priority (a job that yielded its slot had started first) (under `lock`).
    private func enqueue(_ job: Job, ahead: Bool = false) {
        let index = waiting.firstIndex { jobs[$0].map { ahead ? job.priority <= $0.priority : job.priority < $0.priority } ?? false } ?? waiting.endIndex
        waiting.insert(job.id, at: index)
    }

    /// Takes up every request a previous run left queued (after a crash, a kill, a reboot).
    func resumeUnfinished() throws {
        let queued = try store.records().filter { $0.state == RequestQueueStore.State.queued.rawValue }
        for r in queued where r.nextAttempt != nil { try store.mark(r.id, .queued, error: r.error) }
        lock.withLock {
            for r in queued where jobs[r.id] == nil {
                let job = Job(id: r.id, requireLatestVersion: r.requireLatestVersion)
                if let scheduling = try? store.scheduling(r.id) { (job.priority, job.background) = scheduling }
                jobs[r.id] = job
                enqueue(job)
            }
        }
        startReady()
    }

    /// Stops the request for `id`: a waiting one leaves the queue, a running one is cancelled
    /// (the manager pauses the download, keeping what it verified). Recorded as `paused`.
    /// False when the agent holds no request for the pack.
    func cancel(_ id: String, forget: Bool = false) throws -> Bool {
        let job: Job? = lock.withLock {
            retries.removeValue(forKey: id)?.cancel()
            failures[id] = nil
            guard let job = jobs[id] else { return nil }
            job.cancelledByUser = true
            if let i = waiting.firstIndex(of: id) {
                waiting.remove(at: i)
                jobs[id] = nil
            }
            return job
        }
        let known = try job != nil || store.record(id) != nil
        if forget { try store.finish(id) } else if known { try store.mark(id, .paused) }
        if let job {
            if let task = job.task { task.cancel() } else { job.outcome.complete(.failure(AgentRequestError.paused(assetPackID: id))) }
        }
        return known
    }

    private func startReady() {
        let yielding: Task<Void, Never>? = lock.withLock {
            startWaiting()
            return preemptForForeground()
        }
        // Outside the lock: cancelling runs the manager's handlers.
        yielding?.cancel()
    }

    /// When every slot is taken and the head of the queue is something a caller waits for (or
    /// an essential pack), one background download yields its slot: it pauses, keeping what it
    /// verified, and goes back in the queue; the slot is free once it has stopped (under `lock`).
    private func preemptForForeground() -> Task<Void, Never>? {
        let runningJobs = jobs.values.filter { running[ObjectIdentifier($0)] != nil }
        // One at a time: a job already yielding frees the slot soon.
        guard !stopping, running.count >= maxParallel, let head = waiting.first.flatMap({ jobs[$0] }), head.priority <= .waitedFor,
              !runningJobs.contains(where: \.preempted) else { return nil }
        let candidates = runningJobs.filter { $0.priority >= .background && !$0.cancelledByUser }
        guard let victim = candidates.max(by: { $0.priority < $1.priority }) else { return nil }
        victim.preempted = true
        return victim.task
    }

    /// Starts waiting jobs while there are free slots (under `lock`).
    private func startWaiting() {
        while !stopping, running.count < maxParallel, !waiting.isEmpty {
            let id = waiting.removeFirst()
            guard let job = jobs[id] else { continue }
            running[ObjectIdentifier(job)] = id
            job.task = Task { [self] in
                let result: Result<Void, any Error>
                do {
                    let pack = try await manager.catalogPack(withID: job.id)
                    if job.background, let hook = shouldDownload {
                        // Only when bytes would move: an installed, current pack needs no say.
                        let status = try await manager.status(relativeTo: pack)
                        let needsDownload = !status.contains(.downloaded) || (job.requireLatestVersion && status.contains(.updateAvailable))
                        if needsDownload, case .skip(let reason) = await hook.verdict(for: pack) {
                            throw AgentRequestError.declined(assetPackID: pack.id, reason: reason)
                        }
                    }
                    try await manager.ensureLocalAvailability(of: pack, requireLatestVersion: job.requireLatestVersion)
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                finish(job, result)
            }
        }
    }

    private func finish(_ job: Job, _ result: Result<Void, any Error>) {
        let requeued: Bool = lock.withLock {
            guard job.preempted, !job.cancelledByUser, !stopping, case .failure = result, jobs[job.id] === job else { return false }
            // Back in the queue, with the same waiters; it resumes from what it kept.
            running[ObjectIdentifier(job)] = nil
            let again = Job(id: job.id, requireLatestVersion: job.requireLatestVersion, outcome: job.outcome)
            again.background = job.background
            again.priority = job.priority
            jobs[job.id] = again
            enqueue(again, ahead: true)
            return true
        }
        if requeued {
            ended.withLock { ended.broadcast() }
            startReady()
            return
        }
        let (wasStopping, byUser) = lock.withLock {
            running[ObjectIdentifier(job)] = nil
            if jobs[job.id] === job { jobs[job.id] = nil }
            return (stopping, job.cancelledByUser)
        }
        var outcome = result
        switch result {
        case .success:
            lock.withLock { failures[job.id] = nil }
            try? store.finish(job.id)
        case .failure(let error):
            if byUser {
                outcome = .failure(AgentRequestError.paused(assetPackID: job.id))
            } else if wasStopping {
                // Stays queued: the next start resumes it.
                outcome = .failure(AgentRequestError.stopping)
            } else if case AgentRequestError.declined(_, let reason) = error {
                lock.withLock { failures[job.id] = nil }
                try? store.mark(job.id, .skipped, error: reason)
            } else if Self.isTransient(error) {
                // Stays queued, and is tried again later (callers waiting now get the error).
                scheduleRetry(job, after: error)
            } else {
                lock.withLock { failures[job.id] = nil }
                try? store.mark(job.id, .failed, error: "\(error)")
            }
        }
        job.outcome.complete(outcome)
        ended.withLock { ended.broadcast() }
        startReady()
        // The last download ended: once its caller has been answered and nothing started
        // meanwhile, what it took goes back to the system.
        if lock.withLock({ running.isEmpty }) {
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [weak self] in
                if self?.lock.withLock({ self?.running.isEmpty }) == true { IdleMemory.settle() }
            }
        }
    }

    /// Whether a failure may go away by itself: the network, or a server error other than a
    /// refusal of the request (4xx).
    static func isTransient(_ error: any Error) -> Bool {
        guard case AssetPackManagerError.transport(let t) = error else { return false }
        return t.isTransient || !(400..<500).contains(t.httpStatus ?? 0)
    }

    private func scheduleRetry(_ job: Job, after error: any Error) {
        let delay: Duration = lock.withLock {
            failures[job.id, default: 0] += 1
            return backoff.delay(afterFailures: failures[job.id]!)
        }
        try? store.mark(job.id, .queued, error: "\(error)", nextAttempt: Date().addingTimeInterval(delay.seconds))
        let id = job.id
        let task = Task { [self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            lock.withLock {
                retries[id] = nil
                guard !stopping, jobs[id] == nil else { return }
                let retry = Job(id: id, requireLatestVersion: job.requireLatestVersion)
                retry.background = job.background
                retry.priority = job.priority
                jobs[id] = retry
                enqueue(retry)
            }
            startReady()
        }
        lock.withLock {
            if stopping { task.cancel() } else { retries[id] = task }
        }
    }

    /// Stops starting jobs, cancels those running (their requests stay queued on disk), tells
    /// every waiter, and waits until the running ones have stopped or `deadline` passes.
    func shutdown(deadline: Date) {
        let (all, tasks): ([Job], [Task<Void, Never>]) = lock.withLock {
            stopping = true
            waiting.removeAll()
            for retry in retries.values { retry.cancel() }
            retries.removeAll()
            let all = Array(jobs.values)
            return (all, all.compactMap(\.task))
        }
        for task in tasks { task.cancel() }
        for job in all where job.task == nil { job.outcome.complete(.failure(AgentRequestError.stopping)) }
        ended.withLock {
            while !lock.withLock({ running.isEmpty }) {
                if !ended.wait(until: deadline) { break }
            }
        }
        for job in all { job.outcome.complete(.failure(AgentRequestError.stopping)) }
    }
}
