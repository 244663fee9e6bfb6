import AssetPackTransport
import Foundation

/// Runs upload jobs on a fixed number of threads (transfers block their thread, so they run on
/// threads of their own rather than on Swift's small cooperative pool).
///
/// A job may hand back follow-up jobs (the parts of a multipart upload it started); those run
/// before any job queued earlier, so that a started multipart upload is finished before the next
/// file begins, and few are open at a time. At the first failure the queue starts no more jobs,
/// sets `cancellation` (transfers in flight stop within a second), waits until no job runs, and
/// throws that first failure; later failures (mostly the cancellations) are dropped.
final class UploadJobQueue: @unchecked Sendable {
    struct Job: Sendable {
        let run: @Sendable () throws(UploadError) -> [Job]
        init(_ run: @escaping @Sendable () throws(UploadError) -> [Job]) { self.run = run }
    }

    let workers: Int
    let cancellation: CancellationFlag
    private let condition = NSCondition()
    /// Jobs waiting, the next one last.
    private var pending: [Job] = []
    private var running = 0
    private var liveWorkers = 0
    private var firstError: UploadError?

    init(workers: Int, cancellation: CancellationFlag) {
        self.workers = max(1, workers)
        self.cancellation = cancellation
    }

    /// Runs `jobs` (in this order, as far as parallelism allows) and everything they hand back;
    /// returns when all are done. May be called again for the next batch, unless it threw.
    func run(_ jobs: [Job]) throws(UploadError) {
        condition.withLock {
            pending = jobs.reversed()
            liveWorkers = workers
        }
        for _ in 1..<workers {
            let thread = Thread { [self] in work() }
            thread.name = "upload worker"
            thread.start()
        }
        work()
        condition.withLock {
            while liveWorkers > 0 { condition.wait() }
        }
        if let firstError { throw firstError }
    }

    private func work() {
        condition.lock()
        defer {
            liveWorkers -= 1
            condition.broadcast()
            condition.unlock()
        }
        while true {
            while pending.isEmpty, running > 0, firstError == nil { condition.wait() }
            guard firstError == nil, let job = pending.popLast() else { return }
            running += 1
            condition.unlock()
            let outcome = Result { () throws(UploadError) in try job.run() }
            condition.lock()
            running -= 1
            switch outcome {
            case .success(let followUps): pending.append(contentsOf: followUps.reversed())
            case .failure(let error):
                if firstError == nil {
                    firstError = error
                    cancellation.cancel()
                }
            }
            condition.broadcast()
        }
    }
}
