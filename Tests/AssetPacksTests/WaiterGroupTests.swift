@testable import AssetPacks
import Foundation
import Testing

/// `WaiterGroup` on its own: callers waiting on one piece of shared work, leaving when cancelled.
@Suite struct WaiterGroupTests {
    /// Counts `onAbandoned` calls.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.withLock { value += 1 } }
        var count: Int { lock.withLock { value } }
    }

    struct Failure: Error, Equatable {}

    @Test func everyWaiterGetsTheOutcomeAndLateComersGetItAtOnce() async throws {
        let abandoned = Counter()
        let group = WaiterGroup<Int>(onAbandoned: abandoned.increment)
        let keys = try (0..<3).map { _ in try #require(group.register()) }
        #expect(Set(keys).count == 3)
        let waiters = keys.map { key in Task { try await group.wait(key) } }
        group.complete(.success(42))
        for waiter in waiters { #expect(try await waiter.value == 42) }
        // The work is done: a caller that registers now has the outcome at once.
        let late = try #require(group.register())
        #expect(try await group.wait(late) == 42)
        #expect(abandoned.count == 0 && !group.isAbandoned)
    }

    @Test func aFailureReachesEveryWaiter() async throws {
        let group = WaiterGroup<Int>()
        let waiters = try (0..<2).map { _ in try #require(group.register()) }.map { key in Task { try await group.wait(key) } }
        group.complete(.failure(Failure()))
        for waiter in waiters {
            await #expect(throws: Failure()) { try await waiter.value }
        }
    }

    @Test func aCancelledCallerLeavesWhileTheOthersKeepWaiting() async throws {
        let abandoned = Counter()
        let group = WaiterGroup<String>(onAbandoned: abandoned.increment)
        let staying = try #require(group.register()), leaving = try #require(group.register())
        let stayer = Task { try await group.wait(staying) }
        let leaver = Task { try await group.wait(leaving) }
        leaver.cancel()
        await #expect(throws: CancellationError.self) { try await leaver.value }
        #expect(abandoned.count == 0 && !group.isAbandoned)
        group.complete(.success("done"))
        #expect(try await stayer.value == "done")
        #expect(abandoned.count == 0)
    }

    @Test func whenTheLastCallerLeavesTheGroupIsAbandonedOnce() async throws {
        let abandoned = Counter()
        let group = WaiterGroup<Int>(onAbandoned: abandoned.increment)
        let waiters = try (0..<3).map { _ in try #require(group.register()) }.map { key in Task { try await group.wait(key) } }
        // Each caller waits or is about to: cancel them one by one.
        for (i, waiter) in waiters.enumerated() {
            #expect(!group.isAbandoned, "abandoned before caller \(i) left")
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
        }
        #expect(group.isAbandoned)
        #expect(abandoned.count == 1)
        // No one may join an abandoned group; completing it later reaches no one.
        #expect(group.register() == nil)
        group.complete(.success(1))
        #expect(abandoned.count == 1)
    }

    @Test func aCallerWhoseTaskIsAlreadyCancelledLeavesAtOnce() async throws {
        let abandoned = Counter()
        let group = WaiterGroup<Int>(onAbandoned: abandoned.increment)
        let key = try #require(group.register())
        let waiter = Task {
            // Until cancelled (a cancelled sleep ends at once), then wait on the group.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(1)) }
            return try await group.wait(key)
        }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(group.isAbandoned && abandoned.count == 1)
    }
}
