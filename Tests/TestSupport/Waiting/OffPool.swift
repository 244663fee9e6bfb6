import Foundation

/// Runs blocking work (publishing a repository, starting a server) on a thread of its own and
/// waits for it without holding one of Swift's pool threads, which the tests running beside
/// this one need for their own waits.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
